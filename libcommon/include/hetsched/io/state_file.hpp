#pragma once
/// A file that several runs rewrite, such as the cluster state a cron job updates: an exclusive lock
/// beside it for the read-decide-write sequence, and a replacement that a crash at any instant leaves
/// either old or new, never torn.
#include <string>

namespace hetsched::io {

/// An exclusive flock(2) on `path` (links resolved) + ".lock" (created if absent, left in place), held while the object
/// lives. Waits up to `timeout_s` seconds for another holder, then throws TryLater (75).
class FileLock {
public:
    FileLock(const std::string& path, double timeout_s);
    ~FileLock();
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

private:
    int fd_ = -1;
};

/// Replaces `path` (a symbolic link: its target) with `text`: written to an unnamed file in its folder (O_TMPFILE; a named
/// `.NAME.tmp` where that is unsupported, removed first if a killed run left it), flushed to disk,
/// given the temporary name, renamed over `path`, and the folder flushed; it keeps the old file's mode
/// and (when permitted) owner. Call it under a FileLock.
/// OutputError (73) or IoError (74) on failure, with the old file intact.
void replace_durably(const std::string& path, const std::string& text);

}  // namespace hetsched::io
