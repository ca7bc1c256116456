#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/output_file.hpp>
#include <hetsched/io/text_input.hpp>

using namespace hetsched;

TEST_CASE("write_output replaces the file whole", "[io]") {
    char dir[] = "/tmp/hetsched-test-XXXXXX";
    REQUIRE(mkdtemp(dir));
    const std::string path = std::string(dir) + "/out.txt";
    io::write_output(path, "first\n");
    io::write_output(path, "second\n");
    CHECK(io::read_input(path).text == "second\n");
    std::remove(path.c_str());
    rmdir(dir);
}

TEST_CASE("write_output and read_input report missing places", "[io]") {
    CHECK_THROWS_AS(io::write_output("/nonexistent-dir/x.txt", "x"), OutputError);
    CHECK_THROWS_AS(io::read_input("/nonexistent-dir/x.txt"), InputMissing);
}
