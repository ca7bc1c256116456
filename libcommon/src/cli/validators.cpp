#include <hetsched/cli/validators.hpp>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/io/number_range.hpp>

namespace hetsched::cli {

CLI::Validator number_in(double lo, double hi) {
    return CLI::Validator(
        [lo, hi](std::string& v) -> std::string {
            const std::optional<double> x = io::parse_finite(v);
            if (!x || *x < lo || *x > hi) return io::expected_number(lo, hi) + ", got '" + io::shown_value(v) + "'";
            return {};
        },
        "NUMBER in [" + io::format_number(lo, 10) + ", " + io::format_number(hi, 10) + "]");
}

CLI::Validator positive(double hi) {
    return CLI::Validator(
        [hi](std::string& v) -> std::string {
            const std::optional<double> x = io::parse_finite(v);
            if (!x || !(*x > 0) || *x > hi)
                return io::expected_positive(hi) + ", got '" + io::shown_value(v) + "'";
            return {};
        },
        "NUMBER in (0, " + io::format_number(hi, 10) + "]");
}

CLI::Validator integer_in(long lo, long hi) {
    return CLI::Validator(
        [lo, hi](std::string& v) -> std::string {
            const std::optional<long> n = io::parse_whole(v, lo, hi);
            if (!n) return io::expected_integer(lo, hi) + ", got '" + io::shown_value(v) + "'";
            v = std::to_string(*n);  // "1e3" and "8.0" reach the option as plain integers
            return {};
        },
        "INTEGER in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

CLI::Validator integer_list_in(long lo, long hi) {
    return CLI::Validator(
        [lo, hi](std::string& v) -> std::string {
            if (v.empty() || v.front() == ',' || v.back() == ',' || v.find(",,") != std::string::npos)
                return "expected an entry between every two commas and at both ends, got '" + io::shown_value(v) + "'";
            for (size_t start = 0; start <= v.size();) {
                const size_t comma = std::min(v.find(',', start), v.size());
                const std::string entry = v.substr(start, comma - start);
                if (!io::parse_whole(entry, lo, hi))
                    return io::expected_integer(lo, hi) + ", got '" + io::shown_value(entry) + "'";
                start = comma + 1;
            }
            return {};
        },
        "INTEGER,... in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

}  // namespace hetsched::cli
