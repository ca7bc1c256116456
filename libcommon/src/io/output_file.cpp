#include <hetsched/io/output_file.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

#include <hetsched/cli/error.hpp>

namespace hetsched::io {
namespace {

void write_all(int fd, const std::string& text, const std::string& path, const std::string& unlink_on_error) {
    size_t off = 0;
    while (off < text.size()) {
        ssize_t n = ::write(fd, text.data() + off, text.size() - off);
        if (n < 0) {
            if (errno == EINTR) continue;
            int err = errno;
            ::close(fd);
            if (!unlink_on_error.empty()) ::unlink(unlink_on_error.c_str());
            throw IoError("error writing '" + path + "': " + std::strerror(err));
        }
        off += static_cast<size_t>(n);
    }
}

/// One output on its way: a file written to a temporary beside its target, waiting to be renamed over
/// it (an unnamed one, named only as the renames begin, where the system gives one); or a stream
/// (standard output, a device, a descriptor's link) written in place when committed.
struct Staged {
    std::string path, text;
    std::string target, tmp;  ///< tmp: the temporary's name (empty while it has none)
    int stream_fd = -1;       ///< standard output: -1 and path empty or "-"
    int file_fd = -1;         ///< the unnamed temporary, open until it is named
    bool is_file() const { return !tmp.empty() || file_fd >= 0; }
};

/// Flushes what `fd` has written to disk; a pipe, socket or terminal, which has no disk, passes.
void sync_to_disk(int fd, const std::string& path) {
    if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS && errno != ENOTSUP)
        throw IoError("error writing '" + path + "': " + std::strerror(errno));
}

Staged stage(const std::string& path, const std::string& text, bool to_disk) {
    Staged out{path, text, path, "", -1};
    if (path.empty() || path == "-") return out;
    // A symbolic link is written through, never replaced: into its target when that is a file path,
    // in place when it names a descriptor (/dev/stdout, /dev/fd/N, /proc/...: whatever fd 1 is;
    // renaming a file over that path would replace the link, and the output would miss the file fd 1
    // has open).
    bool in_place = false;
    struct stat lst {};
    if (::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
        std::string link(4096, '\0');
        const ssize_t n = ::readlink(path.c_str(), link.data(), link.size());
        link.resize(n > 0 ? static_cast<size_t>(n) : 0);
        const auto starts = [](const std::string& p, const char* prefix) { return p.rfind(prefix, 0) == 0; };
        if (starts(path, "/dev/std") || starts(path, "/dev/fd/") || starts(path, "/proc/") || starts(link, "/proc/")) {
            in_place = true;
        } else {
            out.target = resolved_path(path);
            if (out.target == path) throw OutputError("cannot create '" + path + "': the link's file does not resolve");
        }
    }
    // Devices, pipes and sockets (/dev/null, /dev/stdout, a FIFO) are written in place too: renaming a
    // file over them would replace the device. A file reached through /dev or /proc is appended to,
    // as a shell's redirection of stdout has it open.
    struct stat st {};
    if (::stat(out.target.c_str(), &st) == 0 && (in_place || !S_ISREG(st.st_mode))) {
        // What standard output already has open (/dev/stdout, /dev/fd/1) is written through it: a second
        // descriptor on a shell's redirected file has an offset of its own, and the two overwrite each
        // other.
        struct stat so {};
        if (::fstat(STDOUT_FILENO, &so) == 0 && so.st_dev == st.st_dev && so.st_ino == st.st_ino) return out;
        out.stream_fd = ::open(out.target.c_str(), S_ISREG(st.st_mode) ? O_WRONLY | O_APPEND : O_WRONLY);
        if (out.stream_fd < 0) throw OutputError("cannot open '" + path + "': " + std::strerror(errno));
        return out;
    }
    out.file_fd = open_unnamed_file(folder_of(out.target));
    if (out.file_fd >= 0) {
        const int fd = out.file_fd;
        out.file_fd = -1;  // write_all closes it on an error
        write_all(fd, text, path, "");
        if ((to_disk && ::fsync(fd) != 0) || ::fchmod(fd, 0644) != 0) {
            const int err = errno;
            ::close(fd);
            throw IoError("error writing '" + path + "': " + std::strerror(err));
        }
        out.file_fd = fd;
        return out;
    }
    out.tmp = out.target + ".XXXXXX";
    int fd = mkstemp(out.tmp.data());
    if (fd < 0) {
        const int err = errno;
        // A file that exists in a directory that takes no new files (/proc/version): the error is the
        // temporary's, not the file's.
        if (::stat(out.target.c_str(), &st) == 0)
            throw OutputError("cannot replace '" + path + "': no temporary file can be made beside it (" +
                              std::strerror(err) + ")");
        throw OutputError("cannot create '" + path + "': " + std::strerror(err));
    }
    write_all(fd, text, path, out.tmp);
    if (to_disk && ::fsync(fd) != 0) {
        const int sync_err = errno;
        ::close(fd);
        ::unlink(out.tmp.c_str());
        throw IoError("error writing '" + path + "': " + std::strerror(sync_err));
    }
    const bool chmod_ok = ::fchmod(fd, 0644) == 0;
    int err = errno;
    const bool close_ok = ::close(fd) == 0;
    if (!close_ok) err = errno;
    if (!chmod_ok || !close_ok) {
        ::unlink(out.tmp.c_str());
        throw OutputError("cannot create '" + path + "': " + std::strerror(err));
    }
    return out;
}

/// Lets go of a staged output that will not be committed.
void discard(const Staged& s) {
    if (s.file_fd >= 0) ::close(s.file_fd);  // an unnamed file vanishes with its descriptor
    if (!s.tmp.empty()) ::unlink(s.tmp.c_str());
    if (s.stream_fd >= 0) ::close(s.stream_fd);
}

/// Names a staged output's unnamed temporary beside its target and closes it (the renames follow).
void name_temporary(Staged& s) {
    if (s.file_fd < 0) return;
    for (int k = 0; s.tmp.empty(); ++k) {
        const std::string name = s.target + "." + std::to_string(::getpid()) + "-" + std::to_string(k);
        if (name_unnamed_file(s.file_fd, name)) s.tmp = name;
        else if (errno != EEXIST || k == 100)
            throw OutputError("cannot create '" + s.path + "': " + std::strerror(errno));
    }
    const int fd = s.file_fd;
    s.file_fd = -1;
    if (::close(fd) != 0) throw IoError("error writing '" + s.path + "': " + std::strerror(errno));
}

/// Writes the streams: devices and pipes in order, then standard output, so that an output on a device
/// that fails (/dev/full) fails the run before standard output (the result a pipeline reads) has any of
/// it. A failure leaves the files staged: the caller discards them.
void write_streams(std::vector<Staged>& staged, bool to_disk) {
    std::vector<const Staged*> to_stdout;
    for (auto& s : staged) {
        if (s.is_file()) continue;
        if (s.stream_fd < 0) {
            to_stdout.push_back(&s);
            continue;
        }
        const int fd = s.stream_fd;
        s.stream_fd = -1;  // write_all closes it on an error
        write_all(fd, s.text, s.path, "");
        if (to_disk) sync_to_disk(fd, s.path);
        if (::close(fd) != 0) throw IoError("error writing '" + s.path + "': " + std::strerror(errno));
    }
    for (const Staged* s : to_stdout) {
        // Flushed here, so a full disk or a closed pipe is this call's error, before anything that follows.
        if (std::fwrite(s->text.data(), 1, s->text.size(), stdout) != s->text.size() || std::fflush(stdout) != 0)
            throw IoError(std::string("error writing standard output: ") + std::strerror(errno));
        if (to_disk) sync_to_disk(STDOUT_FILENO, "standard output");
    }
}

}  // namespace

