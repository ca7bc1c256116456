#include <catch2/catch.hpp>

#include <cstdint>

#include <hetsched/io/yaml_document.hpp>

using namespace hetsched;

TEST_CASE("yaml round trip keeps unknown keys, order and quoting", "[io]") {
    auto doc = io::parse_yaml({"d.yaml", "kind: job\nversion: 1\nzeta: {a: 1}\nname: \"007\"\nalpha: [1, 2]\n"});
    io::require_kind(doc, "job");
    doc.root["added"] = io::yaml_number_node(0.1);
    CHECK(io::emit_yaml(doc.root) ==
          "kind: job\nversion: 1\nzeta: {a: 1}\nname: \"007\"\nalpha: [1, 2]\nadded: 0.1\n");
}

TEST_CASE("yaml errors say where and what", "[io]") {
    CHECK_THROWS_AS(io::parse_yaml({"d.yaml", "a: [1, 2\n"}), DataError);
    CHECK_THROWS_AS(io::parse_yaml({"d.yaml", ""}), DataError);
    CHECK_THROWS_AS(io::parse_yaml({"d.yaml", "- 1\n"}), DataError);
    auto doc = io::parse_yaml({"d.yaml", "kind: cluster-state\nversion: 1\nx: abc\n"});
    try {
        io::require_kind(doc, "job");
        FAIL("expected an error");
    } catch (const DataError& e) {
        CHECK(std::string(e.what()) == "expected a document of kind 'job', got 'cluster-state'");
        CHECK(e.pos().line == 1);
        CHECK(e.pos().col == 7);
    }
    CHECK_THROWS_WITH(io::yaml_number(doc, doc.root["x"], "x", 0, 1), "expected a number from 0 to 1 for 'x', got 'abc'");
    CHECK_THROWS_WITH(io::required_child(doc, doc.root, "y"), "missing key 'y'");
    // A key one character off the missing one is named, at its own place.
    auto slip = io::parse_yaml({"d.yaml", "kind: job\ntrainig:\n  seq_len: 8\n"});
    try {
        io::required_child(slip, slip.root, "training");
        FAIL("expected an error");
    } catch (const DataError& e) {
        CHECK(std::string(e.what()) == "missing key 'training': 'trainig' looks mistyped for it");
        CHECK(e.pos().line == 2);
        CHECK(e.pos().col == 1);
    }
    CHECK_THROWS_WITH(io::required_child(slip, slip.root, "model"), "missing key 'model'");
}

TEST_CASE("yaml numbers are finite and inside the field's range", "[io]") {
    auto doc = io::parse_yaml({"d.yaml", "a: .nan\nb: .inf\nc: 1e308\nd: 2147483648\ne: 8.0\nf: [1]\n"});
    CHECK_THROWS_WITH(io::yaml_number(doc, doc.root["a"], "a", 0, 1), "expected a number from 0 to 1 for 'a', got '.nan'");
    CHECK_THROWS_AS(io::yaml_number(doc, doc.root["b"], "b", -1e300, 1e300), DataError);
    CHECK_THROWS_WITH(io::yaml_number(doc, doc.root["c"], "c", 0, 1e6), "expected a number from 0 to 1000000 for 'c', got '1e308'");
    CHECK_THROWS_WITH(io::yaml_integer(doc, doc.root["d"], "d", 1, 1024), "expected an integer from 1 to 1024 for 'd', got '2147483648'");
    CHECK(io::yaml_integer(doc, doc.root["e"], "e", 1, 10) == 8);
    CHECK_THROWS_WITH(io::yaml_integer(doc, doc.root["f"], "f", 1, 10), "expected an integer from 1 to 10 for 'f', got a list");
}

TEST_CASE("yaml documents are bounded: one document, unique keys, limited alias expansion", "[io]") {
    CHECK_THROWS_WITH(io::parse_yaml({"d.yaml", "a: 1\na: 2\n"}), Catch::Contains("duplicate key 'a'"));
    CHECK_THROWS_WITH(io::parse_yaml({"d.yaml", "a: 1\n---\nb: 2\n"}), Catch::Contains("one YAML document"));
    std::string bomb = "a: &a [x,x,x,x,x,x,x,x,x,x]\n";
    for (char c = 'b'; c <= 'i'; ++c)
        bomb += std::string(1, c) + ": &" + c + " [" + std::string("*") + char(c - 1) + ",*" + char(c - 1) + ",*" +
                char(c - 1) + ",*" + char(c - 1) + ",*" + char(c - 1) + ",*" + char(c - 1) + "]\n";
    CHECK_THROWS_AS(io::parse_yaml({"d.yaml", bomb}), DataError);
    CHECK_NOTHROW(io::parse_yaml({"d.yaml", "a: &x [1, 2]\nb: *x\n"}));
}

