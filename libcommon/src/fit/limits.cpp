#include <hetsched/fit/limits.hpp>

#include <cmath>
#include <cstdio>

namespace hetsched::fit::limits {
namespace {

/// Bounds as a reader writes them: 86400, 1048576, 1e-06 -> 1e-6, 1e+30 -> 1e30.
std::string bound(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    std::string s = buf;
    for (const char* from : {"e+0", "e+", "e-0"}) {
        const size_t at = s.find(from);
        if (at != std::string::npos) s.replace(at, std::string(from).size(), from[1] == '-' ? "e-" : "e");
    }
    return s;
}

}  // namespace

double checked(double v, double lo, double hi, bool open_lo, const std::string& field, const std::string& text,
               const SourcePos& where) {
    if (std::isfinite(v) && (open_lo ? v > lo : v >= lo) && v <= hi) return v;
    throw DataError(field + " must lie in " + (open_lo ? "(" : "[") + bound(lo) + ", " + bound(hi) + "], got '" +
                        text + "'",
                    where);
}

}  // namespace hetsched::fit::limits
