#pragma once
/// Whole-file input: every reader works on text already in memory, named for error messages.
#include <string>

namespace hetsched::io {

/// An input's text and the name errors use for it ("<stdin>" for standard input).
struct TextInput {
    std::string name;
    std::string text;
};

/// Reads FILE, or standard input when `path` is "-" or empty. Throws InputMissing (66) when the file
/// cannot be opened or is a directory and IoError (74) when reading fails part-way.
TextInput read_input(const std::string& path);

}  // namespace hetsched::io
