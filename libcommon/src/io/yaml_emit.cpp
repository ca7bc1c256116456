/// emit_yaml(): the text yaml-cpp's emitter writes (indent 2), without its per-scalar regular
/// expressions, which made it about 1 µs a scalar (1.6 s for memest's 46,245 plans). Scalars whose
/// plainness is obvious from their characters are written here; any other scalar goes through
/// yaml-cpp's emitter alone, and a document with a key this writer does not handle goes through it whole.
#include <hetsched/io/yaml_document.hpp>

#include <string>

namespace hetsched::io {
namespace {

/// A list written in flow style: at most 16 items, all scalars.
bool scalar_list(const YAML::Node& n) {
    if (n.size() > 16) return false;
    for (const auto& c : n)
        if (!c.IsScalar()) return false;
    return true;
}

/// The whole document through yaml-cpp's emitter: what Writer reproduces, and its fallback.
void emit_reference(YAML::Emitter& out, const YAML::Node& n) {
    switch (n.Type()) {
    case YAML::NodeType::Scalar:
        if (n.Tag() == "!") out << YAML::DoubleQuoted;
        out << n.Scalar();
        break;
    case YAML::NodeType::Sequence:
        if (scalar_list(n)) out << YAML::Flow;
        out << YAML::BeginSeq;
        for (const auto& c : n) emit_reference(out, c);
        out << YAML::EndSeq;
        break;
    case YAML::NodeType::Map:
        if (n.Style() == YAML::EmitterStyle::Flow) out << YAML::Flow;
        out << YAML::BeginMap;
        for (const auto& kv : n) {
            out << YAML::Key;
            emit_reference(out, kv.first);
            out << YAML::Value;
            emit_reference(out, kv.second);
        }
        out << YAML::EndMap;
        break;
    default:
        out << YAML::Null;
    }
}

/// True when yaml-cpp writes `s` plain in block and flow context alike, judged from a conservative
/// character set: letters, digits, `_./+-()=` and inner spaces, not starting with "- " and not a null word.
bool plainly_plain(const std::string& s) {
    if (s.empty() || s.front() == ' ' || s.back() == ' ') return false;
    if (s.front() == '-' && (s.size() == 1 || s[1] == ' ')) return false;
    for (const char c : s) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                        c == '.' || c == '/' || c == '+' || c == '-' || c == '(' || c == ')' || c == '=' || c == ' ';
        if (!ok) return false;
    }
    return s != "null" && s != "Null" && s != "NULL";
}

/// True when yaml-cpp double-quotes `s` without escapes: printable ASCII other than `"` and `\`.
bool plainly_quotable(const std::string& s) {
    for (const char c : s)
        if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return false;
    return true;
}

/// One scalar as yaml-cpp writes it as a value in block or flow context (`{k: s}`, less the frame).
std::string reference_scalar(const std::string& s, bool quoted, bool flow) {
    YAML::Emitter e;
    if (flow) e << YAML::Flow;
    e << YAML::BeginMap << YAML::Key << "k" << YAML::Value;
    if (quoted) e << YAML::DoubleQuoted;
    e << s << YAML::EndMap;
    const std::string text = e.c_str();
    return flow ? text.substr(4, text.size() - 5) : text.substr(3);
}

/// Thrown when a document has what Writer leaves to yaml-cpp: a key that is not a short plain or plainly
/// quoted scalar, or a lone scalar as the whole document.
struct Unhandled {};

class Writer {
public:
    std::string text;

    void document(const YAML::Node& root) {
        if (!root.IsMap() && !root.IsSequence()) throw Unhandled{};
        if (inline_node(root) || root.size() == 0) {
            flow(root);
            text += '\n';
        } else if (root.IsMap()) {
            block_map(root, 0, false);
        } else {
            block_seq(root, 0, false);
        }
    }

private:
    static bool inline_node(const YAML::Node& n) {
        if (n.IsMap()) return n.Style() == YAML::EmitterStyle::Flow;
        if (n.IsSequence()) return scalar_list(n);
        return true;
    }

    void scalar(const YAML::Node& n, bool flow) {
        if (!n.IsScalar()) {
            text += '~';
            return;
        }
        const std::string& s = n.Scalar();
        const bool quoted = n.Tag() == "!";
        if (quoted && plainly_quotable(s)) {
            text += '"';
            text += s;
            text += '"';
        } else if (!quoted && plainly_plain(s)) {
            text += s;
        } else {
            text += reference_scalar(s, quoted, flow);
        }
    }

    void key(const YAML::Node& k) {
        if (!k.IsScalar() || k.Scalar().size() > 1024) throw Unhandled{};
        const std::string& s = k.Scalar();
        if (k.Tag() == "!" ? !plainly_quotable(s) : !plainly_plain(s)) throw Unhandled{};
        scalar(k, false);
    }

    void flow(const YAML::Node& n) {
        if (n.IsSequence()) {
            text += '[';
            bool first = true;
            for (const auto& c : n) {
                if (!first) text += ", ";
                first = false;
                flow(c);
            }
            text += ']';
        } else if (n.IsMap()) {
            text += '{';
            bool first = true;
            for (const auto& kv : n) {
                if (!first) text += ", ";
                first = false;
                key(kv.first);
                text += ": ";
                flow(kv.second);
            }
            text += '}';
        } else {
            scalar(n, true);
        }
    }

    /// A block collection's item or value: on this line when inline, else on the lines below.
    void nested(const YAML::Node& n, int indent, bool after_dash) {
        if (inline_node(n)) {
            text += after_dash ? "" : " ";
            if (n.IsMap() || n.IsSequence())
                flow(n);
            else
                scalar(n, false);
            text += '\n';
        } else if (n.IsMap() && n.size() == 0) {  // an empty block mapping: "{}", on the next line after a key
            if (!after_dash) {
                text += '\n';
                text.append(static_cast<std::size_t>(indent), ' ');
            }
            text += "{}\n";
        } else if (n.IsMap()) {
            if (!after_dash) text += '\n';
            block_map(n, indent, after_dash);
        } else {
            text += '\n';
            block_seq(n, indent, false);
        }
    }

    void block_map(const YAML::Node& n, int indent, bool first_on_line) {
        for (const auto& kv : n) {
            if (!first_on_line) text.append(static_cast<std::size_t>(indent), ' ');
            first_on_line = false;
            key(kv.first);
            text += ':';
            nested(kv.second, indent + 2, false);
        }
    }

    void block_seq(const YAML::Node& n, int indent, bool first_on_line) {
        for (const auto& c : n) {
            if (!first_on_line) text.append(static_cast<std::size_t>(indent), ' ');
            first_on_line = false;
            if (c.IsSequence() && !inline_node(c)) {  // a block list in a list starts on the next line
                text += "-\n";
                block_seq(c, indent + 2, false);
                continue;
            }
            text += "- ";
            nested(c, indent + 2, true);
        }
    }
};

}  // namespace

std::string emit_yaml(const YAML::Node& root) {
    try {
        Writer w;
        w.document(root);
        return w.text;
    } catch (const Unhandled&) {
        return emit_yaml_reference(root);
    }
}

std::string emit_yaml_reference(const YAML::Node& root) {
    YAML::Emitter out;
    out.SetIndent(2);
    emit_reference(out, root);
    return std::string(out.c_str()) + "\n";
}

}  // namespace hetsched::io
