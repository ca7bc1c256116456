#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>

#include <hetsched/sched/gavel_policy.hpp>
#include <hetsched/sched/round.hpp>
#include <hetsched/sched/tie_break.hpp>
#include <hetsched/sched/tiresias_policy.hpp>

#include "sched_fixture.hpp"

using namespace hetsched::sched;
using test::cluster;
using test::job;

namespace {

/// `s` with its types listed in reverse: nodes, throughputs and books follow their types.
ClusterState reversed(ClusterState s) {
    const int m = static_cast<int>(s.types.size());
    std::reverse(s.types.begin(), s.types.end());
    for (auto& n : s.nodes) n.type = m - 1 - n.type;
    for (auto& j : s.jobs) {
        std::reverse(j.throughput.begin(), j.throughput.end());
        std::reverse(j.book.time_per_type_s.begin(), j.book.time_per_type_s.end());
        if (j.placement.running()) j.placement.type = m - 1 - j.placement.type;
    }
    return s;
}

/// Three types alike for every job (equally fast, as many GPUs): every split of the jobs among them
/// is as fair, so only a rule that ignores the listing order picks the same one both ways.
ClusterState three_alike() {
    ClusterState s = cluster({"A", "B", "C"}, 2);
    for (int k = 0; k < 5; ++k) s.jobs.push_back(job("j" + std::to_string(k), 100, {1, 1, 1}, 1, k));
    s.jobs.push_back(job("fast-on-B", 100, {1, 2, 1}, 2, 9));
    s.time_s = 100;
    return s;
}

std::string type_name(const ClusterState& s, int t) { return t < 0 ? "none" : s.types[static_cast<size_t>(t)].name; }

}  // namespace

TEST_CASE("Drawn type orders and draws do not depend on the order the state lists the types in", "[order]") {
    const ClusterState s = three_alike(), r = reversed(s);
    for (std::uint64_t seed : {1, 2, 3, 99}) {
        std::vector<std::string> a, b;
        for (int t : seeded_type_order(s, seed)) a.push_back(type_name(s, t));
        for (int t : seeded_type_order(r, seed)) b.push_back(type_name(r, t));
        CHECK(a == b);
        for (size_t k = 0; k < s.jobs.size(); ++k)
            CHECK(type_name(s, tiresias_type(s, s.jobs[k], seed)) == type_name(r, tiresias_type(r, r.jobs[k], seed)));
    }
    // The draws are even over types whose names differ only in their last letter (3000 jobs: about
    // 1000 each, a binomial deviation of 26), and every order of three types is a seed's shuffle.
    std::vector<int> drawn;
    for (int k = 0; k < 3000; ++k) drawn.push_back(tiresias_type(s, job("x" + std::to_string(k), 1, {1, 1, 1}), 1));
    for (int t = 0; t < 3; ++t) {
        INFO("type " << t);
        CHECK(std::abs(std::count(drawn.begin(), drawn.end(), t) - 1000) < 150);
    }
    std::map<std::vector<int>, int> orders;
    for (std::uint64_t seed = 0; seed < 600; ++seed) ++orders[seeded_type_order(s, seed)];
    CHECK(orders.size() == 6);
    for (const auto& [order, n] : orders) CHECK(n > 50);  // about 100 each
}

TEST_CASE("Gavel's allocation and every round do not depend on the order the state lists types in", "[order]") {
    // Types of three speeds (no two alike for the jobs: alike ones go in the state's order), and jobs
    // alike among themselves: the LP has many equally fair allocations.
    ClusterState s = cluster({"slow", "fast", "mid"}, 2);
    for (int k = 0; k < 5; ++k) s.jobs.push_back(job("j" + std::to_string(k), 100, {1, 3, 2}, 1, k));
    s.jobs.push_back(job("two", 100, {1, 4, 2}, 2, 9));
    s.time_s = 100;
    const ClusterState r = reversed(s);
    for (bool aware : {true, false}) {
        const auto x = gavel_allocation(s, aware, {}), y = gavel_allocation(r, aware, {});
        for (size_t k = 0; k < s.jobs.size(); ++k)
            for (size_t t = 0; t < 3; ++t) CHECK(x[k][t] == Approx(y[k][2 - t]).margin(1e-12));
    }
    for (PolicyKind p : {PolicyKind::gavel, PolicyKind::gavel_agnostic, PolicyKind::tiresias, PolicyKind::fifo,
                         PolicyKind::fft, PolicyKind::srtf, PolicyKind::opportunistic, PolicyKind::has, PolicyKind::sia}) {
        INFO(policy_name(p));
        RoundOptions o;
        o.policy = p;
        const RoundResult a = run_round(s, o), b = run_round(r, o);
        for (size_t k = 0; k < s.jobs.size(); ++k)
            CHECK(type_name(a.state, a.state.jobs[k].placement.type) == type_name(b.state, b.state.jobs[k].placement.type));
    }
}
