#include <hetsched/io/yaml_document.hpp>

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <hetsched/io/number_format.hpp>
#include <hetsched/io/number_range.hpp>
#include <hetsched/io/yaml_limits.hpp>

namespace hetsched::io {

SourcePos YamlDocument::where(const YAML::Node& node) const {
    YAML::Mark m = node.Mark();
    if (m.is_null()) return {name, 0, 0};
    return {name, m.line + 1, m.column + 1};
}

YamlDocument parse_yaml(const TextInput& in) {
    YamlDocument doc{in.name, {}};
    try {
        check_yaml_shape(in);
        doc.root = YAML::Load(in.text);
    } catch (const YAML::ParserException& e) {
        std::string msg = e.msg;
        if (!msg.empty()) msg[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(msg[0])));
        throw DataError("invalid YAML: " + msg, {in.name, e.mark.line + 1, e.mark.column + 1});
    }
    if (!doc.root.IsDefined() || doc.root.IsNull())
        throw DataError("empty input: expected a YAML document", {in.name, 1, 1});
    if (!doc.root.IsMap()) throw DataError("expected a YAML mapping at the top level", doc.where(doc.root));
    return doc;
}

void require_kind(const YamlDocument& doc, const std::string& kind) {
    YAML::Node k = doc.root["kind"];
    if (!k) throw DataError("missing 'kind:' (expected 'kind: " + kind + "')", {doc.name, 1, 1});
    std::string got = yaml_string(doc, k, "kind");
    if (got != kind) throw DataError("expected a document of kind '" + kind + "', got '" + got + "'", doc.where(k));
    YAML::Node v = doc.root["version"];
    if (!v) throw DataError("missing 'version:' (expected 'version: 1')", {doc.name, 1, 1});
    if (!v.IsScalar() || v.Scalar() != "1")
        throw DataError("unsupported version '" + v.Scalar() + "' (this release reads version 1)", doc.where(v));
}

YAML::Node optional_child(const YamlDocument& doc, const YAML::Node& map, const std::string& key) {
    if (!map.IsMap()) throw DataError("expected a mapping", doc.where(map));
    YAML::Node child = map[key];
    if (!child || child.IsNull()) return YAML::Node(YAML::NodeType::Undefined);
    return child;
}

YAML::Node required_child(const YamlDocument& doc, const YAML::Node& map, const std::string& key) {
    YAML::Node child = optional_child(doc, map, key);
    if (!child.IsDefined()) throw DataError("missing key '" + key + "'", doc.where(map));
    return child;
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

namespace {

bool scalar_list(const YAML::Node& n) {
    if (n.size() > 16) return false;
    for (const auto& c : n)
        if (!c.IsScalar()) return false;
    return true;
}

void emit(YAML::Emitter& out, const YAML::Node& n) {
    switch (n.Type()) {
    case YAML::NodeType::Scalar:
        if (n.Tag() == "!") out << YAML::DoubleQuoted;
        out << n.Scalar();
        break;
    case YAML::NodeType::Sequence:
        if (scalar_list(n)) out << YAML::Flow;
        out << YAML::BeginSeq;
        for (const auto& c : n) emit(out, c);
        out << YAML::EndSeq;
        break;
    case YAML::NodeType::Map:
        if (n.Style() == YAML::EmitterStyle::Flow) out << YAML::Flow;
        out << YAML::BeginMap;
        for (const auto& kv : n) {
            out << YAML::Key;
            emit(out, kv.first);
            out << YAML::Value;
            emit(out, kv.second);
        }
        out << YAML::EndMap;
        break;
    default:
        out << YAML::Null;
    }
}

}  // namespace

std::string emit_yaml(const YAML::Node& root) {
    YAML::Emitter out;
    out.SetIndent(2);
    emit(out, root);
    std::string text = out.c_str();
    return text + "\n";
}

}  // namespace hetsched::io
