#pragma once
/// The plan search's way to the placer: each complete plan is placed (through the memo when the
/// search has one) and its result taken in a fixed number of plans later. The lag is the same for any
/// thread count, so the search decides what to place, prune and keep in the same order whatever it
/// is; with more threads, the plans in flight are placed at once on a PlacementPool.
#include <chrono>
#include <deque>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include <hetsched/alloc/cost_search.hpp>
#include <hetsched/alloc/placement_pool.hpp>
#include <hetsched/alloc/search_layout.hpp>

namespace hetsched::alloc {

class PlanPipeline {
public:
    /// A complete plan handed to the placer, with the bound the search judged it by.
    struct Plan {
        SearchLayout* layout = nullptr;
        std::vector<int> counts;  ///< stages of each candidate type
        double bound = 0;
    };
    /// Plans in flight at most: a plan's result is taken in this many plans after it.
    static constexpr size_t kInFlight = 8;

    /// `names`: the candidate types as the layouts' factories know them. The options give the placer,
    /// its node limit, the memo, the thread count (threads − 1 workers) and the time limit, counted
    /// from `started` (the search's start).
    PlanPipeline(std::vector<std::string> names, const SearchOptions& o, std::chrono::steady_clock::time_point started);
    ~PlanPipeline();
    PlanPipeline(const PlanPipeline&) = delete;
    PlanPipeline& operator=(const PlanPipeline&) = delete;

    /// Hands `plan` to the placer; a worker may begin it at once.
    void submit(Plan plan);
    /// Plans handed in and not yet taken.
    size_t in_flight() const { return pending_.size(); }
    /// Whether more than kInFlight plans are in flight: the oldest is due.
    bool due() const { return pending_.size() > kInFlight; }
    /// Takes in the oldest plan into `plan` and returns its placement (empty when the placer found
    /// none), placed on this thread when no worker did. Only while in_flight() > 0.
    place::PlaceResult take_oldest(Plan& plan);

private:
    /// The placer's answer for a complete plan. Safe on several threads at once: the layouts'
    /// factories have built every type before the search begins.
    place::PlaceResult place(SearchLayout& l, const std::vector<int>& counts) const;
    place::PlaceResult place_fresh(SearchLayout& l, const std::vector<int>& counts) const;

    struct Pending {
        Plan plan;
        long key;
    };
    std::vector<std::string> names_;
    place::Method placer_;
    long placer_limit_;
    /// The search's time limit as a moment: an exact placer still running then stops with its best so far.
    std::optional<std::chrono::steady_clock::time_point> deadline_;
    std::shared_ptr<PlacementMemo> memo_;
    std::deque<Pending> pending_;  ///< plans in flight, oldest first
    long next_key_ = 0;
    std::unique_ptr<PlacementPool> pool_;  ///< other threads placing the plans in flight (threads > 1)
};

}  // namespace hetsched::alloc
