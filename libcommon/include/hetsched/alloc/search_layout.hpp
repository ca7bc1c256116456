#pragma once
/// The (dp, pp) pairs a plan search explores, each with the problems it builds and what the bounds
/// know about every candidate type there, built once before the search.
#include <limits>
#include <memory>
#include <vector>

#include <hetsched/alloc/bounds.hpp>
#include <hetsched/alloc/cost_search.hpp>
#include <hetsched/place/problem_builder.hpp>
#include <hetsched/place/stage_capacity.hpp>

namespace hetsched::alloc {

/// One (dp, pp) pair: the problems it builds and what the bounds know about each candidate type.
struct SearchLayout {
    int dp = 0, pp = 0;
    std::unique_ptr<place::ProblemFactory> factory;  ///< every candidate type built (read-only after)
    CandidateBounds c;             ///< what the bounds know about each candidate type here
    place::RoomByPosition room;    ///< layers each candidate holds at each position
    std::vector<std::vector<long>> roomiest_from;  ///< [t][pos]: the most any allowed candidate t.. holds there
    double root_bound = 0;         ///< cost (or time) no plan of this pair beats
    std::vector<int> seed;         ///< a plan placed before the tree: the cost objective's dive, or the time
                                   ///< objective's fastest types first
    double estimate = std::numeric_limits<double>::infinity();  ///< time objective: that plan's iteration
                                                                ///< time under Whale's cheap split
};

/// Every (dp, pp) pair of `space` inside the boundary (dp from dp_range, pp up to the quotas and the
/// layer count), counting in `stats` the trees and those boundary pruning (BP) leaves out: too few
/// stages for the roomiest types to hold the model, or past the quota or the layer count.
std::vector<SearchLayout> build_search_layouts(const SearchSpace& space, SearchStats& stats);

}  // namespace hetsched::alloc
