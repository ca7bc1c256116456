#include <hetsched/io/output_file.hpp>

#include <cerrno>
#include <cstdio>
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

void write_output(const std::string& path, const std::string& text) {
    if (path.empty() || path == "-") {
        if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size())
            throw IoError(std::string("error writing standard output: ") + std::strerror(errno));
        return;
    }
    // Devices, pipes and sockets (/dev/null, /dev/stdout, a FIFO) are written in place: renaming a
    // file over them would replace the device.
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
        int fd = ::open(path.c_str(), O_WRONLY);
        if (fd < 0) throw OutputError("cannot open '" + path + "': " + std::strerror(errno));
        write_all(fd, text, path, "");
        if (::close(fd) != 0) throw IoError("error writing '" + path + "': " + std::strerror(errno));
        return;
    }
    std::string tmp = path + ".XXXXXX";
    int fd = mkstemp(tmp.data());
    if (fd < 0) throw OutputError("cannot create '" + path + "': " + std::strerror(errno));
    write_all(fd, text, path, tmp);
    if (::fchmod(fd, 0644) != 0 || ::close(fd) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
        int err = errno;
        ::unlink(tmp.c_str());
        throw OutputError("cannot create '" + path + "': " + std::strerror(err));
    }
}

}  // namespace hetsched::io
