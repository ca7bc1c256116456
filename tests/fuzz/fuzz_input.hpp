#pragma once
/// What every fuzz target shares: the fuzzer's bytes as a named input, and the rule that a reader may
/// refuse input only with a typed hetsched::Error (anything else escapes and is a finding).
#include <cstddef>
#include <cstdint>
#include <string>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/text_input.hpp>

namespace hetsched::fuzz {

/// The bytes as an input named like a file, so that errors are formatted as the tools format them.
inline io::TextInput as_input(const uint8_t* data, size_t size, const std::string& name = "fuzz.in") {
    return {name, std::string(reinterpret_cast<const char*>(data), size)};
}

/// Runs `read`; a typed error is the documented answer to bad input and is rendered as the tools would.
template <class Read>
void refuse_only_typed(Read&& read) {
    try {
        read();
    } catch (const Error& e) {
        (void)describe(e);
    }
}

}  // namespace hetsched::fuzz
