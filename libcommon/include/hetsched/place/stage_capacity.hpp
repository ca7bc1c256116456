#pragma once
/// How many layers a set of pipeline stages can hold at most, over every order of their GPU types.
#include <vector>

#include <hetsched/place/problem.hpp>

namespace hetsched::place {

/// The most layers each type holds at each of the k stage positions (StageType::max_layers), one
/// entry per type; every vector has k entries.
using RoomByPosition = std::vector<const std::vector<long>*>;

/// The most layers stages `pos`..k-1 hold when `left[t]` of them run on type t (the counts sum to
/// k - pos) and the types take the positions in the best order: a maximum-weight assignment of
/// positions to types within the counts, solved exactly. Every stage holds at least one layer: -1 when
/// no order gives each a position with room for one, or the counts hold fewer stages.
long most_layers_ahead(const RoomByPosition& room, int pos, const std::vector<int>& left);

/// The room of a problem's types.
RoomByPosition room_of(const Problem& p);

}  // namespace hetsched::place
