#pragma once
/// What a YAML input may be before it is built into nodes: one document, no key twice in a mapping,
/// and bounded in size and in what its aliases expand to, so that a 500-byte alias bomb or a
/// duplicated key is refused with its position instead of hanging a tool or silently picking a value.
#include <cstddef>

#include <hetsched/io/text_input.hpp>

namespace hetsched::io {

/// The bounds check_yaml_shape() enforces (hetsched-formats(5) documents them).
struct YamlLimits {
    std::size_t max_bytes = 64u << 20;       ///< 64 MiB of text
    std::size_t max_nodes = 4000000;         ///< nodes as written
    std::size_t max_alias_nodes = 100000;    ///< nodes that aliases add when expanded
};

/// DataError (65) at the offending position when `in` holds more than one document, a mapping repeats
/// a key, or the text or its alias expansion passes `limits`.
void check_yaml_shape(const TextInput& in, const YamlLimits& limits = {});

}  // namespace hetsched::io
