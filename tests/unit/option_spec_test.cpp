#include <catch2/catch.hpp>

#include <hetsched/cli/option_spec.hpp>

using namespace hetsched;

TEST_CASE("option specs come from the definitions: kinds, choices, hidden options left out", "[cli]") {
    CLI::App app("test", "t");
    std::string s;
    int n = 0;
    bool f = false;
    app.add_option("FILE", s, "Input");
    app.add_option("-o,--output", s, "Output")->type_name("FILE");
    app.add_option("--model", s, "Preset")->type_name("MODEL");
    app.add_option("--gpu", s, "Type")->type_name("GPU");
    app.add_option("--types", s, "Types")->type_name("GPUS");
    app.add_option("--stages", s, "Stages")->type_name("STAGES");
    app.add_option("--catalog", s, "Catalog")->type_name("CATALOG");
    app.add_option("--method", s, "How")->check(CLI::IsMember({"cmr", "whale"}));
    app.add_option("--top", n, "Count");
    app.add_flag("--quiet", f, "Quiet");
    app.add_flag("--secret", f, "Hidden")->group("");
    const auto specs = cli::option_specs(app);
    std::map<std::string, cli::OptionSpec> by;
    for (const auto& o : specs) by[o.names.empty() ? "" : o.names.back()] = o;
    CHECK(by.count("--secret") == 0);
    CHECK(by[""].kind == cli::ValueKind::file);
    CHECK(by["--output"].names == std::vector<std::string>{"-o", "--output"});
    CHECK(by["--output"].kind == cli::ValueKind::file);
    CHECK(by["--model"].kind == cli::ValueKind::model);
    CHECK(by["--gpu"].kind == cli::ValueKind::gpu);
    CHECK(by["--types"].kind == cli::ValueKind::gpus);
    CHECK(by["--stages"].kind == cli::ValueKind::stages);  // a type may repeat
    CHECK(by["--catalog"].kind == cli::ValueKind::catalog);
    CHECK(by["--catalog"].choices == std::vector<std::string>{"default", "juchi", "sia"});
    CHECK(by["--method"].kind == cli::ValueKind::choice);
    CHECK(by["--method"].choices == std::vector<std::string>{"cmr", "whale"});
    CHECK(by["--top"].kind == cli::ValueKind::value);
    CHECK(by["--quiet"].kind == cli::ValueKind::none);
    CHECK(cli::format_option_specs({by["--method"]}) == "choice\t--method\tcmr,whale\tHow\n");
}
