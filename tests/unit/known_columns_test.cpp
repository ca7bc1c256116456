#include <catch2/catch.hpp>

#include <hetsched/catalog/known_keys.hpp>
#include <hetsched/cli/error.hpp>
#include <hetsched/io/csv_table.hpp>

using namespace hetsched;

TEST_CASE("a table's columns are known ones, pandas' index columns aside", "[io]") {
    const std::vector<std::string> known{"name", "gpu"};
    auto check = [&](const std::string& text) { catalog::check_known_columns(io::CsvTable::parse({"c.csv", text}), known); };
    CHECK_NOTHROW(check(",name,gpu\n0,n1,A100\n"));            // to_csv's unnamed index
    CHECK_NOTHROW(check("Unnamed: 0,name,gpu\n0,n1,A100\n"));  // read back and written again
    CHECK_NOTHROW(check("Unnamed: 0,Unnamed: 1,name,gpu\n0,0,n1,A100\n"));
    CHECK_THROWS_WITH(check("name,,gpu\nn1,x,A100\n"), Catch::Contains("unknown column ''"));  // unnamed elsewhere: no index
    CHECK_THROWS_WITH(check("name,gpus\nn1,A100\n"), Catch::Contains("unknown column 'gpus'"));
}
