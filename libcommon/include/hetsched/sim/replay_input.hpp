#pragma once
/// From files to the engine's inputs: the cluster (a YAML `nodes:` list as in a cluster state, or the
/// shorthand `V100=16,P100=16,K80=16` with a node size), and the trace's jobs joined with the
/// throughput table: their model (the trace's, or a seeded draw), throughput per cluster type, work
/// and checkpoint.
#include <map>
#include <set>
#include <string>
#include <vector>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/io/text_input.hpp>
#include <hetsched/sim/application_work.hpp>
#include <hetsched/sim/replay.hpp>
#include <hetsched/sim/throughput_table.hpp>
#include <hetsched/sim/trace.hpp>

namespace hetsched::sim {

/// `TYPE=GPUS,...` on nodes of `gpus_per_node` (the last node of a type holds the rest). Type memory
/// from `catalog` when it knows the type (else unknown). UsageError (64) on a malformed shorthand.
ReplayCluster cluster_from_shorthand(const std::string& spec, int gpus_per_node, const catalog::GpuCatalog& catalog);

/// A YAML document with a `nodes:` list ({name, gpu, gpus, down}) and optional `gpu_types:`
/// ({name, memory_gib}), the same keys as a cluster state. DataError (65) at the offending entry.
ReplayCluster cluster_from_yaml(const io::TextInput& in, const catalog::GpuCatalog& catalog);

/// Whether --cluster names a file (it ends in .yaml or .yml, or has a '/') rather than the shorthand.
bool is_cluster_file(const std::string& spec);

struct JobOptions {
    std::string reference_gpu;  ///< the type a trace's duration_s was measured on; empty: the cluster's first
    /// Memory of the reference type where the cluster has no such type (the catalog's); 0: unknown.
    double reference_memory_gib = 0;
    double checkpoint_gib = 1;  ///< for jobs whose model is not one of memest's presets
    unsigned long seed = 1;     ///< the model draw for jobs without one
    bool skip_unknown_models = false;  ///< leave out (and count) jobs whose model the table lacks
    std::map<std::string, ApplicationWork> applications = sia_applications();  ///< work of duration-less jobs
};

/// What build_jobs did not take as given: jobs left out, by reason, and jobs whose throughput a fit
/// predicts past the sizes it saw.
struct JobCounts {
    long too_big = 0;        ///< left out: more GPUs than any type that can run them has up
    long no_type = 0;        ///< left out: no type of the cluster has a throughput for their model
    long unknown_model = 0;  ///< left out: model not in the throughput table (with skip_unknown_models)
    long too_much_memory = 0;  ///< left out: more memory_gib than any type with their GPUs and a throughput holds
    long extrapolated = 0;   ///< kept: asking for more GPUs than some type's fit saw
    long memory_unknown = 0;   ///< kept: no memory_gib, so every type is taken to hold them
    long memory_taken_to_fit = 0;  ///< kept: a memory_gib checked against no type (types of unknown memory)
    std::set<std::string> memory_unknown_types;  ///< types that run such jobs without a memory_gib known
    long skipped() const { return too_big + no_type + unknown_model + too_much_memory; }
};

/// A sentence for each application of `named` (an --app-work file's) that no job of the trace runs:
/// likely a misspelt or differently cased name, whose work was then never used.
std::vector<std::string> unrun_applications(const std::set<std::string>& named, const std::vector<TraceJob>& trace);

/// The engine's jobs. A Sia/Pollux job (one with a batch size) is elastic when the throughputs are
/// fits: its scales are ThroughputTable::sizes on the cluster's types. A job without a model gets one of the table's models by a seeded hash of its id;
/// its work is its steps, or duration_s × its throughput on the reference type (on its fastest type
/// that holds its memory_gib when it cannot run on the reference: no throughput there, or more memory
/// than the reference type holds when the cluster has that type), or for a Sia/Pollux job (no duration) its application's
/// samples. A job's memory_gib (per GPU; 0: unknown) goes with it, for the policies' memory checks
/// (ClusterState::can_run: a type of known memory holds it when the job fits). Jobs no cluster type can
/// hold (more GPUs than any type with a throughput for it has, or more memory than any such type with
/// enough GPUs) are left out and counted. DataError (65) naming the job for a model missing from the table (unless
/// skip_unknown_models) or an application of unknown work; UsageError (64) for a reference or
/// cluster type the table lacks.
std::vector<ReplayJob> build_jobs(const std::vector<TraceJob>& trace, const ThroughputTable& table,
                                  const ReplayCluster& cluster, const JobOptions& o, JobCounts& counts,
                                  const std::string& trace_name = "");

}  // namespace hetsched::sim