std::string folder_of(const std::string& path) {
    const size_t slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

void sync_folder_of(const std::string& path) {
    const int fd = ::open(folder_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    const int err = ::fsync(fd) == 0 ? 0 : errno;
    ::close(fd);
    // A file system that cannot flush a folder says so (EINVAL, EROFS): nothing to report. A failed
    // flush (EIO, ENOSPC) leaves the file in place but its name maybe lost in a crash: said, exit 74.
    if (err != 0 && err != EINVAL && err != EROFS && err != ENOTSUP)
        throw IoError("'" + path + "' is in place, but flushing its folder to disk failed (" + std::strerror(err) +
                      "): it may not survive a crash");
}

int open_unnamed_file(const std::string& folder) {
    if (::access("/proc/self/fd", X_OK) != 0) return -1;  // naming it later goes through /proc
    return ::open(folder.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
}

bool name_unnamed_file(int fd, const std::string& name) {
    const std::string self = "/proc/self/fd/" + std::to_string(fd);
    return ::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0;
}

std::string resolved_path(const std::string& path) {
    char* real = ::realpath(path.c_str(), nullptr);
    if (!real) return path;
    std::string out = real;
    std::free(real);
    return out;
}

namespace {

/// Whether two output paths name one file, existing or not: their directories resolved, then the names.
bool same_file(const std::string& a, const std::string& b) {
    const auto identity = [](const std::string& p) {
        const size_t slash = p.rfind('/');
        return resolved_path(folder_of(p)) + "/" + p.substr(slash == std::string::npos ? 0 : slash + 1);
    };
    return identity(a) == identity(b);
}

}  // namespace

void write_outputs(const std::vector<std::pair<std::string, std::string>>& outputs, bool to_disk) {
    std::vector<Staged> staged;
    try {
        for (const auto& [path, text] : outputs) {
            staged.push_back(stage(path, text, to_disk));
            // Two outputs renamed over one file: only the last would be left.
            for (size_t i = 0; i + 1 < staged.size(); ++i)
                if (staged[i].is_file() && staged.back().is_file() &&
                    same_file(staged[i].target, staged.back().target))
                    throw UsageError("'" + staged.back().path + "' is given for two outputs ('" + staged[i].path +
                                     "' too): each needs a file of its own");
        }
        write_streams(staged, to_disk);
        // Named only now, the renames next: a run killed before leaves no temporary behind.
        for (auto& s : staged) name_temporary(s);
    } catch (...) {
        for (const auto& s : staged) discard(s);
        throw;
    }
    std::exception_ptr flush_failed;
    for (size_t i = 0; i < staged.size(); ++i) {
        const Staged& s = staged[i];
        if (!s.is_file()) continue;
        if (std::rename(s.tmp.c_str(), s.target.c_str()) != 0) {
            int err = errno;
            for (size_t j = i; j < staged.size(); ++j) discard(staged[j]);
            throw OutputError("cannot create '" + s.path + "': " + std::strerror(err));
        }
        if (to_disk) {  // the rename too; a failed flush is told once every output is in place
            try {
                sync_folder_of(s.target);
            } catch (const IoError&) {
                if (!flush_failed) flush_failed = std::current_exception();
            }
        }
    }
    if (flush_failed) std::rethrow_exception(flush_failed);
}

void write_output(const std::string& path, const std::string& text, bool to_disk) {
    write_outputs({{path, text}}, to_disk);
}

}  // namespace hetsched::io
