#include <hetsched/sched/state_document.hpp>

#include <algorithm>
#include <cstdio>

#include <hetsched/io/number_format.hpp>
#include <hetsched/io/yaml_document.hpp>

namespace hetsched::sched {
namespace {

/// A reported figure (the solve section), in the project's number format.
YAML::Node num(double v) { return io::yaml_number_node(v); }

/// A value the next round reads back (the clock and a job's books), exactly: rounded, a decision time
/// could pass the next state's time_s, and FFT's tau or Gavel's shares drift from round to round.
YAML::Node exact(double v) { return YAML::Node(io::format_exact(v)); }

/// `{TYPE: value}` for the types whose value is non-zero, in the types' order.
YAML::Node per_type(const ClusterState& s, const std::vector<double>& v) {
    YAML::Node m(YAML::NodeType::Map);
    m.SetStyle(YAML::EmitterStyle::Flow);
    for (size_t i = 0; i < v.size(); ++i)
        if (v[i] != 0) m[io::yaml_text_node(s.types[i].name)] = exact(v[i]);
    return m;
}

YAML::Node placement_node(const ClusterState& s, const Placement& p) {
    YAML::Node out(YAML::NodeType::Map), nodes(YAML::NodeType::Map);
    out.SetStyle(YAML::EmitterStyle::Flow);
    nodes.SetStyle(YAML::EmitterStyle::Flow);
    // A name such as 123, true or 2002-01-01 is quoted, so that it reads back as the name it is.
    out["gpu"] = io::yaml_text_node(s.types[static_cast<size_t>(p.type)].name);
    for (const auto& sh : p.shares) nodes[io::yaml_text_node(s.nodes[static_cast<size_t>(sh.node)].name)] = sh.gpus;
    out["nodes"] = nodes;
    if (p.shared) out["shared"] = true;
    return out;
}

/// Sets or removes `key` of a job's map: written when `keep`, removed otherwise.
void set_or_drop(YAML::Node job, const char* key, bool keep, const YAML::Node& value) {
    if (keep) job[key] = value;
    else if (job[key]) job.remove(key);
}

void write_job(YAML::Node node, const ClusterState& s, const Job& j) {
    const JobBook& b = j.book;
    if (j.elastic()) {  // its size is the round's to change (and its throughput, unless its app's models give it)
        if (node["app"]) {  // the range it was read with, which a default from num_gpus would lose
            if (!node["min_gpus"]) node["min_gpus"] = j.scales.front().gpus;
            if (!node["max_gpus"]) node["max_gpus"] = j.scales.back().gpus;
        } else {
            node["throughput"] = per_type(s, j.throughput);
        }
        node["num_gpus"] = j.num_gpus;
    }
    set_or_drop(node, "placement", j.placement.running(), j.placement.running() ? placement_node(s, j.placement) : YAML::Node());
    node["rho"] = exact(b.rho);
    set_or_drop(node, "tau_s", b.tau_s >= 0, exact(b.tau_s));
    node["attained_gpu_s"] = exact(b.attained_gpu_s);
    node["time_per_type_s"] = per_type(s, b.time_per_type_s);
    set_or_drop(node, "first_start_s", b.first_start_s >= 0, exact(b.first_start_s));
    node["migrations"] = b.migrations;
    // Gavel's books as they stand: a share that lapsed (a job kept out of the allocation) is dropped
    // with the rest of the map when nothing is left.
    YAML::Node g(YAML::NodeType::Map);
    if (!b.gavel_share.empty()) g["share"] = per_type(s, b.gavel_share);
    if (!b.gavel_base_s.empty()) g["base_s"] = per_type(s, b.gavel_base_s);
    if (!b.gavel_deficit_s.empty()) g["deficit_s"] = per_type(s, b.gavel_deficit_s);
    set_or_drop(node, "gavel", g.size() > 0, g);
    if (b.tiresias_entered_s >= 0) {
        YAML::Node t(YAML::NodeType::Map);
        t.SetStyle(YAML::EmitterStyle::Flow);
        t["queue"] = b.tiresias_queue;
        t["entered_s"] = exact(b.tiresias_entered_s);
        t["base_gpu_s"] = exact(b.tiresias_base_gpu_s);
        if (b.tiresias_since_s >= 0) t["since_s"] = exact(b.tiresias_since_s);
        node["tiresias"] = t;
    }
}

std::string hex(std::uint64_t v) {
    char out[17];
    std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(v));
    return out;
}

YAML::Node solve_node(const RoundResult& r, bool explain, bool timings, const ClusterState& s) {
    const SolveStats& st = r.decision.stats;
    YAML::Node out(YAML::NodeType::Map);
    out["policy"] = r.decision.policy;
    out["method"] = st.method;
    out["objective"] = num(st.objective);
    out["bound"] = num(st.bound);
    out["gap"] = num(st.gap());
    if (!st.proven) out["proven"] = false;  // past the time limit: the best schedule found, or the last round's
    out["min_busy_gpus"] = r.decision.min_busy;
    // The jobs the round had to schedule: a finished one (done reaching work) is in the state, not the round.
    out["jobs"] = static_cast<long>(std::count_if(s.jobs.begin(), s.jobs.end(), unfinished));
    out["variables"] = st.variables;
    if (st.method == "lp") out["reused"] = st.reused;  // gavel: the allocation of an earlier round stands
    if (st.method == "structured") {  // what the proof rests on
        out["lagrangian_bound"] = num(st.lagrangian_bound);
        out["bound_iterations"] = st.bound_iterations;
        out["reduced_variables"] = st.reduced_variables;
    }
    if (timings) out["wall_time_s"] = num(r.wall_time_s);
    if (!explain) return out;
    YAML::Node jobs(YAML::NodeType::Sequence);
    for (size_t k = 0; k < s.jobs.size() && k < r.decision.explain.size(); ++k) {
        YAML::Node e(YAML::NodeType::Map);
        e["id"] = s.jobs[k].id;
        const int chosen = r.decision.type[k];
        e["gpu"] = chosen >= 0 ? s.types[static_cast<size_t>(chosen)].name : "none";
        YAML::Node costs(YAML::NodeType::Map);
        for (const CostTerms& t : r.decision.explain[k]) {
            YAML::Node c(YAML::NodeType::Map);
            c.SetStyle(YAML::EmitterStyle::Flow);
            c["age"] = num(t.age);
            c["demand"] = num(t.demand);
            c["change"] = num(t.change);
            c["fairness"] = num(t.fairness);
            c["cost"] = num(t.total());
            costs[s.types[static_cast<size_t>(t.type)].name] = c;
        }
        e["costs"] = costs;
        jobs.push_back(e);
    }
    out["explain"] = jobs;
    return out;
}

}  // namespace

std::string write_state(StateDocument doc, const RoundResult& r, bool explain, bool timings) {
    const ClusterState& s = r.state;
    YAML::Node root = doc.yaml.root;
    root["round"] = s.round;
    root["last_decision_s"] = exact(s.last_decision_s);
    root["active_set"] = hex(s.active_set);
    if (s.gavel_reset_s >= 0) {
        YAML::Node g(YAML::NodeType::Map);
        g.SetStyle(YAML::EmitterStyle::Flow);
        g["reset_s"] = exact(s.gavel_reset_s);
        g["active_set"] = hex(s.gavel_active_set);
        root["gavel"] = g;
    }
    YAML::Node jobs = root["jobs"];
    for (size_t k = 0; k < s.jobs.size(); ++k) write_job(jobs[k], s, s.jobs[k]);
    root["solve"] = solve_node(r, explain, timings, s);
    return io::emit_yaml(root);
}

}  // namespace hetsched::sched
