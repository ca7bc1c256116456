#include <hetsched/io/output_file.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

}  // namespace

std::string resolved_path(const std::string& path) {
    char* real = ::realpath(path.c_str(), nullptr);
    if (!real) return path;
    std::string out = real;
    std::free(real);
    return out;
}

void write_output(const std::string& path, const std::string& text) {
    if (path.empty() || path == "-") {
        // Flushed here, so a full disk or a closed pipe is this call's error, before anything that follows.
        if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
            throw IoError(std::string("error writing standard output: ") + std::strerror(errno));
        return;
    }
    // A symbolic link is written through, never replaced: into its target when that is a file path,
    // in place when it names a descriptor (/dev/stdout, /dev/fd/N, /proc/...: whatever fd 1 is;
    // renaming a file over that path would replace the link, and the output would miss the file fd 1
    // has open).
    std::string target = path;
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
            target = resolved_path(path);
            if (target == path) throw OutputError("cannot create '" + path + "': the link's file does not resolve");
        }
    }
    // Devices, pipes and sockets (/dev/null, /dev/stdout, a FIFO) are written in place too: renaming a
    // file over them would replace the device. A file reached through /dev or /proc is appended to,
    // as a shell's redirection of stdout has it open.
    struct stat st {};
    if (::stat(target.c_str(), &st) == 0 && (in_place || !S_ISREG(st.st_mode))) {
        int fd = ::open(target.c_str(), S_ISREG(st.st_mode) ? O_WRONLY | O_APPEND : O_WRONLY);
        if (fd < 0) throw OutputError("cannot open '" + path + "': " + std::strerror(errno));
        write_all(fd, text, path, "");
        if (::close(fd) != 0) throw IoError("error writing '" + path + "': " + std::strerror(errno));
        return;
    }
    std::string tmp = target + ".XXXXXX";
    int fd = mkstemp(tmp.data());
    if (fd < 0) throw OutputError("cannot create '" + path + "': " + std::strerror(errno));
    write_all(fd, text, path, tmp);
    if (::fchmod(fd, 0644) != 0 || ::close(fd) != 0 || std::rename(tmp.c_str(), target.c_str()) != 0) {
        int err = errno;
        ::unlink(tmp.c_str());
        throw OutputError("cannot create '" + path + "': " + std::strerror(err));
    }
}

}  // namespace hetsched::io