TEST_CASE("yaml documents nest at most max_depth deep, and aliases must name an earlier anchor", "[io]") {
    const std::string deep = "a: " + std::string(300, '[') + std::string(300, ']') + "\n";
    CHECK_THROWS_WITH(io::parse_yaml({"d.yaml", deep}), Catch::Contains("nests deeper than 200"));
    CHECK_THROWS_WITH(io::parse_yaml({"d.yaml", "a: *nothing\n"}), "alias '*nothing' names no anchor before it");
    try {
        io::parse_yaml({"d.yaml", "a: 1\nb: [1, 2\n"});
        FAIL("expected an error");
    } catch (const DataError& e) {
        CHECK(std::string(e.what()).rfind("invalid YAML: ", 0) == 0);
        CHECK(e.pos().line == 3);
    }
    try {
        io::parse_yaml({"d.yaml", "a: 1\nb: x\x01y\n"});  // the reader's errors come as a byte offset
        FAIL("expected an error");
    } catch (const DataError& e) {
        CHECK(e.pos().line == 2);
        CHECK(e.pos().col == 5);
    }
}

TEST_CASE("yaml parsing gives yaml-cpp's nodes: nulls, quoted tags, styles, aliases and marks", "[io]") {
    const std::string text =
        "kind: job\nnone: ~\nempty:\nword: null\nquoted: \"null\"\nsingle: 'x'\nflow: {a: 1, b: [2, 3]}\n"
        "list:\n  - &p {x: 1}\n  - *p\n  - - 4\n    - 5\nblock: |\n  two\n  lines\n";
    const auto doc = io::parse_yaml({"d.yaml", text});
    const YAML::Node loaded = YAML::Load(text);
    CHECK(io::emit_yaml_reference(doc.root) == io::emit_yaml_reference(loaded));
    CHECK(doc.root["none"].IsNull());
    CHECK(doc.root["empty"].IsNull());
    CHECK(doc.root["word"].IsNull());
    CHECK(doc.root["quoted"].Scalar() == "null");
    CHECK(doc.root["quoted"].Tag() == "!");
    CHECK(doc.root["single"].Tag() == "!");
    CHECK(doc.root["kind"].Tag() == "?");
    CHECK(doc.root["flow"].Style() == YAML::EmitterStyle::Flow);
    CHECK(doc.root["list"][1]["x"].Scalar() == "1");
    CHECK(doc.root["block"].Scalar() == "two\nlines\n");
    const SourcePos at = doc.where(doc.root["flow"]["b"][1]);
    CHECK(at.line == 7);
    CHECK(at.col == 21);
    CHECK(doc.where(doc.root["list"][2]).line == 11);
}

TEST_CASE("an alias is a copy of what its anchor names, marked where the alias stands", "[io]") {
    auto doc = io::parse_yaml({"d.yaml", "model: &m {name: x, layers: [1, 2]}\nextra: *m\nword: &w a\nagain: *w\n"});
    // A tool rewriting the anchored section leaves the key that repeats it as written.
    doc.root["model"] = YAML::Node(YAML::NodeType::Map);
    doc.root["model"]["name"] = "y";
    doc.root["word"] = "b";
    CHECK(doc.root["extra"]["name"].Scalar() == "x");
    CHECK(doc.root["extra"]["layers"][1].Scalar() == "2");
    CHECK(doc.root["again"].Scalar() == "a");
    CHECK(doc.where(doc.root["extra"]).line == 2);
    CHECK(doc.where(doc.root["extra"]).col == 8);
    CHECK(doc.where(doc.root["extra"]["layers"]).line == 1);  // what it copies, where that was written
}

