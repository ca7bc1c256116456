#pragma once
/// The cluster-state file (`kind: cluster-state`, hetsched-formats(5)): read into a ClusterState with
/// every field checked at its position, and written back with the keys the round owns (placements,
/// bookkeeping, the clock's round counter, `solve:`) updated and every other key passed through.
#include <limits>
#include <string>
#include <vector>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/fit/fitter.hpp>
#include <hetsched/io/yaml_document.hpp>
#include <hetsched/sched/cluster_state.hpp>
#include <hetsched/sched/round.hpp>

namespace hetsched::sched {

/// The largest values the state's fields may take (documented in hetsched-formats(5)).
namespace state_limits {
inline constexpr double time_s = 1e12;           ///< clock and submit times (about 31,700 years)
/// τ, a fair finish time: any finite time, as a job of 1e18 work at 1e-12 a second may finish then.
inline constexpr double tau_s = std::numeric_limits<double>::max();
inline constexpr double round_length_s = 1e7;
inline constexpr double work = 1e18;
inline constexpr double throughput = 1e15;       ///< work units per second
inline constexpr double checkpoint_gib = 1e6;
inline constexpr long gpus = 1L << 20;           ///< a job's GPUs
inline constexpr long rounds = 1000000000000L;
inline constexpr double rho = 1e15;               ///< FFT's rho grows no further (fft_policy caps it)
}  // namespace state_limits

/// A state as read: the typed state and the YAML it came from, whose other keys are written back.
struct StateDocument {
    io::YamlDocument yaml;
    ClusterState state;
    /// A job key schedround does not read but close to one it does (a misspelt `scale:` would leave the
    /// job rigid): one sentence each, with its position. Other keys pass through unremarked.
    std::vector<std::string> warnings;
};

/// Fitted throughput models for the state's elastic jobs (a job with `app:`), and the node size their
/// predictions assume (0: each fit's densest profiled node).
struct StateModels {
    std::vector<fit::GroupFit> fits;
    int gpus_per_node = 0;
};

/// Parses and checks a state. Types listed under `gpu_types` take their memory from there; without
/// that list, the node types and their memory come from `catalog`. A job with `app:` (and optional
/// min_gpus, max_gpus, batch_size) takes its scales, and its throughput unless it gives one, from
/// `models` (fitted_scales). DataError (65) at the offending field: unknown types, duplicate ids,
/// impossible numbers, a job no type can ever run, placements on missing nodes or beyond a node's
/// GPUs, a newer version, an app without models or missing from them, a range that excludes num_gpus.
StateDocument read_state(const io::TextInput& in, const catalog::GpuCatalog& catalog, const StateModels* models = nullptr);

/// Checks the state's bookkeeping against the options the round runs with: for tiresias, a job's queue
/// beyond the queues --tiresias-queues-s makes; for allox, a job of more than one GPU; DataError (65)
/// at the field.
void check_round_options(const StateDocument& d, const RoundOptions& o);

/// The next state's text: `doc`'s YAML with the round's keys set from `r` (and, with `explain`, each
/// job's cost terms under `solve:`); `wall_time_s` goes into `solve:` as measured, unless `timings` is
/// false (two runs on one state then give the same bytes).
std::string write_state(StateDocument doc, const RoundResult& r, bool explain, bool timings = true);

}  // namespace hetsched::sched
