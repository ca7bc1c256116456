#include <hetsched/io/yaml_limits.hpp>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <hetsched/cli/error.hpp>

namespace hetsched::io {
namespace {

/// Walks the parser's events once: counts nodes with aliases expanded, and remembers each mapping's
/// scalar keys.
class ShapeCheck : public YAML::EventHandler {
public:
    ShapeCheck(const TextInput& in, const YamlLimits& limits) : in_(in), limits_(limits) {}

    void OnDocumentStart(const YAML::Mark& mark) override {
        if (++documents_ > 1) fail("expected one YAML document, found another", mark);
    }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor, nullptr); }
    void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        const std::size_t n = anchor < sizes_.size() ? sizes_[anchor] : 1;
        key_or_value(mark, nullptr);
        alias_total_ += n;
        if (alias_total_ > limits_.max_alias_nodes)
            fail("aliases expand the document by more than " + std::to_string(limits_.max_alias_nodes) +
                     " nodes (each alias repeats what it names)",
                 mark);
        if (!stack_.empty()) stack_.back().nodes += n;
    }
    void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string& value) override {
        leaf(mark, anchor, &value);
    }
    void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value) override {
        open(mark, anchor, false);
    }
    void OnSequenceEnd() override { close(); }
    void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                    YAML::EmitterStyle::value) override {
        open(mark, anchor, true);
    }
    void OnMapEnd() override { close(); }

private:
    struct Frame {
        YAML::anchor_t anchor;
        bool map;
        std::size_t nodes = 1;      ///< this collection and everything under it, aliases expanded
        std::size_t children = 0;   ///< events directly inside (keys and values alternate in a map)
        std::set<std::string> keys;
    };

    const TextInput& in_;
    const YamlLimits& limits_;
    int documents_ = 0;
    std::size_t total_ = 0;        ///< nodes as written
    std::size_t alias_total_ = 0;  ///< nodes added by expanding aliases
    std::vector<Frame> stack_;
    std::vector<std::size_t> sizes_;  ///< expanded size of each anchor, by anchor id

    [[noreturn]] void fail(const std::string& what, const YAML::Mark& mark) const {
        throw DataError(what, {in_.name, mark.line + 1, mark.column + 1});
    }

    void remember(YAML::anchor_t anchor, std::size_t n) {
        if (anchor == YAML::NullAnchor) return;
        if (sizes_.size() <= anchor) sizes_.resize(anchor + 1, 1);
        sizes_[anchor] = n;
    }

    void add(std::size_t n, const YAML::Mark& mark) {
        total_ += n;
        if (total_ > limits_.max_nodes) fail("the document has more than " + std::to_string(limits_.max_nodes) + " nodes", mark);
        if (!stack_.empty()) stack_.back().nodes += n;
    }

    /// Records a scalar key of the enclosing mapping, refusing one it has seen.
    void key_or_value(const YAML::Mark& mark, const std::string* scalar) {
        if (stack_.empty()) return;
        Frame& f = stack_.back();
        const bool is_key = f.map && f.children % 2 == 0;
        ++f.children;
        if (is_key && scalar && !f.keys.insert(*scalar).second)
            fail("duplicate key '" + *scalar + "' in a mapping", mark);
    }

    void leaf(const YAML::Mark& mark, YAML::anchor_t anchor, const std::string* scalar) {
        key_or_value(mark, scalar);
        remember(anchor, 1);
        add(1, mark);
    }

    void open(const YAML::Mark& mark, YAML::anchor_t anchor, bool map) {
        key_or_value(mark, nullptr);
        total_ += 1;
        if (total_ > limits_.max_nodes) fail("the document has more than " + std::to_string(limits_.max_nodes) + " nodes", mark);
        stack_.push_back(Frame{anchor, map, 1, 0, {}});
    }

    void close() {
        Frame f = std::move(stack_.back());
        stack_.pop_back();
        remember(f.anchor, f.nodes);
        if (!stack_.empty()) {
            // The collection's own node was counted in total_ when it opened; its contents were
            // counted as they came. Only the parent's running size needs the whole.
            stack_.back().nodes += f.nodes;
        }
    }
};

}  // namespace

void check_yaml_shape(const TextInput& in, const YamlLimits& limits) {
    if (in.text.size() > limits.max_bytes)
        throw DataError("input of " + std::to_string(in.text.size()) + " bytes is larger than the " +
                            std::to_string(limits.max_bytes) + " bytes a YAML document may have",
                        {in.name, 0, 0});
    std::istringstream stream(in.text);
    YAML::Parser parser(stream);
    ShapeCheck check(in, limits);
    try {
        while (parser.HandleNextDocument(check)) {
        }
    } catch (const YAML::ParserException&) {
        // Syntax errors are reported by the loader that follows, with its own message and position.
    }
}

}  // namespace hetsched::io
