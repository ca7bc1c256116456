#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>

#include <hetsched/alloc/best_fit.hpp>
#include <hetsched/alloc/cluster.hpp>

using namespace hetsched;

namespace {

/// Frenzy's Node(n, s): n free GPUs of s GiB (memory used as is: usable fraction 1).
alloc::ClusterNode node(const std::string& name, int free, double gib, int gpus = 8) {
    return {name, "", gib, gpus, free};
}

io::YamlDocument doc(const std::string& text) { return io::parse_yaml({"cluster.yaml", text}); }

}  // namespace

TEST_CASE("Frenzy: Job(2, 32) goes to Node(3, 40) rather than Node(6, 80)", "[alloc]") {
    std::vector<alloc::ClusterNode> nodes{node("big", 6, 80), node("small", 3, 40)};
    const auto got = alloc::best_fit(nodes, {2, 32, ""}, 1.0);
    REQUIRE(got.size() == 1);
    CHECK(got[0].node == "small");
    CHECK(got[0].gpus == 2);
    CHECK(nodes[1].free == 1);
    CHECK(nodes[0].free == 6);
}

TEST_CASE("Frenzy: Job(4, 35) goes to one Node(4, 40) rather than four Node(1, 40)", "[alloc]") {
    std::vector<alloc::ClusterNode> nodes{node("a", 1, 40), node("b", 1, 40), node("c", 1, 40), node("d", 1, 40),
                                          node("four", 4, 40)};
    const auto got = alloc::best_fit(nodes, {4, 35, ""}, 1.0);
    REQUIRE(got.size() == 1);
    CHECK(got[0].node == "four");
    CHECK(got[0].gpus == 4);
}

TEST_CASE("no single node suffices: the largest first, then best fit for the rest", "[alloc]") {
    std::vector<alloc::ClusterNode> nodes{node("n1", 2, 40), node("n2", 5, 40), node("n3", 3, 40), node("n4", 4, 24)};
    const auto got = alloc::best_fit(nodes, {7, 30, ""}, 1.0);
    REQUIRE(got.size() == 2);
    CHECK(got[0].node == "n2");  // 5 free, the most among nodes with 30 GiB or more
    CHECK(got[0].gpus == 5);
    CHECK(got[1].node == "n1");  // 2 left: n1 fits exactly
    CHECK(got[1].gpus == 2);
    CHECK(nodes[2].free == 3);
}

TEST_CASE("too few eligible GPUs leaves the cluster untouched", "[alloc]") {
    std::vector<alloc::ClusterNode> nodes{node("n1", 4, 40), node("n2", 8, 24)};
    CHECK(alloc::free_gpus_with(nodes, {0, 30, ""}, 1.0) == 4);
    CHECK(alloc::best_fit(nodes, {5, 30, ""}, 1.0).empty());
    CHECK(nodes[0].free == 4);
    // The usable fraction counts: 40 GiB cards hold 39.2 GiB at 0.98.
    CHECK(alloc::free_gpus_with(nodes, {0, 39.5, ""}, 0.98) == 0);
}

TEST_CASE("best_fit_shares leaves the nodes as they are and gives best_fit's answer", "[alloc]") {
    // Equally free nodes: the last by name unless another has smaller GPUs (Alg. 1's tie rule as it was).
    std::vector<alloc::ClusterNode> nodes{node("a", 3, 40), node("b", 3, 40), node("c", 3, 80), node("d", 1, 40),
                                          node("e", 2, 48)};
    const auto before = nodes;
    for (int gpus = 1; gpus <= 12; ++gpus)
        for (double gib : {24.0, 40.0, 44.0}) {
            const auto shares = alloc::best_fit_shares(nodes, {gpus, gib, ""}, 1.0);
            for (size_t i = 0; i < nodes.size(); ++i) CHECK(nodes[i].free == before[i].free);
            auto copy = nodes;
            const auto taken = alloc::best_fit(copy, {gpus, gib, ""}, 1.0);
            REQUIRE(taken.size() == shares.size());
            for (size_t i = 0; i < taken.size(); ++i) {
                CHECK(taken[i].node == shares[i].node);
                CHECK(taken[i].gpus == shares[i].gpus);
            }
        }
    const auto seven = alloc::best_fit_shares(nodes, {7, 24, ""}, 1.0);
    REQUIRE(seven.size() == 3);
    CHECK(seven[0].node == "a");  // 3 free each: c has larger GPUs, so the first of the smaller
    CHECK(seven[1].node == "b");
    CHECK(seven[2].node == "d");  // 1 left: the fewest free that suffice
}

