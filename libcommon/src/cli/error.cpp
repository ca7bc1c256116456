#include <hetsched/cli/error.hpp>

namespace hetsched {

std::string describe(const Error& e) {
    std::string out;
    const SourcePos& p = e.pos();
    if (!p.file.empty()) {
        out += p.file;
        if (p.line > 0) {
            out += ':' + std::to_string(p.line);
            if (p.col > 0) out += ':' + std::to_string(p.col);
        }
        out += ": ";
    }
    return out + e.what();
}

}  // namespace hetsched
