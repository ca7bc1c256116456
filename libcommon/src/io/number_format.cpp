#include <hetsched/io/number_format.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace hetsched::io {
namespace {

std::string trim_zeros(std::string s) {
    if (s.find('.') != std::string::npos) {
        while (!s.empty() && s.back() == '0') s.pop_back();
        if (!s.empty() && s.back() == '.') s.pop_back();
    }
    if (s == "-0") s = "0";  // -0.0, or a small negative rounded to nothing
    return s;
}

/// An exponent tidied: 1e+15 -> 1e15, 2.5e-07 -> 2.5e-7.
std::string tidy_exponent(std::string s) {
    for (const char* from : {"e+0", "e+", "e-0"}) {
        const size_t at = s.find(from);
        if (at != std::string::npos) s.replace(at, std::string(from).size(), from[1] == '-' ? "e-" : "e");
    }
    return s;
}

/// "%g" with its exponent tidied.
std::string exponent_form(double v, int significant) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", significant, v);
    return tidy_exponent(buf);
}

}  // namespace

std::string format_exact(double v) {
    if (!std::isfinite(v) || v == 0.0) return format_fixed(v, 0);
    char buf[64];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);  // the shortest text that reads back as v
    return tidy_exponent(std::string(buf, ec == std::errc() ? end : buf));
}

std::string format_fixed(double v, int decimals) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    if (std::fabs(v) >= 1e15) return format_number(v);  // never a 16-digit-or-longer integer
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return trim_zeros(buf);
}

int decimals_apart(double a, double b, int decimals) {
    int d = decimals;
    while (a != b && d < 9 && format_fixed(a, d) == format_fixed(b, d)) ++d;
    return d;
}

std::string format_number(double v, int significant) {
    if (!std::isfinite(v) || v == 0.0) return format_fixed(v, 0);
    double mag = std::floor(std::log10(std::fabs(v)));
    if (mag >= 15 || mag < -9) return exponent_form(v, significant);
    int decimals = significant - 1 - static_cast<int>(mag);
    if (decimals < 0) decimals = 0;
    return format_fixed(v, decimals);
}

double format_step(double v, int significant) {
    if (!std::isfinite(v) || v == 0.0) return 0;
    const double mag = std::floor(std::log10(std::fabs(v)));
    if (mag >= 15 || mag < -9) return std::pow(10.0, mag - (significant - 1));
    return std::pow(10.0, -std::max(0.0, significant - 1 - mag));
}

std::string counted(long n, const std::string& noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); }

}  // namespace hetsched::io
