#include <hetsched/io/text_input.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <sys/stat.h>

#include <hetsched/cli/error.hpp>

namespace hetsched::io {

TextInput read_input(const std::string& path) {
    const bool use_stdin = path.empty() || path == "-";
    TextInput in{use_stdin ? "<stdin>" : path, {}};
    std::FILE* f = use_stdin ? stdin : std::fopen(path.c_str(), "rb");
    if (!f) throw InputMissing("cannot open '" + path + "': " + std::strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {  // opens, but is no input
        if (!use_stdin) std::fclose(f);
        throw InputMissing("cannot read '" + in.name + "': " + std::strerror(EISDIR));
    }
    char buf[1 << 16];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) in.text.append(buf, n);
    const bool failed = std::ferror(f) != 0;
    const int err = errno;
    if (!use_stdin) std::fclose(f);
    if (failed) throw IoError("error reading '" + in.name + "': " + std::strerror(err));
    return in;
}

}  // namespace hetsched::io
