#include <catch2/catch.hpp>

#include <hetsched/cli/app.hpp>

using namespace hetsched;

namespace {

int run(std::vector<std::string> args, const std::function<Exit()>& body) {
    cli::Verbosity v;
    auto app = cli::make_app({"tool", "A test tool.", ""}, v);
    int n = 0;
    app->add_option("--n", n)->check(hetsched::cli::positive());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    return cli::run_tool(*app, static_cast<int>(argv.size()), argv.data(), body);
}

}  // namespace

TEST_CASE("run_tool maps errors to sysexits codes", "[cli]") {
    auto ok = [] { return Exit::ok; };
    CHECK(run({"tool"}, ok) == 0);
    CHECK(run({"tool", "--help"}, ok) == 0);
    CHECK(run({"tool", "--bogus"}, ok) == 64);
    CHECK(run({"tool", "--n", "-3"}, ok) == 64);
    CHECK(run({"tool"}, [] { return Exit::negative; }) == 1);
    CHECK(run({"tool"}, []() -> Exit { throw DataError("bad", {"f", 1, 2}); }) == 65);
    CHECK(run({"tool"}, []() -> Exit { throw InputMissing("gone"); }) == 66);
    CHECK(run({"tool"}, []() -> Exit { throw ConfigError("cfg"); }) == 78);
    CHECK(run({"tool"}, []() -> Exit { throw std::runtime_error("boom"); }) == 70);
}

TEST_CASE("errors are described as file:line:col: message", "[cli]") {
    CHECK(describe(DataError("expected x", {"a.yaml", 3, 7})) == "a.yaml:3:7: expected x");
    CHECK(describe(DataError("expected x", {"a.yaml", 3, 0})) == "a.yaml:3: expected x");
    CHECK(describe(UsageError("bad")) == "bad");
}
