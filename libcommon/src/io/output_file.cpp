#include <hetsched/io/output_file.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

#include <hetsched/cli/error.hpp>

namespace hetsched::io {

void write_output(const std::string& path, const std::string& text) {
    if (path.empty() || path == "-") {
        if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size())
            throw IoError(std::string("error writing standard output: ") + std::strerror(errno));
        return;
    }
    std::string tmp = path + ".XXXXXX";
    int fd = mkstemp(tmp.data());
    if (fd < 0) throw OutputError("cannot create '" + path + "': " + std::strerror(errno));
    size_t off = 0;
    while (off < text.size()) {
        ssize_t n = ::write(fd, text.data() + off, text.size() - off);
        if (n < 0) {
            if (errno == EINTR) continue;
            int err = errno;
            ::close(fd);
            ::unlink(tmp.c_str());
            throw IoError("error writing '" + path + "': " + std::strerror(err));
        }
        off += static_cast<size_t>(n);
    }
    if (::fchmod(fd, 0644) != 0 || ::close(fd) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
        int err = errno;
        ::unlink(tmp.c_str());
        throw OutputError("cannot create '" + path + "': " + std::strerror(err));
    }
}

}  // namespace hetsched::io
