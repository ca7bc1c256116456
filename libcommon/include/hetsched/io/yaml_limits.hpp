#pragma once
/// What a YAML input may be before it is built into nodes: one document, no key twice in a mapping,
/// and bounded in size, depth and in what its aliases expand to, so that a 500-byte alias bomb, a
/// deeply nested list or a duplicated key is refused with its position instead of hanging a tool,
/// exhausting its stack or silently picking a value. io::parse_yaml() enforces them as it reads.
#include <cstddef>

namespace hetsched::io {

/// The bounds parse_yaml() enforces (hetsched-formats(5) documents them).
struct YamlLimits {
    std::size_t max_bytes = 64u << 20;       ///< 64 MiB of text
    std::size_t max_nodes = 4000000;         ///< nodes as written
    std::size_t max_alias_nodes = 100000;    ///< nodes that aliases add when expanded
    std::size_t max_depth = 200;             ///< collections open inside one another
};

}  // namespace hetsched::io
