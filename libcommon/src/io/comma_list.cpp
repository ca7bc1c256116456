#include <hetsched/io/comma_list.hpp>

#include <hetsched/cli/error.hpp>

namespace hetsched::io {

std::vector<std::string> comma_list(const std::string& text, const std::string& option) {
    if (text.empty()) throw UsageError(option + ": expected a comma-separated list, got nothing");
    std::vector<std::string> out;
    for (size_t start = 0;;) {
        const size_t comma = text.find(',', start);
        out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (out.back().empty())
            throw UsageError(option + ": expected an entry between every two commas and at both ends, got '" + text + "'");
        if (comma == std::string::npos) return out;
        start = comma + 1;
    }
}

std::string join(const std::vector<std::string>& entries, const std::string& separator) {
    std::string out;
    for (const auto& e : entries) out += (out.empty() ? "" : separator) + e;
    return out;
}

}  // namespace hetsched::io
