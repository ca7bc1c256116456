#include <catch2/catch.hpp>

#include <hetsched/io/csv_table.hpp>

using namespace hetsched;
using io::CsvTable;

TEST_CASE("csv reads columns by name with BOM, CRLF and quotes", "[io]") {
    auto t = CsvTable::parse({"t.csv", "\xEF\xBB\xBF" "a,b\r\n1,\"x,y\"\r\n\r\n2,z\r\n"});
    REQUIRE(t.rows() == 2);
    CHECK(t.require("a") == 0);
    CHECK(t.cell(0, t.require("b")).text == "x,y");
    CHECK(t.number(1, 0) == 2);
    CHECK(t.cell(1, 1).line == 4);
}

TEST_CASE("csv errors carry line and column", "[io]") {
    auto t = CsvTable::parse({"t.csv", "a,b\n1,2\n3,abc\n"});
    try {
        t.number(1, 1);
        FAIL("expected an error");
    } catch (const DataError& e) {
        CHECK(e.pos().line == 3);
        CHECK(e.pos().col == 3);
        CHECK(std::string(e.what()) == "expected a number in column 'b', got 'abc'");
    }
    CHECK_THROWS_WITH(t.require("c"), "missing column 'c' (columns are: a, b)");
    CHECK_THROWS_AS(CsvTable::parse({"t.csv", "a,b\n1\n"}), DataError);
    CHECK_THROWS_AS(CsvTable::parse({"t.csv", "a,b\n\"1,2\n"}), DataError);
    CHECK_THROWS_AS(CsvTable::parse({"t.csv", ""}), DataError);
    CHECK_THROWS_AS(t.integer(1, 1), DataError);
}

TEST_CASE("csv writer quotes only what needs it", "[io]") {
    io::CsvWriter w({"a", "b"});
    w.add_row({"x,y", "q\"r"});
    CHECK(w.text() == "a,b\n\"x,y\",\"q\"\"r\"\n");
}
