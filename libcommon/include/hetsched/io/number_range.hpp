#pragma once
/// The one check every number from a flag or a file passes: the whole text is a finite number (a
/// whole one where a count is meant) inside the field's documented range; the message says which
/// range and what came, so flags, YAML and CSV readers all speak alike.
#include <optional>
#include <string>

namespace hetsched::io {

/// `text` as a finite double: the whole text, no blanks, no nan or inf, nothing beyond double's range.
std::optional<double> parse_finite(const std::string& text);
/// `text` as a whole number in [lo, hi] (decimal or exponent notation, "8" or "8.0" or "1e3").
std::optional<long> parse_whole(const std::string& text, long lo, long hi);

/// `text` as shown in a message: control bytes escaped, cut short when long.
std::string shown_value(const std::string& text);

/// "expected a number from LO to HI", "expected a positive number up to HI" and "expected an integer
/// from LO to HI", for messages that go on to name the field and what came.
std::string expected_number(double lo, double hi);
std::string expected_positive(double hi);
std::string expected_integer(long lo, long hi);

}  // namespace hetsched::io
