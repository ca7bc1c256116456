#pragma once
/// A file that several runs rewrite, such as the cluster state a cron job updates: an exclusive lock
/// beside it for the read-decide-write sequence, and a replacement that a crash at any instant leaves
/// either old or new, never torn.
#include <string>

namespace hetsched::io {

/// The lock file FileLock takes for `path`: the file a link reaches, plus ".lock".
std::string lock_path_of(const std::string& path);

/// Whether writing `output` would replace the lock file of `state` (links, "." and ".." resolved; a
/// file not yet made counts by its name in its resolved folder).
bool replaces_lock_of(const std::string& output, const std::string& state);

/// An exclusive flock(2) on `path` (links resolved) + ".lock" (created if absent, left in place; opened read-only
/// where it is another user's), held while the object
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

/// A replacement of `path` (a symbolic link: its target) by `text` in two steps, so that other outputs
/// can go out between them. The constructor writes the text to an unnamed file in its folder (O_TMPFILE;
/// a named `.NAME.tmp` where that is unsupported, removed first if a killed run left it) and flushes it
/// to disk, keeping the old file's mode and (when permitted) owner; it fails, before any other output,
/// where that name is taken. commit() gives the file that name for the instant before renaming it over
/// `path`, and flushes the folder. Dropped uncommitted, the file goes and `path` is as it was.
/// OutputError (73) or IoError (74) on failure, with the old file intact. Use it under a FileLock.
class DurableReplacement {
public:
    DurableReplacement(const std::string& path, const std::string& text);
    ~DurableReplacement();
    DurableReplacement(const DurableReplacement&) = delete;
    DurableReplacement& operator=(const DurableReplacement&) = delete;
    void commit();

private:
    void discard();

    std::string path_, tmp_;
    int fd_ = -1;
    bool unnamed_ = false;
    bool committed_ = false;
};

/// Both steps at once: a crash at any instant leaves `path` either old or new, never torn.
void replace_durably(const std::string& path, const std::string& text);

}  // namespace hetsched::io
