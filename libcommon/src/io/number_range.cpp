#include <hetsched/io/number_range.hpp>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/number_format.hpp>

namespace hetsched::io {

std::optional<double> parse_finite(const std::string& text) {
    if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return std::nullopt;
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(text.c_str(), &end);
    // strtod also reads hexadecimal ("0x10") and "nan"/"inf"; only decimal numbers are numbers here.
    if (*end != '\0' || errno == ERANGE || !std::isfinite(v) || text.find_first_of("xX") != std::string::npos)
        return std::nullopt;
    return v;
}

std::optional<long> parse_whole(const std::string& text, long lo, long hi) {
    const std::optional<double> v = parse_finite(text);
    // Compared as doubles first, so that 2^63 and beyond never reach the conversion to long.
    if (!v || *v != std::floor(*v) || std::fabs(*v) >= 9.2e18 || *v < static_cast<double>(lo) ||
        *v > static_cast<double>(hi))
        return std::nullopt;
    const long n = static_cast<long>(*v);
    if (n < lo || n > hi) return std::nullopt;
    return n;
}

std::string shown_value(const std::string& text) {
    return escape_control(text.size() > 60 ? text.substr(0, 60) + "..." : text);
}

std::string expected_number(double lo, double hi) {
    return "expected a number from " + format_number(lo, 10) + " to " + format_number(hi, 10);
}

std::string expected_positive(double hi) { return "expected a positive number up to " + format_number(hi, 10); }

std::string expected_integer(long lo, long hi) {
    return "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
}

}  // namespace hetsched::io
