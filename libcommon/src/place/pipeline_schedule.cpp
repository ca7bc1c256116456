#include <hetsched/place/pipeline_schedule.hpp>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <utility>

#include <hetsched/cli/error.hpp>
#include <hetsched/place/blocking_schedule.hpp>

namespace hetsched::place {

const char* event_kind_name(EventKind k) {
    switch (k) {
    case EventKind::forward: return "forward";
    case EventKind::backward: return "backward";
    case EventKind::send_activation: return "send_activation";
    case EventKind::send_gradient: return "send_gradient";
    case EventKind::allreduce: return "allreduce";
    case EventKind::embedding_allreduce: return "embedding_allreduce";
    case EventKind::optimizer_step: return "optimizer_step";
    }
    return "?";
}

ScheduleKind parse_schedule_kind(const std::string& s) {
    if (s == "overlapped") return ScheduleKind::overlapped;
    if (s == "blocking") return ScheduleKind::blocking;
    throw UsageError("unknown schedule '" + s + "' (expected overlapped or blocking)");
}

ScheduleKind default_schedule(const model::Training& t) {
    return t.framework == model::Framework::deepspeed ? ScheduleKind::blocking : ScheduleKind::overlapped;
}

const char* schedule_kind_name(ScheduleKind k) { return k == ScheduleKind::blocking ? "blocking" : "overlapped"; }

StageOrder stage_order(int stage, int stages, long m) {
    // 1F1B: w = min(k - 1 - j, m) warm-up forwards, then one forward and one backward at a time, then
    // the last w backwards.
    const long warm = std::min<long>(stages - 1 - stage, m);
    if (warm >= m) return {m, m - 1};  // every forward before the first backward
    return {warm + 1, warm};
}

double busy_and_waits(double forward, double backward, double chain, long micro_batches, const StageOrder& o) {
    const double m = static_cast<double>(micro_batches), first = static_cast<double>(o.forwards_first);
    const double waits = o.forwards_first < micro_batches
                             ? std::max(0.0, chain - (first - 1) * forward) +
                                   std::max(0.0, chain - static_cast<double>(o.backwards_between) * backward)
                             : std::max(0.0, chain - (m - 1) * std::min(forward, backward));
    return m * (forward + backward) + waits;
}

void simulate(ScheduleKind kind, const std::vector<StageCosts>& stages, long micro_batches, Schedule& out,
              std::vector<TimelineEvent>* timeline) {
    if (kind == ScheduleKind::blocking) simulate_blocking(stages, micro_batches, out, timeline);
    else simulate_1f1b(stages, micro_batches, out, timeline);
}

namespace {

/// The q-th operation of a stage with `warm` warm-up forwards: forward (true) or backward, and which
/// micro-batch.
inline bool op_at(long q, long warm, long m, long& mb) {
    if (q < warm) return mb = q, true;
    const long r = q - warm, steady = 2 * (m - warm);
    if (r < steady) return mb = (r % 2 == 0 ? warm + r / 2 : r / 2), r % 2 == 0;
    mb = m - warm + (r - steady);
    return false;
}

struct Op {
    int stage;
    int micro_batch;  // at most model::limits::global_batch
    bool forward;
};

/// The 2mk operations of 1F1B on k stages in an order that puts each after everything it waits for:
/// sweeps down and up the pipeline, each stage running its operations in its own order until one waits
/// for a transfer not yet made. Which operation waits for which depends on k and m alone, never on the
/// costs, so the order is made once per (k, m) and the simulation is one pass over it. The reference
/// holds until the next call.
const std::vector<Op>& operation_order(int k, long m) {
    thread_local std::map<std::pair<int, long>, std::vector<Op>> orders;
    thread_local size_t cached = 0;  // operations held in `orders`
    thread_local std::vector<Op> large;  // an order too large to keep, made at each call
    const auto key = std::make_pair(k, m);
    if (auto it = orders.find(key); it != orders.end()) return it->second;
    const size_t total = static_cast<size_t>(2 * m * k);
    // A search's few pipeline depths stay, up to 4M operations (48 MB); one of more than 1M is not kept.
    constexpr size_t kCachedOps = size_t{1} << 22;
    const bool keep = total <= kCachedOps / 4;
    if (keep && large.capacity() > 0) std::vector<Op>().swap(large);  // no large order held past its use
    std::vector<Op> order;
    std::vector<Op>& out = keep ? order : large;
    out.clear();
    out.reserve(total);
    const size_t um = static_cast<size_t>(m);
    std::vector<char> act_made(static_cast<size_t>(k) * um, 0), grad_made(static_cast<size_t>(k) * um, 0);
    std::vector<long> next(static_cast<size_t>(k), 0);
    auto run_stage = [&](int i) {
        const size_t si = static_cast<size_t>(i);
        const long warm = std::min<long>(k - 1 - i, m);
        bool progressed = false;
        while (next[si] < 2 * m) {
            long mb = 0;
            const bool forward = op_at(next[si], warm, m, mb);
            const size_t cell = si * um + static_cast<size_t>(mb);
            if (forward && i > 0 && !act_made[cell - um]) break;
            if (!forward && i < k - 1 && !grad_made[cell + um]) break;
            (forward ? act_made : grad_made)[cell] = 1;
            out.push_back({i, static_cast<int>(mb), forward});
            ++next[si];
            progressed = true;
        }
        return progressed;
    };
    for (bool down = true; out.size() < total; down = !down) {
        bool progressed = false;
        for (int j = 0; j < k; ++j) progressed |= run_stage(down ? j : k - 1 - j);
        if (!progressed) throw std::logic_error("1F1B schedule made no progress");
    }
    if (!keep) return large;
    if (cached + total > kCachedOps) orders.clear(), cached = 0;
    cached += total;
    return orders.emplace(key, std::move(order)).first->second;
}

}  // namespace

void simulate_1f1b(const std::vector<StageCosts>& stages, long m, Schedule& out, std::vector<TimelineEvent>* timeline) {
    const int k = static_cast<int>(stages.size());
    const size_t um = static_cast<size_t>(m);
    // act_at[i][j]: micro-batch j's activation has reached stage i + 1; grad_at[i][j]: its gradient has
    // reached stage i - 1; fwd_end[j]: the last stage's forward of micro-batch j is done. Each is
    // written before it is read (operation_order). Each link direction carries one transfer at a time,
    // in the order the sender produces them.
    thread_local std::vector<double> act_at, grad_at, fwd_end, free_at, fwd_link, bwd_link;
    const size_t cells = static_cast<size_t>(k) * um;
    act_at.resize(cells);
    grad_at.resize(cells);
    fwd_end.resize(um);
    free_at.assign(static_cast<size_t>(k), 0.0);
    fwd_link.assign(static_cast<size_t>(k), 0.0);
    bwd_link.assign(static_cast<size_t>(k), 0.0);

    for (const Op& op : operation_order(k, m)) {
        const int i = op.stage;
        const size_t si = static_cast<size_t>(i), mb = static_cast<size_t>(op.micro_batch), cell = si * um + mb;
        const bool forward = op.forward;
        const StageCosts& c = stages[si];
        double ready = 0;
        if (forward) ready = i > 0 ? act_at[cell - um] : 0;
        else ready = i == k - 1 ? fwd_end[mb] : grad_at[cell + um];
        const double start = std::max(ready, free_at[si]);
        const double end = start + (forward ? c.forward : c.backward);
        free_at[si] = end;
        double send_start = end, send_end = end;
        if (forward) {
            if (i == k - 1) fwd_end[mb] = end;
            else {
                send_start = std::max(end, fwd_link[si]);
                send_end = fwd_link[si] = act_at[cell] = send_start + c.to_next;
            }
        } else if (i > 0) {
            send_start = std::max(end, bwd_link[si]);
            send_end = bwd_link[si] = grad_at[cell] = send_start + stages[si - 1].to_next;
        }
        if (timeline) {
            const long j = op.micro_batch;
            timeline->push_back({i, j, forward ? EventKind::forward : EventKind::backward, start, end});
            if (forward && i < k - 1) timeline->push_back({i, j, EventKind::send_activation, send_start, send_end});
            if (!forward && i > 0) timeline->push_back({i, j, EventKind::send_gradient, send_start, send_end});
        }
    }

    out.backward_end.assign(free_at.begin(), free_at.end());
    finish_stages(stages, out, timeline);
}

void finish_stages(const std::vector<StageCosts>& stages, Schedule& out, std::vector<TimelineEvent>* timeline) {
    const size_t k = stages.size();
    out.stage_end.assign(k, 0.0);
    out.pipeline_s = 0;
    out.iteration_s = 0;
    // The first and last stage sync the tied embedding once both are ready for it.
    const bool tied = k > 1 && stages.front().tied > 0;
    double tied_start = 0;
    if (tied)
        for (size_t i : {size_t{0}, k - 1})
            tied_start = std::max(tied_start, out.backward_end[i] + (stages[i].tied_before_allreduce ? 0 : stages[i].allreduce));
    for (size_t i = 0; i < k; ++i) {
        const StageCosts& c = stages[i];
        const double end = out.backward_end[i];
        const bool pair = tied && (i == 0 || i == k - 1);
        double allreduce_start = end, step_start = end + c.allreduce;
        if (pair && c.tied_before_allreduce) {
            allreduce_start = tied_start + c.tied;
            step_start = allreduce_start + c.allreduce;
        } else if (pair) {
            step_start = tied_start + c.tied;
        }
        out.stage_end[i] = step_start + c.optimizer;
        out.pipeline_s = std::max(out.pipeline_s, end);
        out.iteration_s = std::max(out.iteration_s, out.stage_end[i]);
        if (!timeline) continue;
        const int stage = static_cast<int>(i);
        if (c.allreduce > 0)
            timeline->push_back({stage, -1, EventKind::allreduce, allreduce_start, allreduce_start + c.allreduce});
        if (pair) timeline->push_back({stage, -1, EventKind::embedding_allreduce, tied_start, tied_start + c.tied});
        if (c.optimizer > 0) timeline->push_back({stage, -1, EventKind::optimizer_step, step_start, out.stage_end[i]});
    }
}

double schedule_lower_bound(const std::vector<StageCosts>& stages, long micro_batches, ScheduleKind kind) {
    const size_t k = stages.size();
    const bool blocking = kind == ScheduleKind::blocking;
    const double m = static_cast<double>(micro_batches);
    const double sync0 = stages.empty() ? 0 : stages.front().tail();
    // after[j]: a micro-batch's way from stage j + 1 to the last stage and back, forward, backward and
    // both transfers of every link beyond j + 1.
    std::vector<double> after(k + 1, 0.0);
    for (size_t j = k; j-- > 1;)
        after[j - 1] = after[j] + stages[j].forward + stages[j].backward + (j + 1 < k ? 2 * stages[j].to_next : 0.0);
    double down = 0, up = 0, bound = 0;  // micro-batch 0's way to stage j, and a gradient's way back from it
    for (size_t j = 0; j < k; ++j) {
        const StageCosts& c = stages[j];
        // Blocking, the stage is also held by each of its links' 2m transfers: after micro-batch 0's
        // arrival (in `down`), 2m − 1 on the link before it and 2m on the one after; the last of them
        // sends the last gradient back, the first step of `up`.
        const double in = j > 0 ? stages[j - 1].to_next : 0.0;
        const double out = j + 1 < k ? c.to_next : 0.0;
        const double held = blocking ? (2 * m - 1) * in + 2 * m * out : 0.0;
        const double busy_end = down + m * (c.forward + c.backward) + held;
        bound = std::max({bound, busy_end + c.tail(), busy_end - (blocking ? in : 0.0) + up + sync0});
        // Its operations and its two waits for a micro-batch's way past it and back (`around`).
        const double around = j + 1 < k ? 2 * c.to_next + after[j] : 0.0;
        bound = std::max(bound, down + busy_and_waits(c.forward, c.backward, around, micro_batches,
                                                      stage_order(static_cast<int>(j), static_cast<int>(k), micro_batches)) +
                                    up + sync0);
        if (j + 1 < k) {
            // The link carries the m activations one at a time; the last still goes to the end and back.
            const double last_arrives = down + c.forward + m * c.to_next;
            bound = std::max(bound, last_arrives + after[j] + c.to_next + c.backward + up + sync0);
        }
        down += c.forward + c.to_next;
        up += c.backward + c.to_next;
    }
    return bound;
}

}  // namespace hetsched::place
