#pragma once
/// A flag's comma-separated list (--stages A100,A100,V100; --types; --cluster V100=16,K80=8), and a
/// list written back as one.
#include <string>
#include <vector>

namespace hetsched::io {

/// The entries of `text`, in order. UsageError naming `option` when it is empty or has an empty entry
/// (two commas in a row, or a comma at either end): a list a user typed means every entry.
std::vector<std::string> comma_list(const std::string& text, const std::string& option);

/// The entries joined by ", " (or `separator`), for messages: "V100, P100, K80" ("" for none).
std::string join(const std::vector<std::string>& entries, const std::string& separator = ", ");

}  // namespace hetsched::io