namespace {

/// Alg. 1 as best_fit did it before it sorted once: re-sorts every step, takes GPUs as it goes.
std::vector<alloc::NodeShare> reference(std::vector<alloc::ClusterNode> nodes, int left, double gib) {
    auto ok = [&](const alloc::ClusterNode& n) { return n.free > 0 && n.memory_gib >= gib; };
    int total = 0;
    for (const auto& n : nodes)
        if (ok(n)) total += n.free;
    if (left <= 0 || total < left) return {};
    std::vector<alloc::NodeShare> out;
    while (left > 0) {
        std::vector<alloc::ClusterNode*> fit;
        for (auto& n : nodes)
            if (ok(n)) fit.push_back(&n);
        std::sort(fit.begin(), fit.end(), [](const alloc::ClusterNode* a, const alloc::ClusterNode* b) {
            return std::tie(a->free, a->memory_gib, a->name) < std::tie(b->free, b->memory_gib, b->name);
        });
        auto single = std::find_if(fit.begin(), fit.end(), [&](const alloc::ClusterNode* n) { return n->free >= left; });
        if (single != fit.end()) {
            out.push_back({(*single)->name, "", left});
            break;
        }
        alloc::ClusterNode* most = fit.back();
        for (alloc::ClusterNode* n : fit)
            if (n->free == most->free && n->memory_gib < most->memory_gib) most = n;
        out.push_back({most->name, "", most->free});
        left -= most->free;
        most->free = 0;
    }
    return out;
}

}  // namespace

TEST_CASE("best_fit_shares answers as Alg. 1 re-sorted at every step did", "[alloc]") {
    std::mt19937 rng(3);
    const double sizes[] = {16, 24, 40, 48, 80};
    for (int round = 0; round < 300; ++round) {
        std::vector<alloc::ClusterNode> nodes;
        const int n = 1 + static_cast<int>(rng() % 12);
        for (int i = 0; i < n; ++i)
            nodes.push_back(node("n" + std::to_string(rng() % 100) + "-" + std::to_string(i),
                                 static_cast<int>(rng() % 5), sizes[rng() % 5]));
        const int gpus = 1 + static_cast<int>(rng() % 20);
        const double gib = sizes[rng() % 5] - 1;
        const auto want = reference(nodes, gpus, gib);
        const auto got = alloc::best_fit_shares(nodes, {gpus, gib, ""}, 1.0);
        REQUIRE(got.size() == want.size());
        for (size_t i = 0; i < got.size(); ++i) {
            CHECK(got[i].node == want[i].node);
            CHECK(got[i].gpus == want[i].gpus);
        }
    }
}

