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
    CHECK_THROWS_WITH(io::yaml_number(doc, doc.root["x"], "x", 0, 1), "expected a number from 0 to 1 for 'x', got 'abc'");
    CHECK_THROWS_WITH(io::required_child(doc, doc.root, "y"), "missing key 'y'");
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
