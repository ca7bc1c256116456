#include <catch2/catch.hpp>

#include <hetsched/io/csv_table.hpp>

using namespace hetsched;
using io::CsvTable;

TEST_CASE("csv reads columns by name with BOM, CRLF and quotes", "[io]") {
    auto t = CsvTable::parse({"t.csv", "\xEF\xBB\xBF" "a,b\r\n1,\"x,y\"\r\n\r\n2,z\r\n"});
    REQUIRE(t.rows() == 2);
    CHECK(t.require("a") == 0);
    CHECK(t.cell(0, t.require("b")).text == "x,y");
    CHECK(t.number(1, 0, 0, 10) == 2);
    CHECK(t.cell(1, 1).line == 4);
}

TEST_CASE("csv rows whose first field begins with # are comments, whatever their width", "[io]") {
    auto t = CsvTable::parse({"t.csv", "a,b\n# measured 2026-11, on H100\n1,2\n#,,,\n3,4\n"});
    REQUIRE(t.rows() == 2);
    CHECK(t.cell(1, 0).text == "3");
    CHECK(t.cell(1, 0).line == 5);
    // Before the header, with quotes or commas of its own; a # inside a quoted field is data.
    auto c = CsvTable::parse({"c.csv", "\xEF\xBB\xBF# measured on \"h100\" nodes, 2026\r\na,b\r\n\"x\n#y\",1\r\n# \"\r\n2,3\r\n"});
    REQUIRE(c.rows() == 2);
    CHECK(c.cell(0, 0).text == "x\n#y");
    CHECK(c.cell(1, 1).line == 6);
    auto cr = CsvTable::parse({"cr.csv", "# old Mac line ends\ra,b\r1,2\r# x\r3,4\r"});  // CR alone ends lines too
    REQUIRE(cr.rows() == 2);
    CHECK(cr.cell(1, 1).text == "4");
    CHECK(t.boolean(0, 0));  // and 0/1 as spreadsheets and pandas write them
    CHECK(CsvTable::parse({"q.csv", "a\n\" 1\"\n"}).boolean(0, 0));  // a quoted cell with a space
    for (const char* yes : {"TRUE", "True", "yes", "1.0"}) CHECK(CsvTable::parse({"b.csv", std::string("a\n") + yes + "\n"}).boolean(0, 0));
    for (const char* no : {"FALSE", "No", "0.0", "false"}) CHECK_FALSE(CsvTable::parse({"b.csv", std::string("a\n") + no + "\n"}).boolean(0, 0));
    CHECK_THROWS_WITH(CsvTable::parse({"b.csv", "a\n2\n"}).boolean(0, 0), Catch::Contains("expected 0 or 1 (or true/false, yes/no)"));
}

TEST_CASE("a header written as a comment, as numpy.savetxt writes it, is told to be uncommented", "[io]") {
    auto t = CsvTable::parse({"p.csv", "# made by a script\n# gpu, layer,forward_s\nH100,0,0.1\n"});
    try {
        t.require("forward_s");
        FAIL("expected an error");
    } catch (const DataError& e) {
        CHECK(std::string(e.what()) ==
              "the header is commented out ('# gpu, layer,forward_s'): remove its '#' (numpy.savetxt: comments='')");
        CHECK(e.pos().line == 2);
    }
    // Told as the file is read where the first row, taken for the header, repeats a value.
    CHECK_THROWS_WITH(CsvTable::parse({"d.csv", "# a,b,c\n1,1,2\n"}), Catch::StartsWith("the header is commented out"));
    // A comment after the first row, or one naming no such column, is no header.
    CHECK_THROWS_WITH(CsvTable::parse({"q.csv", "a,b\n# gpu,layer\n1,2\n"}).require("gpu"),
                      Catch::Contains("(columns are: a, b)"));
    CHECK_THROWS_WITH(CsvTable::parse({"r.csv", "# layers\na,b\n"}).require("layer"), Catch::Contains("(columns are: a, b)"));
    // A real header below a comment that lists the columns: the column is missing from it, not commented.
    CHECK_THROWS_WITH(CsvTable::parse({"s.csv", "# columns: gpu, layer, forward_s, backward_s\ngpu,layer,forward_s\nA,0,1\n"})
                          .require("backward_s"),
                      Catch::StartsWith("missing column 'backward_s'"));
    CHECK_THROWS_WITH(CsvTable::parse({"t.csv", "# a,b,c\na,a,c\n"}), Catch::Contains("appears twice"));
    // The comment is read as a CSV row: a quoted name may hold a comma.
    CHECK_THROWS_WITH(CsvTable::parse({"v.csv", "# \"gpu, type\",layer\nH100,0\n"}).require("gpu, type"),
                      Catch::StartsWith("the header is commented out"));
    // Comments only: the last may be the header.
    try {
        CsvTable::parse({"u.csv", "# made by numpy\r# gpu,layer\r"});
        FAIL("expected an error");
    } catch (const DataError& e) {
        CHECK(std::string(e.what()) == "no header row: the last comment ('# gpu,layer') may be it, with its '#' removed");
        CHECK((e.pos().line == 1 && e.pos().col == 17));  // CR alone: one line, as the parser counts
    }
}

