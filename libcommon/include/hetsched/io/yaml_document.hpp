#pragma once
/// YAML documents: parsed with positions for error messages, checked for `kind:`/`version:`, read with
/// typed accessors that say where a bad value sits, and written back with every key the tool did not
/// touch passed through in its original order and spelling.
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/text_input.hpp>
#include <hetsched/io/yaml_limits.hpp>

namespace hetsched::io {

/// A parsed document and the input name used in errors.
struct YamlDocument {
    std::string name;
    YAML::Node root;

    /// Position of a node parsed from this document (line and column 1-based).
    SourcePos where(const YAML::Node& node) const;
};

/// Parses one YAML document whose top level is a mapping, within `limits` (one document, no duplicate
/// keys, bounded size, depth and alias expansion); DataError with the position else. Plain `~`, `null`
/// and empty scalars are null nodes; quoted scalars carry the tag "!" (as yaml-cpp's loader gives them).
YamlDocument parse_yaml(const TextInput& in, const YamlLimits& limits = {});

/// Checks `kind: <kind>` and `version: 1`; DataError (65) naming what came instead.
void require_kind(const YamlDocument& doc, const std::string& kind);
/// Checks `version: 1` alone, for a document whose kind is not checked; DataError (65) otherwise.
void require_version(const YamlDocument& doc);

/// `map[key]` when present (and not null), else an undefined node; DataError if `map` is not a mapping.
YAML::Node optional_child(const YamlDocument& doc, const YAML::Node& map, const std::string& key);
/// `map[key]`; DataError "missing key" at the mapping's position when absent.
YAML::Node required_child(const YamlDocument& doc, const YAML::Node& map, const std::string& key);
/// near_miss_warning() for each key of `map` (none when it is no map), in the map's order.
void warn_near_miss_keys(const YamlDocument& doc, const YAML::Node& map, const std::vector<std::string>& known,
                         const std::string& not_read, std::vector<std::string>& out);

/// Numbers from files: finite and within [lo, hi] (whole for yaml_integer), else DataError at the
/// node naming `what`, the range and what came. Every reader states its field's range here.
double yaml_number(const YamlDocument& doc, const YAML::Node& node, const std::string& what, double lo, double hi);
long yaml_integer(const YamlDocument& doc, const YAML::Node& node, const std::string& what, long lo, long hi);
/// Other scalars: DataError at the node, saying what was expected and what came.
bool yaml_bool(const YamlDocument& doc, const YAML::Node& node, const std::string& what);
std::string yaml_string(const YamlDocument& doc, const YAML::Node& node, const std::string& what);

/// A scalar node holding `v` in the project's number format.
YAML::Node yaml_number_node(double v);

/// A scalar node holding the text `s`, written quoted when a YAML reader would take it for something
/// else plain (a number such as 123 or 0x1F, a boolean such as yes or on, a null): a user's name
/// written back must read back as the same text.
YAML::Node yaml_text_node(const std::string& s);

/// Block-style YAML text of `root`, as yaml-cpp's emitter writes it with an indent of 2; short scalar
/// lists in flow style; originally quoted strings stay quoted.
std::string emit_yaml(const YAML::Node& root);
/// The same text written by yaml-cpp's emitter throughout: emit_yaml()'s fallback for keys it leaves to
/// yaml-cpp, and the reference it is tested against.
std::string emit_yaml_reference(const YAML::Node& root);

}  // namespace hetsched::io
