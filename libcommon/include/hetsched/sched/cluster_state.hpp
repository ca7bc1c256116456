#pragma once
/// The cluster as a scheduling round sees it (DESIGN §4, `kind: cluster-state`): the clock, GPU types,
/// nodes, and the active jobs with their demand, progress, throughput per type, current placement and
/// each policy's bookkeeping. Typed and free of YAML, so that replay can run rounds in memory; the
/// state reader and writer convert it to and from the file.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <hetsched/cli/error.hpp>

namespace hetsched::sched {

/// One GPU type of the cluster.
struct GpuTypeInfo {
    std::string name;
    double memory_gib = 0;  ///< per GPU; 0 = unknown (no memory check against it)
};

/// One host: GPUs of one type.
struct Node {
    std::string name;
    int type = 0;       ///< index into ClusterState::types
    int gpus = 0;
    bool down = false;  ///< holds nothing while down
};

/// GPUs a job holds on one node.
struct NodeShare {
    int node = 0;  ///< index into ClusterState::nodes
    int gpus = 0;
    bool operator==(const NodeShare& o) const { return node == o.node && gpus == o.gpus; }
};

/// Where a job runs: one GPU type, GPUs on one or more of its nodes; type -1 = not running. A shared
/// placement is one GPU that the job shares with at most one other shared job on the same node (two
/// such jobs take one GPU), running at fit::kSharedSlowdown of its throughput.
struct Placement {
    int type = -1;
    std::vector<NodeShare> shares;  ///< sorted by node index
    bool shared = false;

    bool running() const { return type >= 0; }
    int gpus() const {
        int n = 0;
        for (const auto& sh : shares) n += sh.gpus;
        return n;
    }
    bool operator==(const Placement& o) const { return type == o.type && shares == o.shares && shared == o.shared; }
    /// GPUs it counts for: half a GPU when shared.
    double held_gpus() const { return shared ? 0.5 : gpus(); }
    bool operator!=(const Placement& o) const { return !(*this == o); }
};

/// How a job communicates, which decides how much it gains from sitting on few hosts (FFT §4.3).
enum class Parallelism {
    data,      ///< data or tensor parallel: all-reduce traffic, packed into the fewest hosts first
    pipeline,  ///< pipeline only: point-to-point traffic, placed after the others
};

/// What the policies remember about a job between rounds (written by the round, read back next round).
struct JobBook {
    double rho = 0;             ///< FFT's fairness compensation ρ_j (rounds of the job's fastest type)
    double tau_s = -1;          ///< FFT's fair-share finish time τ_j, seconds; < 0 = not yet estimated
    double attained_gpu_s = 0;  ///< GPUs × seconds run so far
    std::vector<double> time_per_type_s;  ///< seconds run on each type (indexed like the types)
    double first_start_s = -1;  ///< when it first ran; < 0 = never
    long migrations = 0;        ///< moves to another type or other hosts decided so far
    /// Gavel: the job's time fractions X per type from the last allocation (empty: not in it), the
    /// time_per_type_s at that allocation's reset, and the deficit per type carried across resets.
    std::vector<double> gavel_share;
    std::vector<double> gavel_base_s;
    std::vector<double> gavel_deficit_s;
    /// Tiresias: the queue it sits in and when it entered it (< 0: not yet queued), its attained
    /// service at its last promotion (service counts from there), and when its current stay began
    /// (first start or last promotion; < 0: never ran).
    int tiresias_queue = 0;
    double tiresias_entered_s = -1;
    double tiresias_base_gpu_s = 0;
    double tiresias_since_s = -1;
};

/// One size an elastic job may run at: its GPU count and work units per second on each type there.
struct Scale {
    int gpus = 1;
    std::vector<double> throughput;  ///< indexed like the types; 0 = not on that type at this size
};

/// One active job.
struct Job {
    std::string id;
    double submit_time_s = 0;
    int num_gpus = 1;
    double work = 0;  ///< total work units (epochs, steps, samples: the unit is the job's own)
    double done = 0;  ///< work units completed
    /// Work units per second on each type (indexed like the types); 0 = the type cannot run it.
    std::vector<double> throughput;
    double memory_gib = 0;      ///< per GPU, as the state gives it; 0 = unknown (every type with a throughput may run it)
    /// Per GPU on each type (indexed like the types) for a job described by its model, estimated on
    /// each type's GPU; empty: memory_gib on every type.
    std::vector<double> memory_gib_by_type;
    double util_pct = 0;        ///< GPU utilisation alone on one GPU, %; 0 = unknown (it never shares)
    /// The state says it may not be stopped or moved once it runs (`preemptible: false`): every
    /// policy's round keeps it where it runs (sched/kept_jobs.hpp).
    bool preemptible = true;
    /// Replay's engine sees it still restoring from its last move: sia's program pins it where it runs
    /// (Sia's rule), and the churn re-pack leaves it there.
    bool pinned = false;
    double checkpoint_gib = 0;  ///< state moved on a migration
    double priority_weight = 1; ///< Gavel's priority weight (a larger weight, a larger share)
    Parallelism parallelism = Parallelism::data;
    /// Elastic jobs: the sizes an elastic policy (sia) may give it, ascending; empty = rigid. Every
    /// policy runs the job at num_gpus with `throughput`; an elastic one may resize it, and the round
    /// then sets both from the chosen scale.
    std::vector<Scale> scales;
    Placement placement;
    JobBook book;

