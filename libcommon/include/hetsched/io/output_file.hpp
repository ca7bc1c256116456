#pragma once
/// Output that is all-or-nothing: a tool builds its whole output, then writes it once.
#include <string>

namespace hetsched::io {

/// Writes `text` to standard output (flushed) when `path` is empty or "-", else to a temporary file beside
/// `path` that is renamed over it, so a failed run never leaves a half-written file.
/// Throws OutputError (73) when the file cannot be created, IoError (74) when writing fails.
void write_output(const std::string& path, const std::string& text);

/// `path` with symbolic links resolved (realpath), or as given when it does not resolve: the file a
/// link stands for, which is written (and locked) in the link's place so the link stays.
std::string resolved_path(const std::string& path);

}  // namespace hetsched::io
