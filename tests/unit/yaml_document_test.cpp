#include <catch2/catch.hpp>

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
    CHECK_THROWS_WITH(io::yaml_number(doc, doc.root["x"], "x"), "expected a number for 'x', got 'abc'");
    CHECK_THROWS_WITH(io::required_child(doc, doc.root, "y"), "missing key 'y'");
}
