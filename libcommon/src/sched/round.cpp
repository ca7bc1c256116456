#include <hetsched/sched/round.hpp>

#include <algorithm>
#include <chrono>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/csv_table.hpp>
#include <hetsched/sched/allox_policy.hpp>
#include <hetsched/sched/fft_policy.hpp>
#include <hetsched/sched/gavel_policy.hpp>
#include <hetsched/sched/iceshare_policy.hpp>
#include <hetsched/sched/kept_jobs.hpp>
#include <hetsched/sched/queue_policies.hpp>
#include <hetsched/sched/sia_policy.hpp>
#include <hetsched/sched/tiresias_policy.hpp>
#include <hetsched/sched/host_placement.hpp>
#include <hetsched/sched/tie_break.hpp>

namespace hetsched::sched {
namespace {

/// Credits the time since the previous decision to the jobs that held GPUs through it.
void credit_service(ClusterState& s) {
    if (s.last_decision_s < 0 || s.time_s <= s.last_decision_s) return;
    const double elapsed = s.time_s - s.last_decision_s;
    for (auto& j : s.jobs) {
        if (!j.placement.running()) continue;
        j.book.attained_gpu_s += elapsed * j.placement.held_gpus();
        j.book.time_per_type_s[static_cast<size_t>(j.placement.type)] += elapsed;
    }
}

/// A job the state gives already running but with no first start (adopted from a cluster that ran it
/// before this scheduler's state knew it) ran at least the time its bookkeeping counts, and at least the
/// time its progress needs on its fastest type and size: it started that long ago at the latest, and not before
/// it was submitted.
void date_adopted_starts(ClusterState& s) {
    for (auto& j : s.jobs) {
        if (!j.placement.running() || j.book.first_start_s >= 0) continue;
        double ran_s = 0;
        for (double x : j.book.time_per_type_s) ran_s += x;
        const double fastest = j.fastest_throughput();  // an elastic job may have run at another size
        if (fastest > 0) ran_s = std::max(ran_s, j.done / fastest);
        j.book.first_start_s = std::max(j.submit_time_s, s.time_s - ran_s);
    }
}

TypeDecision decide(ClusterState& s, const RoundOptions& o) {
    const GlpkOutput output(o.solver_log);
    TypeDecision d;
    switch (o.policy) {
    case PolicyKind::fft: d = fft_decide(s, o); break;
    case PolicyKind::gavel: d = gavel_decide(s, o, true); break;
    case PolicyKind::gavel_agnostic: d = gavel_decide(s, o, false); break;
    case PolicyKind::tiresias: d = tiresias_decide(s, o); break;
    case PolicyKind::srtf: d = srtf_decide(s, o); break;
    case PolicyKind::fifo: d = fifo_decide(s, o); break;
    case PolicyKind::opportunistic: d = opportunistic_decide(s, o); break;
    case PolicyKind::allox: d = allox_decide(s, o); break;
    case PolicyKind::has: d = has_decide(s, o); break;
    case PolicyKind::sia: d = sia_decide(s, o); break;
    case PolicyKind::iceshare: d = iceshare_decide(s, o); break;
    }
    d.policy = policy_name(o.policy);
    return d;
}

/// An elastic policy's sizes: each resized job takes the chosen scale's GPU count and throughputs.
void resize(ClusterState& s, const TypeDecision& d) {
    if (d.gpus.empty()) return;
    for (size_t k = 0; k < s.jobs.size(); ++k) {
        Job& j = s.jobs[k];
        if (d.type[k] < 0 || d.gpus[k] == j.num_gpus) continue;
        const auto sc = std::find_if(j.scales.begin(), j.scales.end(), [&](const Scale& x) { return x.gpus == d.gpus[k]; });
        if (sc == j.scales.end())
            throw Error(Exit::internal, "job '" + j.id + "' was given " + std::to_string(d.gpus[k]) + " GPUs, not one of its sizes");
        j.num_gpus = sc->gpus;
        j.throughput = sc->throughput;
    }
}

/// The jobs in order of submission, then id: the order every policy and the host placement see them
/// in, so that jobs a policy's own criteria leave tied go in this order, whatever the order of the
/// state's list (or of a trace's rows) and whichever of several equal optima a solver would take first.
std::vector<size_t> submission_order(const std::vector<Job>& jobs) {
    std::vector<size_t> order(jobs.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return earlier(jobs[a], jobs[b]); });
    return order;
}

/// `v` (indexed like `order`'s positions) put back where `order` took each element from; empty stays empty.
template <class T>
void put_back(std::vector<T>& v, const std::vector<size_t>& order) {
    if (v.size() != order.size()) return;
    std::vector<T> out(v.size());
    for (size_t i = 0; i < order.size(); ++i) out[order[i]] = std::move(v[i]);
    v = std::move(out);
}

ActionKind action_for(const ClusterState& s, const Placement& was, const Placement& now) {
    if (!was.running()) return ActionKind::start;
    if (!now.running()) return ActionKind::stop;
    if (was == now) return ActionKind::keep;
    if (was.type != now.type || was.shares != now.shares) return ActionKind::migrate;
    // Only sharing begun or ended on the same hosts. A placement does not say which of a node's GPUs
    // a job holds, so the job surely stays on its GPU only where the node has no other: a one-GPU
    // node. Elsewhere it may move, and is counted as moved.
    const bool stays = std::all_of(now.shares.begin(), now.shares.end(), [&](const NodeShare& sh) {
        return s.nodes[static_cast<size_t>(sh.node)].gpus == 1;
    });
    return stays ? ActionKind::keep : ActionKind::migrate;
}

}  // namespace

