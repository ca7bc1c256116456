#include <hetsched/io/state_file.hpp>

#include <filesystem>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/io/output_file.hpp>

namespace hetsched::io {
namespace {

std::string temp_name(const std::string& path) {
    const auto slash = path.rfind('/');
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    return (slash == std::string::npos ? "" : path.substr(0, slash + 1)) + "." + base + ".tmp";
}

[[noreturn]] void fail_write(const std::string& path, int err) {
    throw IoError("error writing '" + path + "': " + std::strerror(err));
}

void write_fully(int fd, const std::string& text, const std::string& path) {
    size_t off = 0;
    while (off < text.size()) {
        const ssize_t n = ::write(fd, text.data() + off, text.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail_write(path, errno);
        off += static_cast<size_t>(n);
    }
    if (::fsync(fd) != 0) fail_write(path, errno);
}

}  // namespace

std::string lock_path_of(const std::string& path) { return resolved_path(path) + ".lock"; }

bool replaces_lock_of(const std::string& output, const std::string& state) {
    auto where = [](const std::string& p) {
        std::error_code ec;
        std::filesystem::path at = std::filesystem::absolute(resolved_path(p), ec);
        // A link to a file not made yet (realpath leaves it): followed by hand, as a rename would not.
        std::error_code none;  // a path not there is no error here
        for (int hops = 0; !ec && hops < 40 && std::filesystem::is_symlink(std::filesystem::symlink_status(at, none)); ++hops) {
            const std::filesystem::path to = std::filesystem::read_symlink(at, ec);
            at = to.is_absolute() ? to : at.parent_path() / to;
        }
        return ec ? std::filesystem::path() : std::filesystem::weakly_canonical(at, ec);
    };
    if (output.empty() || output == "-" || state.empty()) return false;
    const std::filesystem::path out = where(output), lock = where(lock_path_of(state));
    return !out.empty() && out == lock;
}

FileLock::FileLock(const std::string& path, double timeout_s) {
    const std::string lock = lock_path_of(path);  // one lock whichever link reaches the file
    fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    // flock needs no write access: a lock file another user made (root's --dry-run) is taken read-only.
    const int err = errno;
    if (fd_ < 0 && (err == EACCES || err == EROFS)) fd_ = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw OutputError("cannot open the lock file '" + lock + "': " + std::strerror(err));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR) {
            const int err = errno;
            ::close(fd_);
            throw IoError("cannot lock '" + lock + "': " + std::strerror(err));
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            ::close(fd_);
            throw TryLater("'" + path + "' is locked by another run (" + lock + ") for more than " +
                           format_number(timeout_s) + " s; try again later or raise --lock-timeout-s");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

FileLock::~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

DurableReplacement::DurableReplacement(const std::string& given, const std::string& text)
    // A state file that is a symbolic link is replaced at its target: the link stays, and every run
    // that follows it sees the new state.
    : path_(resolved_path(given)), tmp_(temp_name(path_)) {
    ::unlink(tmp_.c_str());  // a run killed between naming and renaming left it
    // The name the file takes at the commit must be free now: failing then would be after the caller's
    // other outputs went out.
    struct stat taken {};
    if (::lstat(tmp_.c_str(), &taken) == 0) throw OutputError("cannot create '" + tmp_ + "': " + std::strerror(EEXIST));
    const std::string folder = folder_of(path_);
    fd_ = open_unnamed_file(folder);
    unnamed_ = fd_ >= 0;
    if (!unnamed_) fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd_ < 0) throw OutputError("cannot create '" + tmp_ + "': " + std::strerror(errno));
    try {
        struct stat old {};
        if (::stat(path_.c_str(), &old) == 0) {  // the new file keeps the old one's mode and owner
            if (::fchmod(fd_, old.st_mode & 07777) != 0) fail_write(path_, errno);
            (void)::fchown(fd_, old.st_uid, old.st_gid);  // allowed to fail when not root: the mode stays
        }
        write_fully(fd_, text, path_);
    } catch (...) {
        discard();
        throw;
    }
}

DurableReplacement::~DurableReplacement() {
    if (!committed_) discard();
}

void DurableReplacement::discard() {
    if (fd_ >= 0) ::close(fd_);  // an unnamed file vanishes with its descriptor
    fd_ = -1;
    if (!unnamed_) ::unlink(tmp_.c_str());
}

void DurableReplacement::commit() {
    try {
        if (unnamed_) {
            // Named only for the instant before the rename: a run killed before it leaves nothing behind.
            if (!name_unnamed_file(fd_, tmp_)) throw OutputError("cannot create '" + tmp_ + "': " + std::strerror(errno));
            unnamed_ = false;  // from here a discard unlinks the name
        }
        const int fd = fd_;
        fd_ = -1;
        if (::close(fd) != 0) fail_write(path_, errno);
        if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
            const int err = errno;
            throw OutputError("cannot replace '" + path_ + "': " + std::strerror(err));
        }
    } catch (...) {
        discard();
        throw;
    }
    committed_ = true;
    sync_folder_of(path_);
}

void replace_durably(const std::string& path, const std::string& text) { DurableReplacement(path, text).commit(); }

}  // namespace hetsched::io
