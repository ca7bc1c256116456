#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>

#include <hetsched/alloc/planalloc.hpp>
#include <hetsched/cli/error.hpp>

using namespace hetsched;

namespace {

alloc::PlanallocOptions juchi_job() {
    alloc::PlanallocOptions o;
    o.job.model = "espresso-llama-1.3b";
    o.job.global_batch = 64;
    o.job.seq_len = 2048;
    o.job.iterations = 100;
    o.catalog = "juchi";
    return o;
}

/// A temporary job document.
struct TempFile {
    std::string path;
    explicit TempFile(const std::string& text) : path("planalloc_test_" + std::to_string(std::rand()) + ".yaml") {
        std::ofstream(path) << text;
    }
    ~TempFile() { std::remove(path.c_str()); }
};

template <class E>
void throws_with(const alloc::PlanallocOptions& o, const std::string& what) {
    try {
        alloc::run_planalloc(o);
        FAIL("no error");
    } catch (const E& e) {
        CHECK_THAT(e.what(), Catch::Contains(what));
    }
}

}  // namespace

TEST_CASE("planalloc writes the allocation placestages reads, and the search", "[alloc]") {
    auto o = juchi_job();
    o.slo_s = 300;
    const auto r = alloc::run_planalloc(o);
    const auto doc = io::parse_yaml({"out", r.text});
    const auto a = doc.root["allocation"];
    CHECK(a["method"].as<std::string>() == "espresso");
    CHECK(a["total_time_s"].as<double>() <= 300);
    CHECK(a["stages"].size() == a["pp"].as<size_t>());
    CHECK(doc.root["search"]["plans_evaluated"].as<long>() > 0);
    CHECK(doc.root["training"]["slo_s"].as<double>() == 300);
}

TEST_CASE("planalloc refuses what it cannot price or bound", "[alloc]") {
    auto o = juchi_job();
    o.job.iterations = 0;
    throws_with<UsageError>(o, "iteration count");
    o = juchi_job();
    o.catalog = "default";
    throws_with<UsageError>(o, "no quota for");
    o.quotas = {"all=8", "RTX-3090=4"};
    throws_with<UsageError>(o, "no price for RTX-3090");
    o.quotas = {"A31=4"};
    o.catalog = "juchi";
    throws_with<UsageError>(o, "A31");
    o.quotas = {"A30"};
    throws_with<UsageError>(o, "TYPE=VALUE");
    o.quotas = {"A30=-2"};
    throws_with<UsageError>(o, "non-negative integer");
    o.quotas = {"all=0"};
    throws_with<UsageError>(o, "both a price and a quota");
}

TEST_CASE("an SLO no plan meets names the fastest plan", "[alloc]") {
    auto o = juchi_job();
    o.slo_s = 10;
    throws_with<Infeasible>(o, "the fastest takes");
}

TEST_CASE("a memory section from another job is refused", "[alloc]") {
    TempFile f("kind: job\nversion: 1\nmodel: {name: espresso-llama-1.3b}\ntraining: {seq_len: 2048, global_batch: 64, "
               "iterations: 10}\nmemory:\n  job: {model: gpt2-xl, seq_len: 2048, global_batch: 64}\n  plans: []\n");
    alloc::PlanallocOptions o;
    o.io.input = f.path;
    o.catalog = "juchi";
    try {
        alloc::run_planalloc(o);
        FAIL("accepted");
    } catch (const DataError& e) {
        CHECK_THAT(e.what(), Catch::Contains("computed for model 'gpt2-xl'"));
        CHECK(e.pos().line == 6);
    }
}

TEST_CASE("cluster mode best-fits the first plan the free GPUs allow", "[alloc]") {
    TempFile f("kind: job\nversion: 1\nmodel: {name: espresso-llama-1.3b}\ntraining: {seq_len: 2048, global_batch: 64}\n"
               "cluster:\n  nodes:\n    - {name: a, gpu: RTX-A6000, gpus: 8, free: 1}\n"
               "    - {name: b, gpu: A30, gpus: 8, free: 3}\n    - {name: c, gpu: A30, gpus: 8, free: 8}\n");
    alloc::PlanallocOptions o;
    o.io.input = f.path;
    o.catalog = "juchi";
    const auto doc = io::parse_yaml({"out", alloc::run_planalloc(o).text});
    const auto a = doc.root["allocation"];
    CHECK(a["method"].as<std::string>() == "best-fit");
    const int gpus = a["plan"]["rank"].as<int>() > 0 ? a["tp"].as<int>() * a["pp"].as<int>() * a["dp"].as<int>() : 0;
    int taken = 0;
    for (const auto& kv : a["nodes"]) taken += kv.second.as<int>();
    CHECK(taken == gpus);
}
