#include <catch2/catch.hpp>

#include <random>

#include <hetsched/alloc/cost_search.hpp>

using namespace hetsched;

namespace {

struct Case {
    model::JobSpec job;
    catalog::GpuCatalog catalog;
    alloc::SearchSpace space;
};

/// A small space exhaustive search finishes in well under a second.
std::unique_ptr<Case> small_case(std::mt19937& rng) {
    auto c = std::make_unique<Case>();
    const std::vector<std::string> models{"espresso-llama-1.3b", "gpt2-xl", "gpt3-1.3b", "espresso-vit-3.4b"};
    c->job.model = catalog::find_model(models[rng() % models.size()]);
    c->job.training.seq_len = 1024;
    model::cover_sequence(c->job);  // GPT-2's table as long as the sequence
    c->job.training.precision = "fp16";  // the default catalog's V100 and T4 have no bf16
    c->job.training.global_batch = 16 << (rng() % 2);
    c->catalog = catalog::named_catalog(rng() % 2 ? "juchi" : "default");
    c->space.job = &c->job;
    c->space.catalog = &c->catalog;
    c->space.problem.network.inter_node_gb_s = c->catalog.inter_node_gb_s;
    c->space.iterations = 1000;
    std::vector<const catalog::GpuType*> priced;
    for (const auto& g : c->catalog.gpus)
        if (g.price_per_hour > 0) priced.push_back(&g);
    std::shuffle(priced.begin(), priced.end(), rng);
    const size_t kinds = 2 + rng() % 2;
    for (size_t i = 0; i < kinds; ++i)
        c->space.types.push_back({priced[i]->name, priced[i]->price_per_hour, 2 + static_cast<int>(rng() % 3)});
    return c;
}

alloc::SearchResult run(const alloc::SearchSpace& s, alloc::SearchMethod m, size_t top = 1) {
    alloc::SearchOptions o;
    o.method = m;
    o.top = top;
    return alloc::search_plans(s, o);
}

/// Two searches found the same plans with the same statistics.
void check_same(const alloc::SearchResult& a, const alloc::SearchResult& b) {
    REQUIRE(a.plans.size() == b.plans.size());
    for (size_t i = 0; i < a.plans.size(); ++i) {
        CHECK(a.plans[i].cost == b.plans[i].cost);
        CHECK(a.plans[i].order == b.plans[i].order);
        CHECK(a.plans[i].layers == b.plans[i].layers);
    }
    CHECK(a.stats.plans_evaluated == b.stats.plans_evaluated);
    CHECK(a.stats.nodes_expanded == b.stats.nodes_expanded);
    CHECK(a.stats.pruned_cost == b.stats.pruned_cost);
    CHECK(a.stats.lower_bound == b.stats.lower_bound);
}

}  // namespace

TEST_CASE("espresso finds exhaustive's cost at every SLO, evaluating fewer plans", "[alloc]") {
    std::mt19937 rng(5);
    long espresso_plans = 0, exhaustive_plans = 0;
    int compared = 0;
    for (int n = 0; n < 12; ++n) {
        auto c = small_case(rng);
        const auto all = run(c->space, alloc::SearchMethod::exhaustive, 100000);
        if (all.plans.empty()) continue;
        double fastest = all.plans.front().total_s;
        for (const auto& p : all.plans) fastest = std::min(fastest, p.total_s);
        for (double f : {1.0, 1.1, 1.5, 3.0, 0.0}) {
            c->space.slo_s = fastest * f;
            double best = std::numeric_limits<double>::infinity();
            for (const auto& p : all.plans)
                if (f == 0 || p.total_s <= c->space.slo_s) best = std::min(best, p.cost);
            const auto es = run(c->space, alloc::SearchMethod::espresso);
            INFO(c->job.model.name << " slo factor " << f);
            REQUIRE_FALSE(es.plans.empty());
            CHECK(es.plans.front().cost == Approx(best).epsilon(1e-12));
            CHECK(es.stats.complete);
            CHECK(es.stats.lower_bound == es.plans.front().cost);  // proven: gap 0
            if (f == 0 || es.plans.front().total_s <= c->space.slo_s) ++compared;
            espresso_plans += es.stats.plans_evaluated;
            exhaustive_plans += all.stats.plans_evaluated;
        }
    }
    CHECK(compared >= 40);
    CHECK(espresso_plans * 2 < exhaustive_plans);  // tiny spaces; the paper-sized ones are in bench/
}

