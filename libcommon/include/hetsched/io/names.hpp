#pragma once
/// How names are matched (ASCII letter case aside, nothing else) and how close a name not found is
/// to those known, for "did you mean" hints and warnings about likely misspellings.
#include <string>
#include <vector>

#include <hetsched/cli/error.hpp>

namespace hetsched::io {

/// Whether two names are the same apart from ASCII letter case: the only leniency name matching has.
bool same_name(const std::string& a, const std::string& b);

/// `name` with its ASCII letters lower-cased: a key under which same_name() names are equal.
std::string folded_name(const std::string& name);

/// The name's words: its runs of ASCII letters and digits, lower-cased ("NVIDIA A100-SXM4-80GB": nvidia,
/// a100, sxm4, 80gb).
std::vector<std::string> name_words(const std::string& s);

/// Up to three of `candidates` closest to `wanted` by edit distance, for "did you mean" hints.
std::vector<std::string> close_names(const std::string& wanted, const std::vector<std::string>& candidates);

/// ", did you mean 'a' or 'b'?" or "" when nothing is close.
std::string did_you_mean(const std::string& wanted, const std::vector<std::string>& candidates);

/// The one of `candidates` that `wanted` is a slip of (one character added, dropped or changed, or two
/// neighbours swapped, case and '-' for '_' aside; names of 4 or more characters) or the leading
/// '_'-separated words of ("memory" of memory_gib) or shortens its words ("mem_gib"), or "": stricter than close_names, for warning about
/// a name that is not an error to give (a key that passes through).
std::string likely_slip(const std::string& wanted, const std::vector<std::string>& candidates);

/// The warning a name that is read nowhere gets where it is a slip of one in `known` (likely_slip):
/// "file:line:col: NOUN 'name' NOT_READ, did you mean 'near'?"; "" for a known name or no slip.
/// (A key or column passed through unread would otherwise leave its setting at the default silently.)
std::string near_miss_warning(const std::string& name, const std::vector<std::string>& known, const SourcePos& at,
                              const std::string& noun, const std::string& not_read);

}  // namespace hetsched::io
