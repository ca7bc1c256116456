#pragma once
/// The GPU-mix search (Espresso §III-A/B): the cheapest multiset of pipeline stages, each on dp GPUs
/// of one type, whose placed iteration time meets a time SLO within per-type quotas (Eq. 1-3).
///   espresso     a cost tree per (dp, pp), explored best-first by Eq. 4's upper-bound cost, with
///                boundary, cost and time/capacity pruning (Alg. 1); bounds are admissible, so it
///                returns exhaustive's answer
///   exhaustive   every multiset of every (dp, pp), placed; the optimum for the placer
///   homogeneous  one type, 2^n GPUs (the paper's Sia+ baseline)
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/model/job_spec.hpp>
#include <hetsched/place/methods.hpp>
#include <hetsched/place/problem_builder.hpp>

#include <hetsched/alloc/placement_memo.hpp>

namespace hetsched::alloc {

/// Where a search stands, for a progress display.
struct SearchProgress {
    long trees_done = 0, trees = 0;  ///< (dp, pp) trees explored or cut, of those inside the boundary
    long nodes = 0, plans = 0;       ///< nodes expanded, plans placed
    double incumbent = 0;            ///< the best plan's cost (or time) so far; 0: none yet
    double bound = 0;                ///< no plan of the trees left costs (or takes) less
    double seconds = 0;
};

/// How a long search reports that it is alive: called every few thousand nodes and plans. The library
/// never draws anything itself; a tool passes a function that does.
using ProgressFn = std::function<void(const SearchProgress&)>;

enum class SearchMethod { espresso, exhaustive, homogeneous };
SearchMethod parse_search_method(const std::string& s);  ///< UsageError on an unknown name
std::string search_method_name(SearchMethod m);

/// What is minimised: the cost under the SLO, or (when nothing meets it) the training time.
enum class Objective { cost, time };

/// A GPU type the search may use.
struct Candidate {
    std::string name;           ///< catalog name
    double price_per_hour = 0;  ///< per GPU
    int quota = 0;              ///< GPUs
};

/// The job and what it may use.
struct SearchSpace {
    const model::JobSpec* job = nullptr;
    const catalog::GpuCatalog* catalog = nullptr;
    place::ProblemOptions problem;
    std::vector<Candidate> types;  ///< each GPU type once (search_plans refuses a type named twice)
    long iterations = 0;          ///< z in Eq. 1
    double slo_s = 0;             ///< T_SLO; 0 = none
};

struct SearchOptions {
    SearchMethod method = SearchMethod::espresso;
    place::Method placer = place::Method::cmr;
    Objective objective = Objective::cost;
    size_t top = 1;               ///< plans to keep
    double beta = 0;              ///< the paper's fragmentation coefficient for its layer estimate in
                                  ///< cost pruning; 0 = only the admissible bounds
    long node_limit = 50000000;   ///< tree nodes (espresso) or plans (exhaustive) before stopping with
                                  ///< the best plans so far (stats.complete false)
    double time_limit_s = 0;      ///< seconds before stopping likewise; 0 = none
    long placer_limit = 20000000; ///< branch-and-bound nodes for the hph and optimal placers
    long effort_limit = 0;        ///< nodes expanded plus stages placed (a placement costs about its
                                  ///< stage count) before the search stops with the best plans so far
                                  ///< and stats.complete false; 0 = none. Bounds how long the search
                                  ///< for the fastest plan takes when its bounds are too loose to prune
    ProgressFn progress;          ///< told the nodes and plans visited so far (may be empty)
    /// Placements to reuse and add to, shared by searches of the same space but for the SLO (may be
    /// empty); see PlacementMemo.
    std::shared_ptr<PlacementMemo> memo;
    int threads = 1;              ///< threads placing plans, the search's own included; the plans found
                                  ///< and the statistics are the same for any count (see PlacementPool)
};

/// One complete plan: a multiset of stages, placed.
struct PlanRecord {
    int dp = 0, pp = 0;
    std::vector<int> stages;              ///< per SearchSpace::types: stages of that type
    std::vector<std::string> order;       ///< the placement: GPU type of each stage
    std::vector<long> layers;             ///< and its layers
    double iteration_s = 0, total_s = 0;  ///< T_iter and z·T_iter
    double price_per_hour = 0;            ///< Σ price·n
    double cost = 0;                      ///< z·T_iter·Σ price·n (hours priced per hour)
    double lower_bound_cost = 0;          ///< what any placement of this multiset costs at least

    int gpus() const;
};

/// SearchStats::stopped_by when an hph or optimal placement passed its node limit on some plan.
inline constexpr const char* kPlacerNodeLimit = "placer's node limit";

/// How the search went.
struct SearchStats {
    long trees = 0;                ///< (dp, pp) pairs inside the boundary
    long trees_pruned_bp = 0;      ///< pairs boundary pruning left out (too few stages, batch, quota)
    long trees_pruned = 0;         ///< trees whose root was pruned by cost or time/capacity
    long nodes_expanded = 0;
    long pruned_cost = 0;          ///< partial and complete plans cut by the cost bound
    long pruned_cost_beta = 0;     ///< cut by the paper's β estimate (only when beta > 0)
    long pruned_time = 0;          ///< cut because even the fastest completion misses the SLO
    long pruned_capacity = 0;      ///< cut because even the largest completion cannot hold the model
    long plans_evaluated = 0;      ///< complete plans the placer ran on
    long plans_unplaceable = 0;    ///< of those, the placer found no placement that fits memory
    long plans_too_slow = 0;       ///< of those, placed but missing the SLO
    double lower_bound = 0;        ///< no plan costs (or takes) less with the placer: the best plan's own
                                   ///< value when complete, else the least bound over what was left
    bool complete = true;          ///< true: the best plan is proven best for the placer
    std::string stopped_by;        ///< when not complete: "time limit", "node limit", "effort limit" or
                                   ///< kPlacerNodeLimit
    long effort = 0;               ///< nodes expanded plus stages placed
    double seconds = 0;
};

struct SearchResult {
    std::vector<PlanRecord> plans;  ///< best first (at most `top`); empty: nothing meets the SLO
    SearchStats stats;
    std::optional<PlanRecord> fastest_too_slow;  ///< the fastest placed plan that missed the SLO
};

/// Runs the chosen search. Objective::cost needs slo_s > 0 or no SLO; plans missing the SLO never
/// count. At the node, time or effort limit it stops with the best plans so far and a lower bound
/// from what it left unexplored.
SearchResult search_plans(const SearchSpace& space, const SearchOptions& o);

/// The data-parallel degrees the job allows: powers of two that divide its micro-batch count, up to
/// the GPUs the quotas allow.
std::vector<int> dp_range(const SearchSpace& space);

}  // namespace hetsched::alloc
