#pragma once
/// Checks for numeric flags: every number a user types must be finite, whole where a count is meant,
/// and inside a documented range, so that nan, inf, 1e308 and 2^63 never reach the library.
#include <CLI/CLI.hpp>

namespace hetsched::cli {

/// A finite number in [lo, hi]: "expected a number from LO to HI, got 'x'".
CLI::Validator number_in(double lo, double hi);

/// A finite number in (0, hi]: "expected a positive number up to HI, got 'x'".
CLI::Validator positive(double hi = 1e15);

/// A whole number in [lo, hi] (no fraction, no overflow): "expected an integer from LO to HI, got 'x'".
CLI::Validator integer_in(long lo, long hi);

/// A comma-separated list of whole numbers in [lo, hi], every entry there (no empty entry, no comma at
/// either end: "16,,16" is refused, not read as 16,16).
CLI::Validator integer_list_in(long lo, long hi);

}  // namespace hetsched::cli
