#pragma once
/// The one number format of every output: short, exact enough, and stable across runs.
#include <string>

namespace hetsched::io {

/// `v` with at most `significant` significant digits, fixed-point, trailing zeros removed
/// ("0.1", "53.2188", "7000000"), in exponent form from 1e15 up and below 1e-9 ("1e15", "2.5e-10");
/// non-finite values as "nan"/"inf"/"-inf".
std::string format_number(double v, int significant = 6);

/// `v` exactly: the shortest decimal that reads back as the same double ("1234567.891", "0.1",
/// "2e12", "1.2607e-19"), for values a later run reads back (a cluster state's clock and books).
std::string format_exact(double v);

/// The step between the values format_number(·, significant) writes near `v` (how far a written value
/// may be from the one it stands for, at most half of it): 1 for 1e5 <= |v| < 1e15 at 6 digits; 0
/// for 0 or a non-finite value.
double format_step(double v, int significant = 6);

/// `v` rounded to `decimals` places, trailing zeros removed ("12.5", "3"); from 1e15 up as
/// format_number() writes it.
std::string format_fixed(double v, int decimals);

/// The decimals, from `decimals` up to 9, at which format_fixed() writes `a` and `b` apart when they
/// differ (a need and a capacity a message sets side by side, lest 3.07 read as fitting 3.07).
int decimals_apart(double a, double b, int decimals);

/// `n` and the noun, plural unless n is 1: "1 GPU", "8 GPUs", "0 stages".
std::string counted(long n, const std::string& noun);

}  // namespace hetsched::io
