#include <catch2/catch.hpp>

#include <hetsched/alloc/best_fit.hpp>
#include <hetsched/alloc/cluster.hpp>

using namespace hetsched;

namespace {

/// Frenzy's Node(n, s): n free GPUs of s GiB (memory used as is: usable fraction 1).
alloc::ClusterNode node(const std::string& name, int free, double gib, int gpus = 8) {
    return {name, "", gib, gpus, free, {}};
}

io::YamlDocument doc(const std::string& text) { return io::parse_yaml({"cluster.yaml", text}); }

}  // namespace

TEST_CASE("Frenzy: Job(2, 32) goes to Node(3, 40) rather than Node(6, 80)", "[alloc]") {
    std::vector<alloc::ClusterNode> nodes{node("big", 6, 80), node("small", 3, 40)};
    const auto got = alloc::best_fit(nodes, {2, 32}, 1.0);
    REQUIRE(got.size() == 1);
    CHECK(got[0].node == "small");
    CHECK(got[0].gpus == 2);
    CHECK(nodes[1].free == 1);
    CHECK(nodes[0].free == 6);
}

TEST_CASE("Frenzy: Job(4, 35) goes to one Node(4, 40) rather than four Node(1, 40)", "[alloc]") {
    std::vector<alloc::ClusterNode> nodes{node("a", 1, 40), node("b", 1, 40), node("c", 1, 40), node("d", 1, 40),
                                          node("four", 4, 40)};
    const auto got = alloc::best_fit(nodes, {4, 35}, 1.0);
    REQUIRE(got.size() == 1);
    CHECK(got[0].node == "four");
    CHECK(got[0].gpus == 4);
}

TEST_CASE("no single node suffices: the largest first, then best fit for the rest", "[alloc]") {
    std::vector<alloc::ClusterNode> nodes{node("n1", 2, 40), node("n2", 5, 40), node("n3", 3, 40), node("n4", 4, 24)};
    const auto got = alloc::best_fit(nodes, {7, 30}, 1.0);
    REQUIRE(got.size() == 2);
    CHECK(got[0].node == "n2");  // 5 free, the most among nodes with 30 GiB or more
    CHECK(got[0].gpus == 5);
    CHECK(got[1].node == "n1");  // 2 left: n1 fits exactly
    CHECK(got[1].gpus == 2);
    CHECK(nodes[2].free == 3);
}

TEST_CASE("too few eligible GPUs leaves the cluster untouched", "[alloc]") {
    std::vector<alloc::ClusterNode> nodes{node("n1", 4, 40), node("n2", 8, 24)};
    CHECK(alloc::free_gpus_with(nodes, 30, 1.0) == 4);
    CHECK(alloc::best_fit(nodes, {5, 30}, 1.0).empty());
    CHECK(nodes[0].free == 4);
    // The usable fraction counts: 40 GiB cards hold 39.2 GiB at 0.98.
    CHECK(alloc::free_gpus_with(nodes, 39.5, 0.98) == 0);
}

TEST_CASE("a cluster section is read with the catalog's memory sizes", "[alloc]") {
    const auto cat = catalog::named_catalog("default");
    const auto d = doc("nodes:\n  - {name: n1, gpu: a100-40gb-sxm, gpus: 8, free: 3}\n  - {name: n2, memory_gib: 80, gpus: 4}\n");
    const auto nodes = alloc::read_cluster(d, d.root, cat);
    REQUIRE(nodes.size() == 2);
    CHECK(nodes[0].gpu == "A100-40GB-SXM");
    CHECK(nodes[0].memory_gib == 40);
    CHECK(nodes[1].free == 4);
    CHECK(nodes[1].memory_gib == 80);
}

TEST_CASE("bad cluster sections say where", "[alloc]") {
    const auto cat = catalog::named_catalog("default");
    auto fails = [&](const std::string& text, const std::string& what, int line) {
        const auto d = doc(text);
        try {
            alloc::read_cluster(d, d.root, cat);
            FAIL("accepted: " << text);
        } catch (const DataError& e) {
            CHECK_THAT(e.what(), Catch::Contains(what));
            CHECK(e.pos().line == line);
        }
    };
    fails("nodes: []\n", "expected a list of nodes", 1);
    fails("nodes:\n  - {name: n1, gpu: A30, gpus: 4, free: 5}\n", "5 free of 4", 2);
    fails("nodes:\n  - {name: n1, gpu: A31, gpus: 4}\n", "A31", 2);
    fails("nodes:\n  - {name: n1, gpus: 4}\n", "missing key 'gpu'", 2);
    fails("nodes:\n  - {name: n1, gpu: A30, gpus: 4}\n  - {name: n1, gpu: A30, gpus: 2}\n", "listed twice", 3);
}
