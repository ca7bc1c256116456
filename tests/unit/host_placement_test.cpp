#include <catch2/catch.hpp>

#include <hetsched/sched/host_placement.hpp>

using namespace hetsched::sched;

namespace {

/// One type "A" with nodes of the given sizes (n0, n1, ...).
ClusterState nodes_of(const std::vector<int>& sizes) {
    ClusterState s;
    s.types.push_back({"A", 0});
    for (size_t n = 0; n < sizes.size(); ++n) s.nodes.push_back({"n" + std::to_string(n), 0, sizes[n], false});
    return s;
}

Job job(const std::string& id, int gpus, Placement p = {}, Parallelism par = Parallelism::data) {
    Job j;
    j.id = id;
    j.num_gpus = gpus;
    j.work = 100;
    j.throughput = {1};
    j.book.time_per_type_s = {0};
    j.placement = std::move(p);
    j.parallelism = par;
    return j;
}

/// Marks the state's job set as already seen, so the round is not a churn event.
void settled(ClusterState& s) { s.active_set = active_set_digest(s.jobs); }

}  // namespace

TEST_CASE("A job that keeps its type keeps its hosts", "[placement]") {
    ClusterState s = nodes_of({4, 4});
    s.jobs.push_back(job("a", 2, {0, {{1, 2}}}));
    s.jobs.push_back(job("b", 4));
    settled(s);
    const auto out = place_on_hosts(s, {0, 0}, {});
    CHECK(out[0] == Placement{0, {{1, 2}}});
    CHECK(out[1] == Placement{0, {{0, 4}}});  // the new job takes the free node whole
}

TEST_CASE("A job on a node that went down moves to another node of its type", "[placement]") {
    ClusterState s = nodes_of({4, 4});
    s.jobs.push_back(job("a", 2, {0, {{0, 2}}}));
    s.nodes[0].down = true;
    settled(s);
    const auto out = place_on_hosts(s, {0}, {});
    CHECK(out[0] == Placement{0, {{1, 2}}});
}

TEST_CASE("Multi-GPU jobs are packed into the fewest hosts, larger first", "[placement]") {
    ClusterState s = nodes_of({2, 4, 8});
    s.jobs.push_back(job("one", 1));
    s.jobs.push_back(job("four", 4));
    s.jobs.push_back(job("eight", 8));
    settled(s);
    const auto out = place_on_hosts(s, {0, 0, 0}, {});
    CHECK(out[2] == Placement{0, {{2, 8}}});
    CHECK(out[1] == Placement{0, {{1, 4}}});
    CHECK(out[0] == Placement{0, {{0, 1}}});
}

TEST_CASE("Data-parallel jobs get the whole hosts before pipeline-only jobs", "[placement]") {
    ClusterState s = nodes_of({2, 2, 4});
    s.jobs.push_back(job("pipe", 4, {}, Parallelism::pipeline));
    s.jobs.push_back(job("dp", 4));
    settled(s);
    const auto out = place_on_hosts(s, {0, 0}, {});
    CHECK(out[1] == Placement{0, {{2, 4}}});
    CHECK(out[0] == Placement{0, {{0, 2}, {1, 2}}});
}

TEST_CASE("At churn a spread data-parallel job is re-packed onto one host, the cheapest to move first",
          "[placement]") {
    ClusterState s = nodes_of({4, 4, 4});
    s.jobs.push_back(job("heavy", 4, {0, {{0, 2}, {1, 2}}}));
    s.jobs.push_back(job("light", 4, {0, {{0, 2}, {1, 2}}}));
    s.jobs[0].checkpoint_gib = 100;
    s.jobs[1].checkpoint_gib = 1;
    settled(s);
    SECTION("no churn: nobody moves") {
        const auto out = place_on_hosts(s, {0, 0}, {});
        CHECK(out[0] == s.jobs[0].placement);
        CHECK(out[1] == s.jobs[1].placement);
    }
    SECTION("churn: the light job goes first and takes the free host; the heavy one then fits on n0") {
        s.active_set = 0;
        const auto out = place_on_hosts(s, {0, 0}, {});
        CHECK(out[1] == Placement{0, {{2, 4}}});
        CHECK(out[0] == Placement{0, {{0, 4}}});
    }
}

TEST_CASE("Jobs that stop free their GPUs for the others", "[placement]") {
    ClusterState s = nodes_of({4});
    s.jobs.push_back(job("old", 4, {0, {{0, 4}}}));
    s.jobs.push_back(job("new", 4));
    settled(s);
    const auto out = place_on_hosts(s, {-1, 0}, {});
    CHECK(!out[0].running());
    CHECK(out[1] == Placement{0, {{0, 4}}});
}
