#pragma once
/// The policy flags schedround and replay share, so that a policy's parameters are spelled, ranged
/// and documented the same in both (replay passes them through to the round unchanged).
#include <string>

#include <CLI/CLI.hpp>

#include <hetsched/sched/policy.hpp>

namespace hetsched::cli {

/// Registers the migration costs, solver limits, seed and each policy's parameters into `o` (group
/// `group`). The policy name itself is the tool's (one for schedround, a list for replay).
void add_policy_flags(CLI::App& app, sched::RoundOptions& o, const char* group);

/// Checks what a validator cannot see alone (tiresias' limits increasing); UsageError otherwise.
void check_policy_flags(const CLI::App& app, const sched::RoundOptions& o);

}  // namespace hetsched::cli
