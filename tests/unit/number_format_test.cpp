#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

#include <hetsched/io/number_format.hpp>

using hetsched::io::format_exact;
using hetsched::io::format_fixed;
using hetsched::io::format_number;

TEST_CASE("format_number prints short exact decimals", "[io]") {
    CHECK(format_number(0.1) == "0.1");
    CHECK(format_number(53.21875) == "53.2188");
    CHECK(format_number(7000000) == "7000000");
    CHECK(format_number(0) == "0");
    CHECK(format_number(-2.5) == "-2.5");
    CHECK(format_number(1e-12) == "1e-12");
    CHECK(format_number(std::nan("")) == "nan");
    CHECK(format_number(-0.0) == "0");
    CHECK(format_fixed(-0.4, 0) == "0");
}

TEST_CASE("format_exact writes the shortest decimal that reads back as the same double", "[io]") {
    CHECK(format_exact(1234567.891) == "1234567.891");
    CHECK(format_exact(0.1) == "0.1");
    CHECK(format_exact(2e12) == "2e12");
    CHECK(format_exact(1e30) == "1e30");
    CHECK(format_exact(2.5e-7) == "2.5e-7");
    CHECK(format_exact(-0.0) == "0");
    CHECK(format_exact(6566945076) == "6566945076");
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> exponent(-12, 18), mantissa(1, 10);
    for (int i = 0; i < 10000; ++i) {
        const double v = mantissa(rng) * std::pow(10.0, exponent(rng));
        CHECK(std::strtod(format_exact(v).c_str(), nullptr) == v);
    }
}

TEST_CASE("format_fixed rounds and trims", "[io]") {
    CHECK(format_fixed(12.5004, 3) == "12.5");
    CHECK(format_fixed(3.0, 2) == "3");
    CHECK(format_fixed(-0.0001, 2) == "0");
}

TEST_CASE("one number format: never a 16-digit integer, exponents written short", "[io]") {
    CHECK(format_number(1e15) == "1e15");
    CHECK(format_number(2.5e-10) == "2.5e-10");
    CHECK(format_number(123456789012345.0, 20) == "123456789012345");
    CHECK(format_fixed(1e300, 2) == "1e300");
    CHECK(format_fixed(-3.5e20, 3) == "-3.5e20");
    CHECK(format_fixed(999999999999999.0, 0) == "999999999999999");
}

TEST_CASE("format_step is the spacing of the values format_number writes", "[io]") {
    CHECK(hetsched::io::format_step(123456.7) == 1);
    CHECK(hetsched::io::format_step(12.25) == Approx(1e-4));
    CHECK(hetsched::io::format_step(-0.5) == Approx(1e-6));
    CHECK(hetsched::io::format_step(2e15) == Approx(1e10));
    CHECK(hetsched::io::format_step(0) == 0);
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> exponent(-8, 14);
    for (int k = 0; k < 1000; ++k) {
        const double v = std::pow(10.0, exponent(rng));
        INFO(v);
        CHECK(std::fabs(std::stod(format_number(v)) - v) <= hetsched::io::format_step(v) / 2 * (1 + 1e-9));
    }
}

TEST_CASE("decimals_apart writes a need and a capacity apart when they differ", "[io]") {
    CHECK(hetsched::io::decimals_apart(3.0663, 3.066, 2) == 4);  // 3.07 and 3.07, 3.066 and 3.066, then apart
    CHECK(hetsched::io::decimals_apart(3.5, 2.5, 2) == 2);
    CHECK(hetsched::io::decimals_apart(3.066, 3.066, 2) == 2);  // equal: as asked
    CHECK(hetsched::io::decimals_apart(1.0, 1.0 + 1e-12, 2) == 9);  // at most 9
}