TEST_CASE("csv errors carry line and column", "[io]") {
    auto t = CsvTable::parse({"t.csv", "a,b\n1,2\n3,abc\n"});
    try {
        t.number(1, 1, 0, 10);
        FAIL("expected an error");
    } catch (const DataError& e) {
        CHECK(e.pos().line == 3);
        CHECK(e.pos().col == 3);
        CHECK(std::string(e.what()) == "expected a number from 0 to 10 in column 'b', got 'abc'");
    }
    CHECK_THROWS_WITH(t.require("c"), "missing column 'c' (columns are: a, b)");
    // A column one character off the missing one is named, at its place in the header.
    const auto slip = CsvTable::parse({"t.csv", "id,seqlen\n1,2\n"});
    try {
        slip.require("seq_len");
        FAIL("expected an error");
    } catch (const DataError& e) {
        CHECK(std::string(e.what()) == "missing column 'seq_len': 'seqlen' looks mistyped for it");
        CHECK(e.pos().line == 1);
        CHECK(e.pos().col == 4);
    }
    CHECK_THROWS_AS(CsvTable::parse({"t.csv", "a,b\n1\n"}), DataError);
    CHECK_THROWS_AS(CsvTable::parse({"t.csv", "a,b\n\"1,2\n"}), DataError);
    CHECK_THROWS_AS(CsvTable::parse({"t.csv", ""}), DataError);
    CHECK_THROWS_AS(t.integer(1, 1, 0, 10), DataError);
}

TEST_CASE("an empty field that ends its line is placed after the last comma", "[io]") {
    // "3," is columns 1-2; the empty third field starts at column 3 (the line's end), not at the "3".
    auto t = CsvTable::parse({"t.csv", "a,b,c\n1,2,3\n3,,\n"});
    CHECK(t.where(1, 1).col == 3);
    CHECK(t.where(1, 2).col == 4);
    CHECK(t.where(0, 2).col == 5);
}

TEST_CASE("a header names each column once", "[io]") {
    try {
        CsvTable::parse({"t.csv", "a,b, a\n1,2,3\n"});
        FAIL("expected an error");
    } catch (const DataError& e) {
        CHECK(std::string(e.what()) == "column 'a' appears twice (columns 1 and 3): expected one column of each name");
        CHECK(e.pos().line == 1);
        CHECK(e.pos().col == 5);
    }
    CHECK(CsvTable::parse({"t.csv", "a,,\n1,2,3\n"}).rows() == 1);  // unnamed columns are not names
}

TEST_CASE("csv numbers are finite, whole where counted, and inside the field's range", "[io]") {
    auto t = CsvTable::parse({"t.csv", "a,b,c,d,e,f,g\nnan,inf,1e308,9223372036854775808,0x10, 7 ,8.5\n"});
    for (int c : {0, 1, 4}) CHECK_THROWS_AS(t.number(0, c, -1e300, 1e300), DataError);
    CHECK(t.number(0, 2, 0, 1e308) == 1e308);
    CHECK_THROWS_WITH(t.number(0, 2, 0, 1e6), "expected a number from 0 to 1000000 in column 'c', got '1e308'");
    CHECK_THROWS_WITH(t.integer(0, 3, 1, 1L << 20),
                      "expected an integer from 1 to 1048576 in column 'd', got '9223372036854775808'");
    CHECK(t.integer(0, 5, 1, 10) == 7);
    CHECK_THROWS_AS(t.integer(0, 6, 1, 10), DataError);
    CHECK(t.positive(0, 6, 10) == 8.5);
    CHECK_THROWS_WITH(t.positive(0, 6, 1), "expected a positive number up to 1 in column 'g', got '8.5'");
}

TEST_CASE("csv writer quotes only what needs it", "[io]") {
    io::CsvWriter w({"a", "b"});
    w.add_row({"x,y", "q\"r"});
    CHECK(w.text() == "a,b\n\"x,y\",\"q\"\"r\"\n");
}

TEST_CASE("a row of the wrong width is placed where it ends, or at its first field too many", "[io]") {
    auto where = [](const std::string& text) {
        try {
            CsvTable::parse({"t.csv", text});
        } catch (const DataError& e) {
            return std::to_string(e.pos().line) + ":" + std::to_string(e.pos().col) + ": " + e.what();
        }
        return std::string("no error");
    };
    CHECK(where("a,b,c\n1,22\n") == "2:5: expected 3 fields as in the header, got 2");
    CHECK(where("a,b,c\n1,22") == "2:5: expected 3 fields as in the header, got 2");  // no line break at the end
    CHECK(where("a,b,c\r\n1,22\r\n") == "2:5: expected 3 fields as in the header, got 2");
    CHECK(where("a,b\n1,2\n1,\"x\ny\",3\n") == "4:4: expected 2 fields as in the header, got 3");
}
