// The command line's file checks: inputs named twice, outputs that would replace an input.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>
#include <unistd.h>

#include <hetsched/cli/error.hpp>
#include <hetsched/cli/inputs.hpp>

using namespace hetsched;

TEST_CASE("an output that is an input file, by any path or link, is refused, other outputs pass", "[cli]") {
    char dir[] = "/tmp/hetsched-test-XXXXXX";
    REQUIRE(mkdtemp(dir));
    const std::string d = dir, trace = d + "/trace.csv", link = d + "/link.csv", out = d + "/out.csv";
    std::ofstream(trace) << "id\n";
    REQUIRE(::symlink(trace.c_str(), link.c_str()) == 0);
    const std::vector<cli::NamedPath> inputs{{"--trace", trace}, {"--params", ""}};
    CHECK_THROWS_WITH(cli::check_outputs_spare_inputs({{"-o", d + "/./trace.csv"}}, inputs),
                      "-o " + d + "/./trace.csv is the --trace input (" + trace +
                          "): writing it would replace the input with the result; name another file");
    CHECK_THROWS_AS(cli::check_outputs_spare_inputs({{"-o", ""}, {"--jobs-out", link}}, inputs), UsageError);
    // An output not yet there, stdout, or none at all cannot be an input.
    CHECK_NOTHROW(cli::check_outputs_spare_inputs({{"-o", out}, {"--jobs-out", "-"}, {"--rounds-out", ""}}, inputs));
    std::ofstream(out) << "x\n";
    CHECK_NOTHROW(cli::check_outputs_spare_inputs({{"-o", out}}, inputs));
    ::unlink(link.c_str());
    ::unlink(trace.c_str());
    ::unlink(out.c_str());
    ::rmdir(dir);
}
