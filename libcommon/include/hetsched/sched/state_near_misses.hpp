#pragma once
/// The keys of a cluster state that schedround reads, and warnings for those that pass through unread
/// but look like a slip of one (dwon: for down:, round_length: for round_length_s:).
#include <string>
#include <vector>

#include <hetsched/io/yaml_document.hpp>

namespace hetsched::sched {

/// A warning (file:line:col first) for each key at the top of the state, in gpu_types, nodes or jobs,
/// that schedround does not read but that is a slip of one it does: a node's misspelt down: would
/// leave a dead node in use.
std::vector<std::string> near_miss_keys(const io::YamlDocument& doc);

}  // namespace hetsched::sched
