#include <hetsched/cli/error.hpp>

namespace hetsched {

std::string escape_control(const std::string& text) {
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (unsigned char c : text) {
        if (c < 0x20 || c == 0x7f) {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

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
    return escape_control(out + e.what());
}

}  // namespace hetsched
