#pragma once
/// Output that is all-or-nothing: a tool builds its whole output, then writes it once.
#include <string>
#include <utility>
#include <vector>

namespace hetsched::io {

/// Writes `text` to standard output (flushed) when `path` is empty or "-", else to a temporary file beside
/// `path` that is renamed over it, so a failed run never leaves a half-written file (nor, where the
/// file system gives unnamed files, a killed one a temporary: it is named only as the renames begin).
/// `to_disk`: flushed to disk (the file, and its folder after the rename; a regular file written in
/// place too) before returning, as an output that must survive a power cut beside another.
/// Throws OutputError (73) when the file cannot be created, IoError (74) when writing fails.
void write_output(const std::string& path, const std::string& text, bool to_disk = false);

/// Several outputs (path, text), all or none: every file is written to its temporary first, then
/// devices and pipes are written, then standard output, then every file is renamed over its target; a
/// failure before the renames leaves none of the files behind.
void write_outputs(const std::vector<std::pair<std::string, std::string>>& outputs, bool to_disk = false);

/// The folder `path` names a file in: "." for a bare name, "/" at the root.
std::string folder_of(const std::string& path);

/// Flushes the folder holding `path` to disk (a rename into it survives a power cut); a folder that
/// cannot be opened, or a file system that cannot flush one, is passed over; a flush that fails is an
/// IoError (the file is in place).
void sync_folder_of(const std::string& path);

/// `path` with symbolic links resolved (realpath), or as given when it does not resolve: the file a
/// link stands for, which is written (and locked) in the link's place so the link stays.
std::string resolved_path(const std::string& path);

/// A file with no name in `folder`, open for writing (O_TMPFILE), or -1 where the file system or
/// /proc cannot give one: a run killed before naming it leaves nothing behind.
int open_unnamed_file(const std::string& folder);

/// Gives the unnamed file open on `fd` the name `name`; false, with errno, where that fails.
bool name_unnamed_file(int fd, const std::string& name);

}  // namespace hetsched::io