    double remaining() const { return work > done ? work - done : 0; }
    double memory_on(int type) const {
        return memory_gib_by_type.empty() ? memory_gib : memory_gib_by_type[static_cast<size_t>(type)];
    }
    bool elastic() const { return !scales.empty(); }
    /// Its most work units a second, on any type at any of its sizes; 0 when nothing can run it.
    double fastest_throughput() const {
        double best = 0;
        for (double x : throughput) best = std::max(best, x);
        for (const auto& sc : scales)
            for (double x : sc.throughput) best = std::max(best, x);
        return best;
    }
};

/// Whether `j` has work left (a state keeps a finished job until a watcher removes it).
inline bool unfinished(const Job& j) { return j.remaining() > 0; }

/// The whole cluster at one instant.
struct ClusterState {
    double time_s = 0;           ///< when this round's decision is made
    long round = 0;              ///< rounds decided before this one
    double round_length_s = 300;
    std::vector<GpuTypeInfo> types;
    std::vector<Node> nodes;
    std::vector<Job> jobs;
    double last_decision_s = -1;  ///< time_s of the previous decision; < 0 = none
    std::uint64_t active_set = 0;  ///< digest of the job ids the previous decision saw (0 = none)
    double gavel_reset_s = -1;          ///< Gavel: when its allocation was last recomputed (< 0: never)
    std::uint64_t gavel_active_set = 0; ///< Gavel: the job set that allocation was computed for

    /// GPUs of each type on nodes that are up.
    std::vector<int> capacity() const;
    /// GPUs of each type on all nodes, up or down.
    std::vector<int> installed() const;
    /// Whether job `j` may run on type `t`: a positive throughput, and enough memory when both are known.
    bool can_run(const Job& j, int t) const { return can_run(j, j.throughput, t); }
    /// The same at another of its sizes, whose throughputs are `throughput`.
    bool can_run(const Job& j, const std::vector<double>& throughput, int t) const;
    /// Whether job `j` runs and every node it runs on is up.
    bool hosts_up(const Job& j) const;
    /// Whether jobs arrived or left since the previous decision (always true before the first).
    bool churned() const;
    /// Whether job `j` may share one GPU of type `t` with any other such job (ICEFROG's rule for a pair,
    /// kept for every pair: each at most 50% utilisation, and 1.1 x its memory within half the GPU's).
    bool can_share(const Job& j, int t) const;
};

/// Refuses (DataError at `pos`) a node name that the actions CSV's `nodes` cell (name:gpus joined by
/// ';') could not write unambiguously: empty, or holding ';' or ':'.
void check_node_name(const std::string& name, const SourcePos& pos);

/// A digest of the ids of `jobs` (order-independent), to tell a round whether jobs arrived or left.
std::uint64_t active_set_digest(const std::vector<Job>& jobs);

/// FNV-1a of a job id, mixed with `seed`: the seeded draws (a job's type, a trace job's model) that
/// must give a job the same answer wherever and whenever it is asked.
std::uint64_t id_hash(const std::string& id, std::uint64_t seed = 0);

/// id_hash through a 64-bit finaliser (splitmix64's), for choosing by the least hash among names:
/// FNV-1a's last multiply spreads a difference in the last character upward only, so names alike but
/// for it (A, B, C) would be ranked by a few low bits and drawn unevenly.
std::uint64_t mixed_hash(const std::string& text, std::uint64_t seed = 0);

}  // namespace hetsched::sched
