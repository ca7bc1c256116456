#pragma once
/// An assignment program solved exactly by dynamic programming over the GPUs each type has left: jobs
/// taken one at a time, a state being the GPUs used of every type. Where jobs ask for whole nodes' worth
/// of GPUs against a few types of tens of GPUs, the program is a knapsack whose LP relaxation sits far
/// above its optimum, and branch and bound may take seconds to prove what this takes milliseconds to
/// find; its cost grows with the product of the capacities, so it is taken only where that is small.
#include <optional>

#include <hetsched/sched/assignment_program.hpp>
#include <hetsched/sched/mip.hpp>

namespace hetsched::sched {

/// States times jobs beyond which solve_by_capacity declines: its table of choices holds a byte each
/// (32 MiB). It also declines past 4 x this many steps (states x jobs x (types + 1): about 0.3 s) and
/// past kCapacityDpStates states. It does not look at a clock: these bound it instead.
constexpr long kCapacityDpCells = 32L << 20;
/// The most states solve_by_capacity takes: two costs of 8 bytes each (32 MiB).
constexpr long kCapacityDpStates = 2L << 20;

/// An optimum of `p` (least cost; among equal costs whichever the table reached first), by dynamic
/// programming over the GPUs used of each type (a type's count capped at what its allowed jobs could
/// use). Nothing when capacity_dp_fits says no, or when the program is infeasible.
std::optional<Assignment> solve_by_capacity(const AssignmentProgram& p, long cells = kCapacityDpCells);

/// Whether solve_by_capacity takes `p`: at most `cells` states x jobs, 4 x `cells` steps and
/// kCapacityDpStates states, and at most 100 types (a choice is a byte).
bool capacity_dp_fits(const AssignmentProgram& p, long cells = kCapacityDpCells);

/// `m` read as an assignment program, where it has that form (sia's and iceshare's programs): every
/// column has two entries, first a 1 in a job's row (at most one, or exactly one, of its columns),
/// then its whole GPUs in a type's row (a finite capacity), the same GPUs for all of a job's columns,
/// each on another type, at a finite cost. A maximising program's costs are negated. `col_job` and `col_type` receive each column's job and type.
std::optional<AssignmentProgram> assignment_form(const Mip& m, std::vector<int>& col_job, std::vector<int>& col_type);

/// `m`'s optimum by solve_by_capacity where it is an assignment program that fits, else by
/// `otherwise`: a MipSolve in front of another.
MipResult solve_by_capacity_or(const Mip& m, double time_limit_s, const MipSolve& otherwise);

}  // namespace hetsched::sched
