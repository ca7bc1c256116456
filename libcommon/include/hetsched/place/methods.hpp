#pragma once
/// The stage placers: which GPU type runs each pipeline stage, and how many layers each stage holds.
///   cmr      Espresso Alg. 2: stage 0's layer count enumerated, each next stage on the type of least
///            compute-memory ratio (Eq. 10), layers balanced by compute, then AdjustToCoverAllLayers.
///   whale    stages by decreasing GPU memory, layers in proportion to compute, capped by memory.
///   hph      stages by increasing compute, the layer split that minimises the estimate (exact).
///   optimal  every distinct stage order and layer split, by branch and bound on the estimate.
///   given    the allocation's own stage order and a split the user gives: only evaluated.
/// All of them judge a placement by the shared estimator.
#include <functional>
#include <string>
#include <vector>

#include <hetsched/cli/error.hpp>
#include <hetsched/place/problem.hpp>

namespace hetsched::place {

enum class Method { cmr, whale, hph, optimal, given };
Method parse_method(const std::string& s);  ///< UsageError on an unknown name
std::string method_name(Method m);

struct PlaceOptions {
    bool keep_order = false;        ///< place stages in `order` instead of choosing an order
    std::vector<size_t> order;      ///< the allocation's own stage order (type indices)
    long search_limit = 20000000;   ///< branch-and-bound nodes hph and optimal may visit (then: stopped)
    /// Asked now and then by hph and optimal: true stops them with the best placement so far (at
    /// least CMR's), marked stopped. Empty: they run to the end or the node limit.
    std::function<bool()> stop;
    std::vector<long> layers;       ///< given: each stage's layers, in `order`
    SourcePos layers_where;         ///< where `layers` came from, for errors about the split; none: --layers-per-stage
};

struct PlaceResult {
    Placement placement;            ///< empty: nothing feasible
    double iteration_s = 0;
    long evaluated = 0;             ///< placements run through the estimator
    long nodes = 0;                 ///< branch-and-bound nodes visited (hph, optimal)
    bool stopped = false;           ///< hph or optimal stopped with its best so far: not proven best
    bool node_limit = false;        ///< stopped at search_limit (else by PlaceOptions::stop)
};

/// The chosen method's placement; Infeasible (exit 1) with what is missing where when none fits,
/// UsageError when an exact search passes `search_limit` before it has any placement (it starts from
/// CMR's split of its order, so only when that finds none); past it with one, the best so far, marked
/// stopped.
PlaceResult place_stages(const Problem& p, Method m, const PlaceOptions& o);

/// Espresso Alg. 2; `order` fixes the stage types (nullptr: chosen by CMR).
PlaceResult place_cmr(const Problem& p, const std::vector<size_t>* order);
/// Alg. 2's candidate for `stage0_layers` layers on stage 0 (lines 6-14); empty when it does not fit.
Placement cmr_candidate(const Problem& p, long stage0_layers, const std::vector<size_t>* order);
/// Whale: layers in proportion to each stage's speed, capped by memory, in `order`.
PlaceResult place_whale(const Problem& p, const std::vector<size_t>& order);
/// Branch and bound over stage types (all distinct orders, or `order` when given) and layer splits,
/// starting from `incumbent` (may be empty). Exact for the estimator.
PlaceResult place_exact(const Problem& p, const std::vector<size_t>* order, const PlaceResult& incumbent, long limit,
                        const std::function<bool()>& stop = {});

/// The placement of `layers` on the stages of `order`, evaluated. UsageError without a split, DataError
/// for one that does not match the stages or the model, Infeasible naming a stage its memory cannot hold.
PlaceResult place_given(const Problem& p, const std::vector<size_t>& order, const std::vector<long>& layers,
                        const SourcePos& where = {});

/// Stage orders the baselines use: decreasing memory (Whale), increasing compute (HPH).
std::vector<size_t> order_by_memory(const Problem& p);
std::vector<size_t> order_by_compute(const Problem& p);

/// The most layers the stages hold over every order of them (-1 when too many stage mixes to search).
long most_layers(const Problem& p);

/// Why nothing fits: how many layers the allocation holds at most (over every order, or in `order`)
/// and the memory that is missing; where they could hold the model, a hint to search every order
/// unless the search that failed was `exhaustive`.
std::string shortfall(const Problem& p, const std::vector<size_t>* order, bool exhaustive = false);

}  // namespace hetsched::place