std::string action_name(ActionKind a) {
    switch (a) {
    case ActionKind::start: return "start";
    case ActionKind::stop: return "stop";
    case ActionKind::migrate: return "migrate";
    case ActionKind::keep: return "keep";
    }
    return "keep";
}

RoundResult run_round(const ClusterState& in, const RoundOptions& o) {
    const auto t0 = std::chrono::steady_clock::now();
    RoundResult r;
    r.state = in;
    ClusterState& s = r.state;
    credit_service(s);
    date_adopted_starts(s);
    // Decided and placed in submission order, then back in the state's own order.
    const std::vector<size_t> order = submission_order(s.jobs);
    std::vector<Job> jobs;
    jobs.reserve(s.jobs.size());
    for (size_t k : order) jobs.push_back(std::move(s.jobs[k]));
    s.jobs = std::move(jobs);
    const auto decide_and_place = [&](ClusterState& state) {
        r.decision = decide(state, o);
        resize(state, r.decision);
        return place_on_hosts(state, r.decision.type, o, r.decision.shared);
    };
    std::vector<Placement> placed;
    if (o.policy == PolicyKind::fft) fft_open_round(s);  // kept jobs' ρ and τ too, on the whole cluster
    const std::vector<char> kept = kept_jobs(s);
    if (std::find(kept.begin(), kept.end(), 1) == kept.end()) {
        placed = decide_and_place(s);
    } else {  // the policy decides the other jobs on the GPUs the kept ones leave
        ClusterState rest = without_kept(s, kept);
        placed = decide_and_place(rest);
        merge_kept(s, kept, std::move(rest), r.decision, placed);
    }
    put_back(s.jobs, order);
    put_back(placed, order);
    put_back(r.decision.type, order);
    put_back(r.decision.gpus, order);
    put_back(r.decision.shared, order);
    put_back(r.decision.explain, order);
    for (size_t k = 0; k < s.jobs.size(); ++k) {
        Job& j = s.jobs[k];
        if (!j.placement.running() && !placed[k].running()) continue;
        const ActionKind kind = action_for(s, j.placement, placed[k]);
        r.actions.push_back({j.id, kind, placed[k]});
        if (kind == ActionKind::migrate) ++j.book.migrations;
        if (placed[k].running() && j.book.first_start_s < 0) j.book.first_start_s = s.time_s;
        // Tiresias' wait counts from a start (the first, or the next after a promotion): recorded as the
        // job starts, so that a retry of this round at the same time adds nothing.
        if (o.policy == PolicyKind::tiresias && placed[k].running() && !j.placement.running() &&
            j.book.tiresias_since_s < 0)
            j.book.tiresias_since_s = s.time_s;
        j.placement = placed[k];
    }
    s.last_decision_s = s.time_s;
    s.active_set = active_set_digest(s.jobs);
    ++s.round;
    r.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

std::string actions_csv(const ClusterState& s, const std::vector<Action>& actions) {
    io::CsvWriter out({"job_id", "action", "gpu", "nodes"});
    for (const auto& a : actions) {
        std::string nodes, gpu;
        if (a.placement.running()) {
            gpu = s.types[static_cast<size_t>(a.placement.type)].name;
            for (const auto& sh : a.placement.shares)  // a sharer holds half of one GPU
                nodes += (nodes.empty() ? "" : ";") + s.nodes[static_cast<size_t>(sh.node)].name + ":" +
                         (a.placement.shared ? std::string("0.5") : std::to_string(sh.gpus));
        }
        out.add_row({a.job_id, action_name(a.kind), gpu, nodes});
    }
    return out.text();
}

}  // namespace hetsched::sched
