/// parse_yaml(): libyaml's event parser builds the yaml-cpp node tree directly, in one pass that also
/// enforces YamlLimits. yaml-cpp's own loader scans about ten times slower than libyaml and was most of
/// a tool's time on large documents (memest's 46,245 plans: 1.6 s to load, another 1.0 s to check).
#include <yaml.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <hetsched/io/yaml_document.hpp>
#include <hetsched/io/yaml_limits.hpp>

namespace hetsched::io {
namespace {

// yaml-cpp builds nodes with source marks only through its private NodeBuilder; the public Node API
// has no way to set a mark. Explicit instantiation may name private members (C++17 [temp.explicit]/14),
// which gives this file the node and memory behind a YAML::Node, as NodeBuilder itself uses them.
template <typename Tag, typename Tag::type Member>
struct Expose {
    friend typename Tag::type member(Tag) { return Member; }
};
struct NodeOf {
    using type = YAML::detail::node* YAML::Node::*;
    friend type member(NodeOf);
};
struct MemoryOf {
    using type = YAML::detail::shared_memory_holder YAML::Node::*;
    friend type member(MemoryOf);
};
template struct Expose<NodeOf, &YAML::Node::m_pNode>;
template struct Expose<MemoryOf, &YAML::Node::m_pMemory>;

/// yaml-cpp reads these plain scalars as null.
bool null_text(std::string_view s) { return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL"; }

std::string_view text_of(const yaml_char_t* s, std::size_t n) { return {reinterpret_cast<const char*>(s), n}; }
std::string text_of(const yaml_char_t* s) { return s ? reinterpret_cast<const char*>(s) : ""; }

/// Owns a libyaml parser and the event it last produced.
class EventStream {
public:
    explicit EventStream(const std::string& text) {
        yaml_parser_initialize(&parser_);
        yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    }
    ~EventStream() {
        if (have_event_) yaml_event_delete(&event_);
        yaml_parser_delete(&parser_);
    }
    EventStream(const EventStream&) = delete;
    EventStream& operator=(const EventStream&) = delete;

    /// The next event; false on a syntax error (then parser() says what and where).
    bool next() {
        if (have_event_) yaml_event_delete(&event_);
        have_event_ = yaml_parser_parse(&parser_, &event_) != 0;
        return have_event_;
    }
    const yaml_event_t& event() const { return event_; }
    const yaml_parser_t& parser() const { return parser_; }

private:
    yaml_parser_t parser_;
    yaml_event_t event_;
    bool have_event_ = false;
};

/// Builds the tree from the events, counting nodes (aliases expanded) and refusing repeated keys.
class TreeBuilder {
public:
    TreeBuilder(const TextInput& in, const YamlLimits& limits)
        : in_(in), limits_(limits), root_(YAML::NodeType::Null), memory_(root_.*member(MemoryOf{})) {}

    YAML::Node build() {
        EventStream events(in_.text);
        for (;;) {
            if (!events.next()) syntax_error(events.parser());
            const yaml_event_t& e = events.event();
            switch (e.type) {
            case YAML_STREAM_END_EVENT: return root_;
            case YAML_DOCUMENT_START_EVENT:
                if (++documents_ > 1) fail("expected one YAML document, found another", e.start_mark);
                break;
            case YAML_ALIAS_EVENT: alias(e); break;
            case YAML_SCALAR_EVENT: scalar(e); break;
            case YAML_SEQUENCE_START_EVENT:
                open(e, e.data.sequence_start.anchor, e.data.sequence_start.tag, YAML::NodeType::Sequence,
                     e.data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE);
                break;
            case YAML_MAPPING_START_EVENT:
                open(e, e.data.mapping_start.anchor, e.data.mapping_start.tag, YAML::NodeType::Map,
                     e.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE);
                break;
            case YAML_SEQUENCE_END_EVENT:
            case YAML_MAPPING_END_EVENT: close(); break;
            default: break;
            }
        }
    }

private:
    struct Frame {
        YAML::detail::node* node;
        bool map;
        std::string anchor;
        std::size_t nodes = 1;                  ///< this collection and everything under it, aliases expanded
        YAML::detail::node* key = nullptr;      ///< a mapping's key waiting for its value
        std::unordered_set<std::string_view> keys;  ///< a mapping's scalar keys so far
    };
    struct Anchor {
        YAML::detail::node* node;
        std::size_t nodes;  ///< what an alias of it adds, aliases expanded
        bool open;          ///< a collection still being read: an alias inside it would contain itself
    };

    const TextInput& in_;
    const YamlLimits& limits_;
    YAML::Node root_;
    YAML::detail::shared_memory_holder memory_;
    bool have_root_ = false;
    int documents_ = 0;
    std::size_t total_ = 0;        ///< nodes as written
    std::size_t alias_total_ = 0;  ///< nodes added by expanding aliases
    std::vector<Frame> stack_;
    std::unordered_map<std::string, Anchor> anchors_;

    [[noreturn]] void fail(const std::string& what, const yaml_mark_t& mark) const {
        throw DataError(what, {in_.name, static_cast<int>(mark.line) + 1, static_cast<int>(mark.column) + 1});
    }

    [[noreturn]] void syntax_error(const yaml_parser_t& p) const {
        std::string what = "invalid YAML: " + text_of(reinterpret_cast<const yaml_char_t*>(p.problem));
        if (p.context)
            what += " (" + text_of(reinterpret_cast<const yaml_char_t*>(p.context)) + " at line " +
                    std::to_string(p.context_mark.line + 1) + ", column " + std::to_string(p.context_mark.column + 1) + ")";
        if (p.error == YAML_READER_ERROR) {
            // The reader reports a byte offset, not a line and column.
            yaml_mark_t mark{};
            for (std::size_t i = 0; i < p.problem_offset && i < in_.text.size(); ++i) {
                if (in_.text[i] == '\n') {
                    ++mark.line;
                    mark.column = 0;
                } else {
                    ++mark.column;
                }
            }
            fail(what, mark);
        }
        fail(what, p.problem_mark);
    }

    /// A fresh node marked at `mark`, or the root for the document's first node.
    YAML::detail::node& make(const yaml_mark_t& mark) {
        YAML::detail::node& n = have_root_ ? memory_->create_node() : *(root_.*member(NodeOf{}));
        have_root_ = true;
        YAML::Mark m;
        m.pos = static_cast<int>(mark.index);
        m.line = static_cast<int>(mark.line);
        m.column = static_cast<int>(mark.column);
        n.set_mark(m);
        return n;
    }

    void count(std::size_t n, const yaml_mark_t& mark) {
        total_ += n;
        if (total_ > limits_.max_nodes) fail("the document has more than " + std::to_string(limits_.max_nodes) + " nodes", mark);
    }

    /// Hangs `n` under the open collection; `scalar` is its text when it may be a mapping's key.
    void attach(YAML::detail::node& n, const std::string* scalar, std::size_t nodes, const yaml_mark_t& mark) {
        if (stack_.empty()) return;
        Frame& f = stack_.back();
        f.nodes += nodes;
        if (!f.map) {
            f.node->push_back(n, memory_);
            return;
        }
        if (!f.key) {
            if (scalar && !f.keys.insert(*scalar).second) fail("duplicate key '" + *scalar + "' in a mapping", mark);
            f.key = &n;
            return;
        }
        f.node->insert(*f.key, n, memory_);
        f.key = nullptr;
    }

    /// A later anchor of the same name replaces an earlier one, as YAML has it.
    void remember(const yaml_char_t* anchor, YAML::detail::node& n, std::size_t nodes, bool open = false) {
        if (anchor) anchors_[text_of(anchor)] = {&n, nodes, open};
    }

    void scalar(const yaml_event_t& e) {
        const auto& s = e.data.scalar;
        const std::string_view value = text_of(s.value, s.length);
        YAML::detail::node& n = make(e.start_mark);
        const bool plain = s.style == YAML_PLAIN_SCALAR_STYLE;
        if (plain && !s.tag && null_text(value)) {
            n.set_null();
        } else {
            n.set_scalar(std::string(value));
            // As yaml-cpp tags them: "!" keeps a quoted scalar quoted when the document is written back.
            n.set_tag(s.tag ? text_of(s.tag) : plain ? "?" : "!");
        }
        count(1, e.start_mark);
        remember(s.anchor, n, 1);
        attach(n, n.type() == YAML::NodeType::Scalar ? &n.scalar() : nullptr, 1, e.start_mark);
    }

    void alias(const yaml_event_t& e) {
        const auto it = anchors_.find(text_of(e.data.alias.anchor));
        if (it == anchors_.end())
            fail("alias '*" + text_of(e.data.alias.anchor) + "' names no anchor before it", e.start_mark);
        if (it->second.open)
            fail("alias '*" + text_of(e.data.alias.anchor) + "' refers to a collection that contains it", e.start_mark);
        alias_total_ += it->second.nodes;
        if (alias_total_ > limits_.max_alias_nodes)
            fail("aliases expand the document by more than " + std::to_string(limits_.max_alias_nodes) +
                     " nodes (each alias repeats what it names)",
                 e.start_mark);
        if (!have_root_) fail("expected a document, found only an alias", e.start_mark);
        // A copy, marked where the alias stands: a tool that completes or rewrites what the anchor names
        // (memest's model:, schedround's placement:) must leave a key that repeats it as written.
        YAML::detail::node& n = copy(*it->second.node);
        YAML::Mark m = n.mark();
        m.pos = static_cast<int>(e.start_mark.index);
        m.line = static_cast<int>(e.start_mark.line);
        m.column = static_cast<int>(e.start_mark.column);
        n.set_mark(m);
        attach(n, n.type() == YAML::NodeType::Scalar ? &n.scalar() : nullptr, it->second.nodes, e.start_mark);
    }

    /// `src` and everything under it as new nodes, each marked where its original is.
    YAML::detail::node& copy(const YAML::detail::node& src) {
        YAML::detail::node& n = memory_->create_node();
        n.set_mark(src.mark());
        switch (src.type()) {
        case YAML::NodeType::Scalar:
            n.set_scalar(src.scalar());
            n.set_tag(src.tag());
            break;
        case YAML::NodeType::Sequence:
        case YAML::NodeType::Map:
            n.set_type(src.type());
            n.set_tag(src.tag());
            n.set_style(src.style());
            for (auto it = src.begin(); it != src.end(); ++it) {
                const auto v = *it;
                if (src.type() == YAML::NodeType::Sequence)
                    n.push_back(copy(*v.pNode), memory_);
                else
                    n.insert(copy(*v.first), copy(*v.second), memory_);
            }
            break;
        default: n.set_null(); break;
        }
        return n;
    }

    void open(const yaml_event_t& e, const yaml_char_t* anchor, const yaml_char_t* tag, YAML::NodeType::value type,
              bool flow) {
        if (stack_.size() >= limits_.max_depth)
            fail("the document nests deeper than " + std::to_string(limits_.max_depth) + " levels", e.start_mark);
        YAML::detail::node& n = make(e.start_mark);
        n.set_type(type);
        n.set_tag(tag ? text_of(tag) : "?");
        n.set_style(flow ? YAML::EmitterStyle::Flow : YAML::EmitterStyle::Block);
        count(1, e.start_mark);
        attach(n, nullptr, 0, e.start_mark);
        remember(anchor, n, 0, true);
        stack_.push_back(Frame{&n, type == YAML::NodeType::Map, anchor ? text_of(anchor) : std::string(), 1, nullptr, {}});
    }

    void close() {
        Frame f = std::move(stack_.back());
        stack_.pop_back();
        if (!f.anchor.empty()) {  // unless a later anchor inside took the name
            const auto it = anchors_.find(f.anchor);
            if (it != anchors_.end() && it->second.node == f.node) it->second = {f.node, f.nodes, false};
        }
        // The collection's own node was counted when it opened; only the parent's running size needs the whole.
        if (!stack_.empty()) stack_.back().nodes += f.nodes;
    }
};

}  // namespace

YamlDocument parse_yaml(const TextInput& in, const YamlLimits& limits) {
    if (in.text.size() > limits.max_bytes)
        throw DataError("input of " + std::to_string(in.text.size()) + " bytes is larger than the " +
                            std::to_string(limits.max_bytes) + " bytes a YAML document may have",
                        {in.name, 0, 0});
    YamlDocument doc{in.name, TreeBuilder(in, limits).build()};
    if (!doc.root.IsDefined() || doc.root.IsNull())
        throw DataError("empty input: expected a YAML document", {in.name, 1, 1});
    if (!doc.root.IsMap()) throw DataError("expected a YAML mapping at the top level", doc.where(doc.root));
    return doc;
}

}  // namespace hetsched::io
