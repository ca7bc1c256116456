#include <hetsched/io/yaml_document.hpp>

#include <cerrno>
#include <cmath>
#include <cctype>
#include <cstdlib>
#include <regex>
#include <set>

#include <hetsched/io/names.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/io/number_range.hpp>

namespace hetsched::io {

SourcePos YamlDocument::where(const YAML::Node& node) const {
    YAML::Mark m = node.Mark();
    if (m.is_null()) return {name, 0, 0};
    return {name, m.line + 1, m.column + 1};
}

void require_kind(const YamlDocument& doc, const std::string& kind) {
    YAML::Node k = doc.root["kind"];
    if (!k) throw DataError("missing 'kind:' (expected 'kind: " + kind + "')", {doc.name, 1, 1});
    std::string got = yaml_string(doc, k, "kind");
    if (got != kind) throw DataError("expected a document of kind '" + kind + "', got '" + got + "'", doc.where(k));
    require_version(doc);
}

void require_version(const YamlDocument& doc) {
    YAML::Node v = doc.root["version"];
    if (!v) throw DataError("missing 'version:' (expected 'version: 1')", {doc.name, 1, 1});
    if (!v.IsScalar() || v.Scalar() != "1")
        throw DataError("unsupported version '" + v.Scalar() + "' (this release reads version 1)", doc.where(v));
}

YAML::Node optional_child(const YamlDocument& doc, const YAML::Node& map, const std::string& key) {
    if (!map.IsMap()) throw DataError("expected a mapping", doc.where(map));
    // yaml-cpp's map[key] converts every key it passes to a fresh string; comparing the scalars in
    // place takes a third of the time on memest's plan lists.
    for (const auto& kv : map) {
        if (!kv.first.IsScalar() || kv.first.Scalar() != key) continue;
        if (kv.second.IsNull()) break;
        return kv.second;
    }
    return YAML::Node(YAML::NodeType::Undefined);
}

void warn_near_miss_keys(const YamlDocument& doc, const YAML::Node& map, const std::vector<std::string>& known,
                         const std::string& not_read, std::vector<std::string>& out) {
    if (!map.IsMap()) return;
    for (const auto& kv : map)
        if (std::string w = near_miss_warning(kv.first.Scalar(), known, doc.where(kv.first), "key", not_read); !w.empty())
            out.push_back(std::move(w));
}

YAML::Node required_child(const YamlDocument& doc, const YAML::Node& map, const std::string& key) {
    YAML::Node child = optional_child(doc, map, key);
    if (child.IsDefined()) return child;
    // A key one character off the missing one is where to look (trainig: for training:).
    for (const auto& kv : map)
        if (kv.first.IsScalar() && kv.first.Scalar() != key && !likely_slip(kv.first.Scalar(), {key}).empty())
            throw DataError("missing key '" + key + "': '" + kv.first.Scalar() + "' looks mistyped for it",
                            doc.where(kv.first));
    throw DataError("missing key '" + key + "'", doc.where(map));
}

namespace {

/// What came where a number was expected, as a message shows it.
std::string came(const YAML::Node& node) {
    if (!node.IsScalar()) return node.IsMap() ? "a mapping" : node.IsSequence() ? "a list" : "nothing";
    return "'" + shown_value(node.Scalar()) + "'";
}

}  // namespace

double yaml_number(const YamlDocument& doc, const YAML::Node& node, const std::string& what, double lo, double hi) {
    const std::optional<double> v = node.IsScalar() ? parse_finite(node.Scalar()) : std::nullopt;
    if (!v || *v < lo || *v > hi)
        throw DataError(expected_number(lo, hi) + " for '" + what + "', got " + came(node), doc.where(node));
    return *v;
}

long yaml_integer(const YamlDocument& doc, const YAML::Node& node, const std::string& what, long lo, long hi) {
    const std::optional<long> v = node.IsScalar() ? parse_whole(node.Scalar(), lo, hi) : std::nullopt;
    if (!v) throw DataError(expected_integer(lo, hi) + " for '" + what + "', got " + came(node), doc.where(node));
    return *v;
}

bool yaml_bool(const YamlDocument& doc, const YAML::Node& node, const std::string& what) {
    if (node.IsScalar()) {
        const std::string& s = node.Scalar();
        if (s == "true" || s == "yes" || s == "1" || s == "True") return true;
        if (s == "false" || s == "no" || s == "0" || s == "False") return false;
    }
    throw DataError("expected true or false for '" + what + "'" + (node.IsScalar() ? ", got '" + node.Scalar() + "'" : ""),
                    doc.where(node));
}

std::string yaml_string(const YamlDocument& doc, const YAML::Node& node, const std::string& what) {
    if (!node.IsScalar()) throw DataError("expected a string for '" + what + "'", doc.where(node));
    return node.Scalar();
}

YAML::Node yaml_number_node(double v) { return YAML::Node(format_number(v)); }

YAML::Node yaml_text_node(const std::string& s) {
    // YAML 1.1's booleans and nulls (what PyYAML and yaml-cpp's as<bool>() read), anything strtod reads
    // whole (decimal, hex, inf, nan), YAML's .inf and .nan, 1.2's 0o octals, and 1.1's numbers that
    // strtod does not read: 0b binaries, digits grouped by '_' (1_000), sexagesimals (1:20).
    static const std::set<std::string> words{"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
                                             "true", "True", "TRUE", "false", "False", "FALSE", "on", "On", "ON",
                                             "off", "Off", "OFF", "null", "Null", "NULL", "~", ""};
    static const std::set<std::string> dotted{".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN"};
    char* end = nullptr;
    if (!s.empty() && !std::isspace(static_cast<unsigned char>(s.front()))) std::strtod(s.c_str(), &end);
    const std::string unsigned_part = !s.empty() && (s.front() == '+' || s.front() == '-') ? s.substr(1) : s;
    const bool number_like = !unsigned_part.empty() && std::isdigit(static_cast<unsigned char>(unsigned_part.front())) &&
                             unsigned_part.find_first_not_of("0123456789_:.eE+-xXoObBabcdefABCDEF") == std::string::npos &&
                             (unsigned_part.find_first_of("_:") != std::string::npos || unsigned_part.rfind("0b", 0) == 0 ||
                              unsigned_part.rfind("0o", 0) == 0);
    // YAML 1.1's timestamps (2001-12-14, 2001-12-14t21:59:43.10-05:00), which PyYAML reads as dates.
    static const std::regex timestamp(
        "[0-9]{4}-[0-9]{2}-[0-9]{2}|"
        "[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(\\.[0-9]*)?"
        "([ \t]*(Z|[-+][0-9]{1,2}(:[0-9]{2})?))?");
    YAML::Node n(s);
    // The regex runs only on what could be a date: the writers call this for every name they write.
    const bool date_like = s.size() >= 10 && s[4] == '-' && std::isdigit(static_cast<unsigned char>(s[0]));
    if (words.count(s) || (end && *end == '\0') || dotted.count(unsigned_part) || number_like ||
        (date_like && std::regex_match(s, timestamp)))
        n.SetTag("!");
    return n;
}

}  // namespace hetsched::io
