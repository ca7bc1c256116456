#include <hetsched/cli/validators.hpp>

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/number_format.hpp>

namespace hetsched::cli {
namespace {

/// The whole of `v` as a finite double, or false.
bool parse_finite(const std::string& v, double& x) {
    if (v.empty() || std::isspace(static_cast<unsigned char>(v[0]))) return false;
    char* end = nullptr;
    errno = 0;
    x = std::strtod(v.c_str(), &end);
    return *end == '\0' && errno != ERANGE && std::isfinite(x);
}

/// The value as typed, control bytes escaped and cut short when long.
std::string shown(const std::string& v) {
    return escape_control(v.size() > 60 ? v.substr(0, 60) + "..." : v);
}

}  // namespace

CLI::Validator number_in(double lo, double hi) {
    const std::string desc = "NUMBER in [" + io::format_number(lo) + ", " + io::format_number(hi) + "]";
    return CLI::Validator(
        [lo, hi](std::string& v) -> std::string {
            double x = 0;
            if (!parse_finite(v, x) || x < lo || x > hi)
                return "expected a number from " + io::format_number(lo) + " to " + io::format_number(hi) +
                       ", got '" + shown(v) + "'";
            return {};
        },
        desc);
}

CLI::Validator positive(double hi) {
    return CLI::Validator(
        [hi](std::string& v) -> std::string {
            double x = 0;
            if (!parse_finite(v, x) || !(x > 0) || x > hi)
                return "expected a positive number up to " + io::format_number(hi) + ", got '" + shown(v) + "'";
            return {};
        },
        "POSITIVE");
}

CLI::Validator integer_in(long long lo, long long hi) {
    const std::string range = std::to_string(lo) + " to " + std::to_string(hi);
    return CLI::Validator(
        [lo, hi, range](std::string& v) -> std::string {
            char* end = nullptr;
            errno = 0;
            long long x = v.empty() || std::isspace(static_cast<unsigned char>(v[0])) ? 0 : std::strtoll(v.c_str(), &end, 10);
            if (v.empty() || !end || *end != '\0' || errno == ERANGE || x < lo || x > hi)
                return "expected an integer from " + range + ", got '" + shown(v) + "'";
            return {};
        },
        "INTEGER in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

}  // namespace hetsched::cli
