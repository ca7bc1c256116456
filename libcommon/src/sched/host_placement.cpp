#include <hetsched/sched/host_placement.hpp>

#include <algorithm>
#include <numeric>
#include <tuple>
#include <unordered_map>

#include <hetsched/alloc/best_fit.hpp>
#include <hetsched/cli/error.hpp>

namespace hetsched::sched {
namespace {

/// One type's up nodes as best-fit sees them, and the way back from names to node indices.
struct TypeNodes {
    std::vector<alloc::ClusterNode> nodes;
    std::vector<int> index;  ///< nodes[k] is ClusterState::nodes[index[k]]
    std::unordered_map<int, size_t> slot;  ///< node index → k
};

std::vector<TypeNodes> nodes_by_type(const ClusterState& s) {
    std::vector<TypeNodes> by(s.types.size());
    for (size_t n = 0; n < s.nodes.size(); ++n) {
        const Node& node = s.nodes[n];
        if (node.down) continue;
        TypeNodes& t = by[static_cast<size_t>(node.type)];
        t.slot[static_cast<int>(n)] = t.nodes.size();
        t.nodes.push_back({node.name, s.types[static_cast<size_t>(node.type)].name, 0, node.gpus, node.gpus});
        t.index.push_back(static_cast<int>(n));
    }
    return by;
}

/// Adds `sign` × the placement's GPUs back to (or takes them from) the free counts.
void adjust(TypeNodes& t, const Placement& p, int sign) {
    for (const auto& sh : p.shares) t.nodes[t.slot.at(sh.node)].free += sign * sh.gpus;
}

/// Whether every host of `p` is up and of its type.
bool hosts_up(const TypeNodes& t, const Placement& p) {
    return std::all_of(p.shares.begin(), p.shares.end(), [&](const NodeShare& sh) { return t.slot.count(sh.node); });
}

/// A best-fit placement of `gpus` GPUs in `t`, taken from its free counts; empty when they are too few.
Placement fit(TypeNodes& t, int type, int gpus) {
    std::vector<alloc::NodeShare> shares = alloc::best_fit(t.nodes, {gpus, 0, ""}, 1.0);
    Placement p;
    if (shares.empty()) return p;
    p.type = type;
    for (const auto& sh : shares) {
        const auto k = std::find_if(t.nodes.begin(), t.nodes.end(), [&](const auto& n) { return n.name == sh.node; });
        p.shares.push_back({t.index[static_cast<size_t>(k - t.nodes.begin())], sh.gpus});
    }
    std::sort(p.shares.begin(), p.shares.end(), [](const NodeShare& a, const NodeShare& b) { return a.node < b.node; });
    return p;
}

}  // namespace

std::vector<Placement> place_on_hosts(const ClusterState& s, const std::vector<int>& type, const RoundOptions& o,
                                      const std::vector<char>& shared) {
    std::vector<TypeNodes> by = nodes_by_type(s);
    std::vector<Placement> out(s.jobs.size());
    std::vector<size_t> fresh, kept, sharers;
    std::vector<int> sharing(s.nodes.size(), 0);  // sharers on each node: two to a GPU
    auto share = [&](size_t k, int node) {
        out[k] = {type[k], {{node, 1}}, true};
        if (sharing[static_cast<size_t>(node)]++ % 2 == 0) adjust(by[static_cast<size_t>(type[k])], out[k], -1);
    };
    for (size_t k = 0; k < s.jobs.size(); ++k) {
        const Placement& was = s.jobs[k].placement;
        if (type[k] < 0) continue;
        if (!shared.empty() && shared[k]) {
            if (was.shared && was.type == type[k] && hosts_up(by[static_cast<size_t>(type[k])], was)) share(k, was.shares[0].node);
            else sharers.push_back(k);
            continue;
        }
        if (was.running() && !was.shared && was.type == type[k] && hosts_up(by[static_cast<size_t>(type[k])], was) &&
            was.gpus() == s.jobs[k].num_gpus) {  // an elastic job resized this round is placed afresh
            out[k] = was;
            adjust(by[static_cast<size_t>(type[k])], was, -1);
            kept.push_back(k);
        } else {
            fresh.push_back(k);
        }
    }

    if (s.churned()) {  // re-pack spread data-parallel jobs, the cheapest to move first
        std::vector<size_t> spread;
        for (size_t k : kept)
            if (out[k].shares.size() > 1 && s.jobs[k].parallelism == Parallelism::data && !s.jobs[k].pinned) spread.push_back(k);
        std::sort(spread.begin(), spread.end(), [&](size_t a, size_t b) {
            return std::make_tuple(migration_seconds(s.jobs[a], o), s.jobs[a].id) <
                   std::make_tuple(migration_seconds(s.jobs[b], o), s.jobs[b].id);
        });
        for (size_t k : spread) {
            TypeNodes& t = by[static_cast<size_t>(out[k].type)];
            adjust(t, out[k], +1);
            Placement moved = fit(t, out[k].type, s.jobs[k].num_gpus);
            if (moved.shares.size() < out[k].shares.size()) {
                out[k] = std::move(moved);
            } else {
                if (moved.running()) adjust(t, moved, +1);
                adjust(t, out[k], -1);
            }
        }
    }

    // Kept sharers left alone on different nodes of a type pair up (the later one moves), so that a type
    // holds at most one lone sharer: then its sharers take no more whole GPUs than the program counted
    // (s sharers and k whole GPUs within an integer capacity c: k + s/2 ≤ c gives k + ⌈s/2⌉ ≤ c).
    for (size_t a = 0; a < s.nodes.size(); ++a) {
        if (sharing[a] % 2 == 0) continue;
        for (size_t b = a + 1; b < s.nodes.size(); ++b) {
            if (sharing[b] % 2 == 0 || s.nodes[b].type != s.nodes[a].type) continue;
            size_t mover = s.jobs.size();
            for (size_t k = 0; k < s.jobs.size(); ++k)
                if (out[k].shared && out[k].shares[0].node == static_cast<int>(b)) mover = k;
            TypeNodes& t = by[static_cast<size_t>(s.nodes[b].type)];
            adjust(t, out[mover], +1);  // b's lone sharer leaves its GPU
            --sharing[b];
            out[mover] = {out[mover].type, {{static_cast<int>(a), 1}}, true};
            ++sharing[a];
            break;
        }
    }
    // New sharers join a node's lone sharer first (lowest node first), before the whole-GPU jobs take GPUs.
    std::vector<size_t> alone;
    for (size_t k : sharers) {
        int node = -1;
        for (size_t n = 0; n < s.nodes.size() && node < 0; ++n)
            if (sharing[n] % 2 == 1 && s.nodes[n].type == type[k] && !s.nodes[n].down) node = static_cast<int>(n);
        if (node >= 0) share(k, node);
        else alone.push_back(k);
    }
    std::sort(fresh.begin(), fresh.end(), [&](size_t a, size_t b) {
        const Job &ja = s.jobs[a], &jb = s.jobs[b];
        return std::make_tuple(ja.parallelism != Parallelism::data, -ja.num_gpus, ja.id) <
               std::make_tuple(jb.parallelism != Parallelism::data, -jb.num_gpus, jb.id);
    });
    for (size_t k : fresh) {
        out[k] = fit(by[static_cast<size_t>(type[k])], type[k], s.jobs[k].num_gpus);
        if (!out[k].running())
            throw Error(Exit::internal, "job '" + s.jobs[k].id + "' was given more GPUs of type '" +
                                            s.types[static_cast<size_t>(type[k])].name + "' than are free");
    }
    for (size_t i = 0; i < alone.size(); ++i) {  // the rest pair up on GPUs of their own
        const size_t k = alone[i];
        Placement one = fit(by[static_cast<size_t>(type[k])], type[k], 1);
        if (!one.running())
            throw Error(Exit::internal, "job '" + s.jobs[k].id + "' was given a shared GPU of type '" +
                                            s.types[static_cast<size_t>(type[k])].name + "', and none is free");
        adjust(by[static_cast<size_t>(type[k])], one, +1);
        share(k, one.shares[0].node);
        for (size_t j = i + 1; j < alone.size(); ++j)
            if (type[alone[j]] == type[k]) {
                share(alone[j], one.shares[0].node);
                alone.erase(alone.begin() + static_cast<long>(j));
                break;
            }
    }
    return out;
}

}  // namespace hetsched::sched
