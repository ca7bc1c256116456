#pragma once
/// How many layers a set of pipeline stages can hold at most, over every order of their GPU types.
#include <vector>

#include <hetsched/place/problem.hpp>

namespace hetsched::place {

/// The most layers stages `pos`..k-1 hold when `left[t]` of them run on type t (the counts sum to
/// k - pos) and the types take the positions in the best order: a maximum-weight assignment of
/// positions to types within the counts, solved exactly.
long most_layers_ahead(const Problem& p, int pos, const std::vector<int>& left);

}  // namespace hetsched::place