TEST_CASE("emit_yaml writes what yaml-cpp's emitter writes", "[io]") {
    const char* documents[] = {
        "a: 1\nb: {c: [1, 2], d: {}}\ne: []\nf:\n  g: h\n  i:\n    - 1\n    - {j: k}\n    - [l, m]\n    - - n\n      - o: p\n",
        "plans:\n  - rank: 1\n    gpus: [{gpu: A100, n: 4}]\n    nested:\n      deeper: ~\n  - rank: 2\n",
        "long: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]\nmixed: [1, [2], {a: b}]\n",
        "\"quoted key\": 1\nweird: \"a\\tb\"\nspace: 'a b'\ncolon: 'a: b'\nhash: 'a #b'\ndash: '-'\n",
        "? [complex, key]\n: value\n",
        "unicode: \"caf\\u00e9\"\nnullword: 'Null'\nempty: ''\nlead: ' x'\n",
    };
    for (const char* d : documents) {
        INFO(d);
        const auto doc = io::parse_yaml({"d.yaml", d});
        CHECK(io::emit_yaml(doc.root) == io::emit_yaml_reference(doc.root));
    }
    // Scalars from the writer's own character set and beyond it, plain and quoted, in block and flow context.
    const std::string alphabet = "aZ09_./+-()= :#,[]{}\"'\\!&*?|>%@`~\t";
    std::uint32_t seed = 12345;
    for (int i = 0; i < 3000; ++i) {
        std::string s;
        const int len = static_cast<int>((seed = seed * 1664525u + 1013904223u) >> 28);
        for (int k = 0; k < len; ++k) s += alphabet[((seed = seed * 1664525u + 1013904223u) >> 16) % alphabet.size()];
        YAML::Node root(YAML::NodeType::Map);
        root["v"] = s;
        root["q"] = s;
        root["q"].SetTag("!");
        root["l"].push_back(s);
        root["m"]["k"] = s;
        root["m"].SetStyle(YAML::EmitterStyle::Flow);
        INFO("scalar '" << s << "'");
        CHECK(io::emit_yaml(root) == io::emit_yaml_reference(root));
    }
}

namespace {

/// A random tree of maps, lists (some long, some flow) and scalars, for comparing the emitters.
YAML::Node random_tree(std::uint32_t& seed, int depth) {
    auto draw = [&seed](std::uint32_t n) { return ((seed = seed * 1664525u + 1013904223u) >> 16) % n; };
    const std::uint32_t kind = depth == 0 ? 0 : draw(4);
    if (kind == 0) {
        const char* words[] = {"1", "x", "a b", "", "~", "-1.5e+20", "é", "a: b"};
        YAML::Node s(words[draw(8)]);
        if (draw(5) == 0) s.SetTag("!");
        return draw(9) == 0 ? YAML::Node(YAML::NodeType::Null) : s;
    }
    YAML::Node n(kind == 1 ? YAML::NodeType::Sequence : YAML::NodeType::Map);
    const std::uint32_t size = draw(3) == 0 ? draw(20) : draw(4);
    for (std::uint32_t i = 0; i < size; ++i) {
        if (kind == 1)
            n.push_back(random_tree(seed, depth - 1));
        else
            n["k" + std::to_string(i)] = random_tree(seed, depth - 1);
    }
    if (kind == 3) n.SetStyle(YAML::EmitterStyle::Flow);
    return n;
}

}  // namespace

TEST_CASE("emit_yaml writes random trees as yaml-cpp's emitter does", "[io]") {
    std::uint32_t seed = 7;
    for (int i = 0; i < 2000; ++i) {
        YAML::Node root(YAML::NodeType::Map);
        root["top"] = random_tree(seed, 4);
        root["list"].push_back(random_tree(seed, 3));
        INFO(io::emit_yaml_reference(root));
        REQUIRE(io::emit_yaml(root) == io::emit_yaml_reference(root));
    }
}

TEST_CASE("yaml anchors: a later anchor of the same name wins, and an alias may not contain itself", "[io]") {
    const std::string text = "a: &x {k: &x 1, j: *x}\nb: *x\n";
    const auto doc = io::parse_yaml({"d.yaml", text});
    CHECK(io::emit_yaml(doc.root) == io::emit_yaml(YAML::Load(text)));
    CHECK(doc.root["b"].Scalar() == "1");
    CHECK_THROWS_WITH(io::parse_yaml({"d.yaml", "y: &a [*a]\n"}), Catch::Contains("contains it"));
    CHECK(io::parse_yaml({"d.yaml", "n: ~\n"}).root["n"].Tag().empty());
}

TEST_CASE("a name that would read back as a number, boolean, null or date is written quoted", "[yaml]") {
    for (const std::string w : {"true", "yes", "on", "N", "123", "0x1F", "1e3", ".inf", "-.nan", "null", "~", "0o17", "0b1010",
                               "1_000", "1:20", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10 Z",
                               "2001-12-14 21:59:43.10 -5"}) {
        YAML::Node root(YAML::NodeType::Map);
        root[io::yaml_text_node(w)] = "v";
        INFO(w);
        CHECK(io::emit_yaml(root) == "\"" + w + "\": v\n");
    }
    for (const std::string w : {"plain", "A100-80GB", "node-1", "yes-sir", "12a", "2001-12-1", "2001-12-14-a"}) {
        YAML::Node root(YAML::NodeType::Map);
        root[io::yaml_text_node(w)] = "v";
        INFO(w);
        CHECK(io::emit_yaml(root) == w + ": v\n");
    }
}