TEST_CASE("the best plans come sorted, each within quotas and holding every layer", "[alloc]") {
    std::mt19937 rng(9);
    auto c = small_case(rng);
    const auto r = run(c->space, alloc::SearchMethod::espresso, 5);
    REQUIRE(r.plans.size() == 5);
    for (size_t i = 0; i < r.plans.size(); ++i) {
        const auto& p = r.plans[i];
        if (i > 0) CHECK(r.plans[i - 1].cost <= p.cost);
        long layers = 0;
        for (long l : p.layers) layers += l;
        CHECK(layers == c->job.model.layers);
        CHECK(static_cast<int>(p.order.size()) == p.pp);
        for (size_t t = 0; t < p.stages.size(); ++t) CHECK(p.stages[t] * p.dp <= c->space.types[t].quota);
        CHECK(p.cost == Approx(p.total_s * p.price_per_hour / 3600));
    }
    // The same five as exhaustive's five best.
    const auto all = run(c->space, alloc::SearchMethod::exhaustive, 5);
    for (size_t i = 0; i < 5; ++i) CHECK(all.plans[i].cost == Approx(r.plans[i].cost).epsilon(1e-12));
}

TEST_CASE("homogeneous plans use one type and a power of two GPUs", "[alloc]") {
    std::mt19937 rng(2);
    auto c = small_case(rng);
    const auto r = run(c->space, alloc::SearchMethod::homogeneous, 20);
    REQUIRE_FALSE(r.plans.empty());
    for (const auto& p : r.plans) {
        int kinds = 0;
        for (int s : p.stages) kinds += s > 0;
        CHECK(kinds == 1);
        CHECK((p.gpus() & (p.gpus() - 1)) == 0);
    }
    // Never cheaper than the heterogeneous optimum.
    CHECK(run(c->space, alloc::SearchMethod::espresso).plans.front().cost <= r.plans.front().cost * (1 + 1e-12));
}

TEST_CASE("an SLO no plan meets leaves no plan: the time objective finds the fastest", "[alloc]") {
    std::mt19937 rng(4);
    auto c = small_case(rng);
    c->space.slo_s = 1e-3;
    CHECK(run(c->space, alloc::SearchMethod::espresso).plans.empty());
    alloc::SearchOptions o;
    o.objective = alloc::Objective::time;
    c->space.slo_s = 0;
    const auto fastest = alloc::search_plans(c->space, o);
    const auto all = run(c->space, alloc::SearchMethod::exhaustive, 100000);
    double best = 1e300;
    for (const auto& p : all.plans) best = std::min(best, p.total_s);
    CHECK(fastest.plans.front().total_s == Approx(best).epsilon(1e-12));
}

TEST_CASE("data-parallel degrees are powers of two that divide the batch", "[alloc]") {
    model::JobSpec job;
    job.model = catalog::find_model("gpt2-xl");
    job.training.global_batch = 24;
    alloc::SearchSpace s;
    s.job = &job;
    s.types = {{"A30", 1, 16}};
    CHECK(alloc::dp_range(s) == std::vector<int>{1, 2, 4, 8});
    job.micro_batch = 3;
    CHECK(alloc::dp_range(s) == std::vector<int>{1, 2, 4, 8});
    job.micro_batch = 2;
    CHECK(alloc::dp_range(s) == std::vector<int>{1, 2, 4});
}