TEST_CASE("a request may name a GPU type", "[alloc]") {
    std::vector<alloc::ClusterNode> nodes{node("x", 4, 80), node("y", 4, 80)};
    nodes[0].gpu = "H100-SXM";
    nodes[1].gpu = "A100-80GB-SXM";
    CHECK(alloc::free_gpus_with(nodes, {0, 40, "A100-80GB-SXM"}, 1.0) == 4);
    const auto got = alloc::best_fit_shares(nodes, {2, 40, "H100-SXM"}, 1.0);
    REQUIRE(got.size() == 1);
    CHECK(got[0].node == "x");
    CHECK(got[0].gpu == "H100-SXM");
    CHECK(got[0].memory_gib == 80);
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

TEST_CASE("a tensor-parallel group stays in one node, and a pipeline stage on one type", "[alloc]") {
    // tp 4 on two nodes of 3 free each: no node holds a group, so nothing fits (6 GPUs free).
    std::vector<alloc::ClusterNode> nodes{node("n1", 3, 40), node("n2", 3, 40)};
    CHECK(alloc::best_fit_shares(nodes, {4, 30, "", 4, 4}, 1.0).empty());
    // tp 2 on nodes of 3, 3 and 2 free, 6 GPUs: whole pairs, 2 + 2 + 2 (a node's odd GPU left).
    nodes.push_back(node("n3", 2, 40));
    CHECK(alloc::free_gpus_with(nodes, {0, 30, "", 2, 2}, 1.0) == 6);
    const auto pairs = alloc::best_fit_shares(nodes, {6, 30, "", 2, 2}, 1.0);
    REQUIRE(pairs.size() == 3);
    for (const auto& s : pairs) CHECK(s.gpus == 2);
    // Stages of dp x tp = 4 GPUs: best fit alone takes 3 H100 and 1 A100, a stage over two types, so
    // the 4 come from the one type that has them.
    std::vector<alloc::ClusterNode> mixed{node("a", 2, 80), node("h", 2, 80), node("big", 3, 80)};
    mixed[0].gpu = "A100", mixed[1].gpu = "H100", mixed[2].gpu = "H100";
    const auto stage = alloc::best_fit_shares(mixed, {4, 40, "", 1, 4}, 1.0);
    REQUIRE(!stage.empty());
    for (const auto& s : stage) CHECK(s.gpu == "H100");
    int taken = 0;
    for (const auto& s : stage) taken += s.gpus;
    CHECK(taken == 4);
}

TEST_CASE("stages that no single type holds go whole onto several types", "[alloc]") {
    // pp 2 x (dp 2): 4 GPUs in stages of 2, two types of 3 free each. Greedy takes 3 + 1 (a stage over
    // two types) and neither type holds 4, so a whole stage on each: 2 A100 + 2 H100.
    auto typed = [](const std::string& name, const std::string& gpu, int free) {
        alloc::ClusterNode n = node(name, free, 80);
        n.gpu = gpu;
        return n;
    };
    std::vector<alloc::ClusterNode> nodes{typed("a", "A100", 3), typed("h", "H100", 3)};
    const alloc::GpuRequest r{4, 40, "", 1, 2};
    const auto shares = alloc::best_fit_shares(nodes, r, 1.0);
    REQUIRE(shares.size() == 2);
    for (const auto& s : shares) CHECK(s.gpus == 2);
    CHECK(shares[0].gpu != shares[1].gpu);
    CHECK(alloc::whole_type_groups_free(nodes, r, 1.0) == 2);
    // Three stages of 2 over rooms of 5, 3 and 1 free: the roomiest gives 2 stages, then the least
    // room that holds the last one (the H100s; the lone V100 holds none).
    nodes = {typed("a", "A100", 5), typed("h", "H100", 3), typed("v", "V100", 1)};
    const auto three = alloc::best_fit_shares(nodes, {6, 40, "", 1, 2}, 1.0);
    std::map<std::string, int> per_type;
    for (const auto& s : three) per_type[s.gpu] += s.gpus;
    CHECK(per_type == std::map<std::string, int>{{"A100", 4}, {"H100", 2}});
    // Two stages of 4 over 3 + 3 + 1 free: 7 GPUs, no whole stage anywhere.
    nodes = {typed("a", "A100", 3), typed("h", "H100", 3), typed("v", "V100", 1)};
    const alloc::GpuRequest big{8, 40, "", 1, 4};
    CHECK(alloc::free_gpus_with(nodes, big, 1.0) == 7);
    CHECK(alloc::best_fit_shares(nodes, {6, 40, "", 1, 3}, 1.0).size() == 2);
    CHECK(alloc::whole_type_groups_free(nodes, big, 1.0) == 0);
}

TEST_CASE("nodes given by memory alone are a kind of GPU per memory, apart from typed ones", "[alloc]") {
    // A stage of 4 over a typed A100 node (3 free) and memory-only nodes of 40 GiB (1) and 80 GiB (3):
    // no kind holds 4, and 3 + 1 of the memory-only ones would be two kinds of GPU in one stage.
    std::vector<alloc::ClusterNode> nodes{node("a", 3, 80), node("m40", 1, 40), node("m80", 3, 80)};
    nodes[0].gpu = "A100";
    const alloc::GpuRequest stage{4, 30, "", 1, 4};
    CHECK(alloc::free_gpus_with(nodes, stage, 1.0) == 7);
    CHECK(alloc::best_fit_shares(nodes, stage, 1.0).empty());
    CHECK(alloc::whole_type_groups_free(nodes, stage, 1.0) == 0);
    // Stages of 3: one on the A100s, one on the 80 GiB nodes; the 40 GiB GPU is in none.
    const auto two = alloc::best_fit_shares(nodes, {6, 30, "", 1, 3}, 1.0);
    REQUIRE(two.size() == 2);
    for (const auto& s : two) CHECK(s.gpus == 3);
    CHECK(((two[0].node == "a" && two[1].node == "m80") || (two[0].node == "m80" && two[1].node == "a")));
}

TEST_CASE("a request's need on a type of its own (another compute capability) decides that type's nodes", "[alloc]") {
    std::vector<alloc::ClusterNode> nodes{{"turing", "RTX-2080Ti", 11, 8, 4}, {"ampere", "A100-40GB-SXM", 40, 8, 4}};
    alloc::GpuRequest r{2, 8.3, ""};
    CHECK(alloc::best_fit_shares(nodes, r, 0.98).front().node == "turing");  // the least memory holding 8.3 GiB
    CHECK(alloc::free_gpus_with(nodes, r, 0.98) == 8);
    r.memory_by_type["RTX-2080Ti"] = 12.2;  // without fused attention there
    const auto got = alloc::best_fit_shares(nodes, r, 0.98);
    REQUIRE(got.size() == 1);
    CHECK(got.front().node == "ampere");
    CHECK(alloc::free_gpus_with(nodes, r, 0.98) == 4);
}
