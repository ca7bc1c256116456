#pragma once
/// An assignment program solved exactly by dynamic programming over the GPUs each type has left: jobs
/// taken one at a time, a state being the GPUs used of every type. Where jobs ask for whole nodes' worth
/// of GPUs against a few types of tens of GPUs, the program is a knapsack whose LP relaxation sits far
/// above its optimum, and branch and bound may take seconds to prove what this takes milliseconds to
/// find; its cost grows with the product of the capacities, so it is taken only where that is small.
#include <optional>

#include <hetsched/sched/assignment_program.hpp>

namespace hetsched::sched {

/// States times jobs beyond which solve_by_capacity declines: its table of choices holds a byte each
/// (32 MiB), and filling it takes about 10 ns each with three types (about 0.3 s at the limit). It
/// does not look at a clock: this bounds it instead.
constexpr long kCapacityDpCells = 32L << 20;

/// An optimum of `p` (least cost; among equal costs whichever the table reached first), by dynamic programming over the GPUs used of each type (a type's count capped
/// at what its allowed jobs could use). Nothing when the states times the jobs exceed `cells`, or when
/// the program is infeasible.
std::optional<Assignment> solve_by_capacity(const AssignmentProgram& p, long cells = kCapacityDpCells);

/// Whether solve_by_capacity takes `p` within `cells`.
bool capacity_dp_fits(const AssignmentProgram& p, long cells = kCapacityDpCells);

}  // namespace hetsched::sched