TEST_CASE("a search stopped at its node limit keeps its best plan and a bound no plan beats", "[alloc]") {
    std::mt19937 rng(1);
    int stopped = 0, with_plan = 0;
    for (int n = 0; n < 10; ++n) {
        auto c = small_case(rng);
        const auto full = run(c->space, alloc::SearchMethod::espresso);
        if (full.plans.empty()) continue;
        for (long limit : {3L, 20L, 60L}) {
            alloc::SearchOptions o;
            o.node_limit = limit;
            const auto cut = alloc::search_plans(c->space, o);
            if (cut.stats.complete) continue;
            ++stopped;
            INFO(c->job.model.name << " limit " << limit);
            CHECK(cut.stats.stopped_by == "node limit");
            CHECK(cut.stats.nodes_expanded + cut.stats.plans_evaluated <= limit);
            CHECK(cut.stats.lower_bound <= full.plans.front().cost * (1 + 1e-9));
            if (cut.plans.empty()) continue;
            ++with_plan;
            CHECK(cut.plans.front().cost >= full.plans.front().cost * (1 - 1e-12));
            CHECK(cut.stats.lower_bound <= cut.plans.front().cost);
        }
    }
    CHECK(stopped >= 10);
    CHECK(with_plan >= 3);
}

TEST_CASE("a time limit stops the search likewise", "[alloc]") {
    std::mt19937 rng(3);
    auto c = small_case(rng);
    alloc::SearchOptions o;
    o.method = alloc::SearchMethod::exhaustive;
    o.time_limit_s = 1e-9;
    const auto cut = alloc::search_plans(c->space, o);
    CHECK_FALSE(cut.stats.complete);
    CHECK(cut.stats.stopped_by == "time limit");
}

TEST_CASE("an exact placer stopped at its node limit keeps its placement: the search is not proven", "[alloc]") {
    std::mt19937 rng(5);
    int stopped = 0;
    for (int n = 0; n < 6 && stopped < 2; ++n) {
        auto c = small_case(rng);
        alloc::SearchOptions o;
        o.placer = place::Method::hph;
        const auto full = alloc::search_plans(c->space, o);
        if (full.plans.empty() || !full.stats.complete) continue;
        o.placer_limit = 2;
        const auto cut = alloc::search_plans(c->space, o);
        INFO(c->job.model.name);
        if (cut.stats.complete) continue;  // every plan placed within two nodes
        ++stopped;
        CHECK(cut.stats.stopped_by == alloc::kPlacerNodeLimit);
        REQUIRE_FALSE(cut.plans.empty());
        CHECK(cut.plans.front().cost >= full.plans.front().cost * (1 - 1e-12));
        CHECK(cut.stats.lower_bound <= full.plans.front().cost * (1 + 1e-9));
        // A placement its node limit stopped is the same every time: a memo keeps it for later SLOs.
        auto memo = std::make_shared<alloc::PlacementMemo>();
        o.memo = memo;
        const auto memoised = alloc::search_plans(c->space, o);
        check_same(cut, memoised);
        CHECK(static_cast<long>(memo->size()) == memoised.stats.plans_evaluated);
    }
    CHECK(stopped == 2);
}

TEST_CASE("an effort limit stops the search with its best plan, a valid bound and complete false", "[alloc]") {
    std::mt19937 rng(11);
    for (int n = 0; n < 4; ++n) {
        auto c = small_case(rng);
        alloc::SearchOptions o;
        o.objective = alloc::Objective::time;
        const auto full = alloc::search_plans(c->space, o);
        if (full.plans.empty()) continue;
        CHECK(full.stats.complete);
        o.effort_limit = 3;
        const auto cut = alloc::search_plans(c->space, o);
        CHECK_FALSE(cut.stats.complete);
        CHECK(cut.stats.effort <= 3);
        CHECK(cut.stats.lower_bound <= full.plans.front().total_s * (1 + 1e-9));
        if (!cut.plans.empty()) CHECK(cut.plans.front().total_s >= full.plans.front().total_s * (1 - 1e-12));
    }
}

