// A flag's comma-separated list: every entry as typed, and no empty one.
#include <catch2/catch.hpp>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/comma_list.hpp>

using namespace hetsched;

TEST_CASE("a comma list gives its entries in order and refuses empty ones", "[io]") {
    CHECK(io::comma_list("A100,A100,V100", "--stages") == std::vector<std::string>{"A100", "A100", "V100"});
    CHECK(io::comma_list("T4", "--types") == std::vector<std::string>{"T4"});
    CHECK_THROWS_WITH(io::comma_list("", "--types"), "--types: expected a comma-separated list, got nothing");
    for (const char* bad : {"A100,,V100", "A100,", ",A100", ","})
        CHECK_THROWS_WITH(io::comma_list(bad, "--stages"), "--stages: expected an entry between every two commas and at both "
                                                           "ends, got '" + std::string(bad) + "'");
}