TEST_CASE("the plans found and every statistic are the same for any thread count", "[alloc]") {
    std::mt19937 rng(11);
    for (int n = 0; n < 6; ++n) {
        auto c = small_case(rng);
        for (auto method : {alloc::SearchMethod::espresso, alloc::SearchMethod::exhaustive}) {
            for (double slo : {0.0, 1e9}) {
                c->space.slo_s = slo;
                alloc::SearchOptions o;
                o.method = method;
                o.top = 5;
                const auto one = alloc::search_plans(c->space, o);
                o.threads = 3;
                check_same(one, alloc::search_plans(c->space, o));
            }
        }
    }
}

TEST_CASE("a placement memo shared across SLOs changes no plan and no statistic", "[alloc]") {
    std::mt19937 rng(23);
    for (int n = 0; n < 4; ++n) {
        auto c = small_case(rng);
        c->space.slo_s = 0;
        const auto loose = run(c->space, alloc::SearchMethod::exhaustive, 100000);
        if (loose.plans.empty()) continue;
        double fastest = loose.plans.front().total_s;
        for (const auto& p : loose.plans) fastest = std::min(fastest, p.total_s);
        auto memo = std::make_shared<alloc::PlacementMemo>();
        for (double f : {1.0, 1.1, 2.0, 1e9}) {
            c->space.slo_s = fastest * f;
            alloc::SearchOptions o;
            o.top = 3;
            const auto alone = alloc::search_plans(c->space, o);
            o.memo = memo;
            o.threads = 1 + n % 2;
            check_same(alone, alloc::search_plans(c->space, o));
        }
        CHECK(memo->size() > 0);
        // Another job's search may not use these placements.
        auto other = *c;
        other.job.training.global_batch *= 2;
        other.space.job = &other.job;
        alloc::SearchOptions o;
        o.memo = memo;
        CHECK_THROWS_AS(alloc::search_plans(other.space, o), std::logic_error);
    }
}

TEST_CASE("an fsdp job in fp16 is searched without a pipeline at dp 1, where torchtitan would run fp32", "[alloc]") {
    std::mt19937 rng(9);
    auto c = small_case(rng);
    c->job.training.framework = model::Framework::fsdp;
    c->job.training.zero_stage = 3;
    bool dp1 = false;  // small_case's jobs are fp16
    for (const auto& p : run(c->space, alloc::SearchMethod::exhaustive, 200).plans) {
        if (p.dp == 1) CHECK(p.pp == 1);
        dp1 |= p.dp == 1;
    }
    CHECK(dp1);
    c->job.training.precision = "fp32";
    bool pipelined_dp1 = false;
    for (const auto& p : run(c->space, alloc::SearchMethod::exhaustive, 200).plans) pipelined_dp1 |= p.dp == 1 && p.pp > 1;
    CHECK(pipelined_dp1);
}

TEST_CASE("a DeepSpeed job at ZeRO-3 is searched without a pipeline: at ZeRO-1 with one", "[alloc]") {
    std::mt19937 rng(9);
    auto c = small_case(rng);
    c->job.training.framework = model::Framework::deepspeed;
    c->job.training.zero_stage = 3;
    const auto zero3 = run(c->space, alloc::SearchMethod::espresso, 5);
    REQUIRE_FALSE(zero3.plans.empty());
    for (const auto& p : zero3.plans) CHECK(p.pp == 1);
    c->job.training.zero_stage = 1;
    bool pipelined = false;
    for (const auto& p : run(c->space, alloc::SearchMethod::exhaustive, 50).plans) pipelined |= p.pp > 1;
    CHECK(pipelined);
}

TEST_CASE("a GPU type may be a search candidate once", "[alloc]") {
    // The bounds count a plan's types by candidate: A30 twice would read as a mix of two types and be
    // charged the network between them, which a plan of A30s never crosses.
    std::mt19937 rng(3);
    auto c = small_case(rng);
    c->catalog = catalog::named_catalog("juchi");
    c->space.types = {{"A30", 4, 2}, {"RTX-3090", 2.5, 2}, {"a30", 4, 2}};
    CHECK_THROWS_WITH(run(c->space, alloc::SearchMethod::espresso),
                      Catch::Contains("GPU type A30 is a search candidate twice"));
}
