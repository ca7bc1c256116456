#include <catch2/catch.hpp>

#include <algorithm>

#include <hetsched/cli/error.hpp>
#include <hetsched/model/plans.hpp>
#include <hetsched/model/transformer.hpp>

using namespace hetsched;

namespace {

model::Training training(long seq_len, long global_batch) {
    model::Training t;
    t.seq_len = seq_len;
    t.global_batch = global_batch;
    return t;
}

}  // namespace

TEST_CASE("plans fit the card and rank by GPUs then time", "[model]") {
    const auto& m = catalog::find_model("llama-2-7b");
    const auto t = training(4096, 32);
    auto plans = model::enumerate_plans(m, t, catalog::named_catalog("juchi"), {});
    REQUIRE_FALSE(plans.empty());
    for (size_t i = 0; i < plans.size(); ++i) {
        CHECK(plans[i].peak_gib <= plans[i].usable_gib);
        if (i) {
            CHECK(plans[i - 1].layout.gpus() <= plans[i].layout.gpus());
            if (plans[i - 1].layout.gpus() == plans[i].layout.gpus())
                CHECK(plans[i - 1].iteration_s <= plans[i].iteration_s);
        }
        CHECK(plans[i].layout.gpus() <= 16);  // quotas of the JuChi catalog
    }
}

TEST_CASE("frenzy plans are one per (tp, dp) with micro-batch B/d", "[model]") {
    const auto& m = catalog::find_model("gpt2-medium");
    const auto t = training(1024, 8);
    model::PlanOptions o;
    o.method = model::Method::frenzy;
    auto plans = model::enumerate_plans(m, t, catalog::named_catalog("sia"), o);
    REQUIRE_FALSE(plans.empty());
    for (const auto& p : plans) {
        CHECK(p.layout.pp == 1);
        CHECK(p.layout.micro_batch * p.layout.dp == 8);
    }
}

TEST_CASE("a model too large for any card yields no plan", "[model]") {
    const auto& m = catalog::find_model("llama-3.1-405b");
    const auto t = training(8192, 1);
    model::PlanOptions o;
    o.max_gpus = 2;
    CHECK(model::enumerate_plans(m, t, catalog::named_catalog("juchi"), o).empty());
}

TEST_CASE("the rough time prices cross-node gradient sync on the network it is given", "[model]") {
    const auto& m = catalog::find_model("gpt2");
    const auto t = training(1024, 64);
    const auto c = catalog::named_catalog("juchi");
    const catalog::GpuType& g = c.find("A30");  // 8 per node: dp 16 crosses nodes
    const model::Layout cross{1, 1, 16, 1, 1, 4, {}};
    const model::Layout inside{1, 1, 4, 1, 1, 4, {}};
    const double slow = model::rough_iteration_s(m, t, cross, g, model::Network{0.3125});
    const double fast = model::rough_iteration_s(m, t, cross, g, model::Network{25});
    CHECK(slow > fast);
    // Within one node the inter-node link is not used at all.
    CHECK(model::rough_iteration_s(m, t, inside, g, model::Network{0.3125}) ==
          model::rough_iteration_s(m, t, inside, g, model::Network{25}));
}

TEST_CASE("the rough time shares a node's network among the tp ranks' gradient rings", "[model]") {
    // 16 A30s (8 a node), no pipeline: the network's part of the time is the gradient all-reduce alone.
    // At tp 2 two rings of a rank's half of the gradients cross each node's network at once.
    const auto& m = catalog::find_model("gpt2");
    const auto t = training(1024, 64);
    const auto c = catalog::named_catalog("juchi");
    const catalog::GpuType& g = c.find("A30");
    const model::Layout l{2, 1, 8, 1, 1, 4, {}};
    const double on_slow = model::rough_iteration_s(m, t, l, g, model::Network{0.3125});
    const double on_fast = model::rough_iteration_s(m, t, l, g, model::Network{25});
    const double bytes = model::total_params(m) / 2 * model::gradient_sync(t).bytes_per_param;
    CHECK(on_slow - on_fast == Approx(2.0 * 7 / 8 * bytes * (2 / 0.3125e9 - 2 / 25e9)));
}

TEST_CASE("the rough time paces a pipeline by its busiest stage and its slowest send, as placestages does", "[model]") {
    const auto& m = catalog::find_model("espresso-llama-1.3b");  // 26 layers, untied
    const auto t = training(2048, 64);
    const auto c = catalog::named_catalog("juchi");
    const catalog::GpuType& g = c.find("A30");  // 8 per node
    const model::Network net{0.3125};
    // The busiest stage of the best split, every stage a layer at least and the loss (`tail` layers'
    // worth) on the last: 26 layers on 16 stages put 2 on some stage (not 26 / 16) and one and the
    // loss on the last; on 13, 2 and the loss.
    CHECK(model::busiest_stage_layers(26, 16, 0.5) == 2);
    CHECK(model::busiest_stage_layers(26, 13, 0.5) == 2.5);
    CHECK(model::busiest_stage_layers(4, 2, 0.5) == 2.5);  // 2 + 2 and the loss: 2 and 2.5
    CHECK(model::busiest_stage_layers(4, 2, 3) == 4);      // a loss of 3 layers: 3 + 1 and the loss, 3 and 4
    CHECK(model::busiest_stage_layers(2, 2, 3) == 4);      // 1 + 1 and the loss, as placestages splits it
    CHECK(model::busiest_stage_layers(1, 1, 0.3) == Approx(1.3));
    // 2 stages of 8 replicas fill two nodes: their sends cross the slow network, shared by 8 GPUs, and
    // pace the pipeline, as 2 stages of 4 within one node do not.
    const model::Layout crossing{1, 2, 8, 1, 1, 1, {}}, inside{1, 2, 4, 1, 1, 1, {}};
    const double slow = model::rough_iteration_s(m, t, crossing, g, net);
    const double send = 2048.0 * 2048 * 2 / (0.3125e9 / 8);  // one micro-batch's activations
    CHECK(slow >= send * 8);  // 8 micro-batches a replica
    CHECK(model::rough_iteration_s(m, t, inside, g, net) == model::rough_iteration_s(m, t, inside, g, model::Network{25}));
    // A tied embedding's gradient is all-reduced between the first and last stage on top.
    auto tied = m;
    tied.tied_embeddings = true;
    const double sync = 32000.0 * 2048 * 4 / (0.3125e9 / 8);
    CHECK(model::rough_iteration_s(tied, t, crossing, g, net) - slow == Approx(sync).epsilon(0.05));
}

TEST_CASE("the rough time paces a given split by its own busiest stage", "[model]") {
    const auto& m = catalog::find_model("espresso-llama-1.3b");  // 26 layers
    const auto t = training(2048, 64);
    const auto c = catalog::named_catalog("juchi");
    const catalog::GpuType& g = c.find("A30");
    const model::Network net{25};
    const model::Layout best{1, 2, 4, 1, 1, 1, {}}, even{1, 2, 4, 1, 1, 1, {13, 13}}, lopsided{1, 2, 4, 1, 1, 1, {20, 6}};
    const double b = model::rough_iteration_s(m, t, best, g, net), e = model::rough_iteration_s(m, t, even, g, net),
                 l = model::rough_iteration_s(m, t, lopsided, g, net);
    CHECK(e >= b);  // 13 and the loss on the last stage: no better than the best split
    // 20 layers on the first stage: 15 of the 16 micro-batches a replica paced by 20 layers, not 13.
    CHECK(l > e * 1.3);
    // The split's order counts: the loss goes on the last stage.
    const model::Layout reversed{1, 2, 4, 1, 1, 1, {6, 20}};
    CHECK(model::rough_iteration_s(m, t, reversed, g, net) > l);
}

TEST_CASE("a job's own micro-batch is the only one its plans use", "[model]") {
    const auto& m = catalog::find_model("llama-2-7b");
    const auto t = training(4096, 32);
    model::PlanOptions o;
    auto all = model::enumerate_plans(m, t, catalog::named_catalog("juchi"), o);
    o.micro_batch = 2;
    auto pinned = model::enumerate_plans(m, t, catalog::named_catalog("juchi"), o);
    REQUIRE_FALSE(pinned.empty());
    CHECK(pinned.size() < all.size());
    for (const auto& p : pinned) CHECK(p.layout.micro_batch == 2);
    size_t twos = 0;
    for (const auto& p : all) twos += p.layout.micro_batch == 2;
    CHECK(pinned.size() == twos);
}

TEST_CASE("a DeepSpeed job at ZeRO-3 gets no pipelined plan: at ZeRO-1 it does", "[model]") {
    const auto& m = catalog::find_model("llama-2-7b");
    auto t = training(4096, 32);
    t.framework = model::Framework::deepspeed;
    t.zero_stage = 3;
    const auto zero3 = model::enumerate_plans(m, t, catalog::named_catalog("juchi"), {});
    REQUIRE_FALSE(zero3.empty());
    for (const auto& p : zero3) CHECK(p.layout.pp == 1);
    t.zero_stage = 1;
    bool pipelined = false;
    for (const auto& p : model::enumerate_plans(m, t, catalog::named_catalog("juchi"), {})) pipelined |= p.layout.pp > 1;
    CHECK(pipelined);
}

TEST_CASE("an fsdp job gets no plan torchtitan would train in fp32: tp or pp without FSDP", "[model]") {
    const auto& m = catalog::find_model("llama-2-7b");
    auto t = training(4096, 8);
    t.framework = model::Framework::fsdp;
    t.zero_stage = 3;
    bool single = false, split_without_fsdp = false, split_with_fsdp = false;
    for (const auto& p : model::enumerate_plans(m, t, catalog::named_catalog("default"), {})) {
        const bool split = p.layout.tp > 1 || p.layout.pp > 1;
        single |= p.layout.gpus() == 1;
        split_without_fsdp |= split && p.layout.dp == 1;
        split_with_fsdp |= split && p.layout.dp > 1;
    }
    CHECK(single);  // one GPU: autocast
    CHECK_FALSE(split_without_fsdp);
    CHECK(split_with_fsdp);
    // In fp32 they are what the job asks for.
    t.precision = "fp32";
    split_without_fsdp = false;
    for (const auto& p : model::enumerate_plans(m, t, catalog::named_catalog("default"), {}))
        split_without_fsdp |= (p.layout.tp > 1 || p.layout.pp > 1) && p.layout.dp == 1;
    CHECK(split_without_fsdp);
}

TEST_CASE("a given layout yields its plan on each type it fits, with the fit check's peak", "[model]") {
    const auto& m = catalog::find_model("llama-2-7b");
    const auto t = training(4096, 32);
    const auto cat = catalog::named_catalog("default");
    model::PlanOptions o;
    o.layout = model::Layout{1, 2, 2, 1, 1, 1, {}};
    const auto plans = model::enumerate_plans(m, t, cat, o);
    REQUIRE_FALSE(plans.empty());
    for (const auto& p : plans) {
        CHECK(p.layout.tp == 1);
        CHECK(p.layout.pp == 2);
        CHECK(p.layout.dp == 2);
        CHECK(p.peak_gib <= cat.find(p.gpu).memory_gib * o.usable_fraction);
    }
    // The same numbers as that layout among every plan (micro-batch 1).
    model::PlanOptions every;
    every.micro_batch = 1;
    size_t matched = 0;
    for (const auto& q : model::enumerate_plans(m, t, cat, every))
        if (q.layout.tp == 1 && q.layout.pp == 2 && q.layout.dp == 2)
            for (const auto& p : plans)
                if (p.gpu == q.gpu) {
                    CHECK(p.peak_gib == q.peak_gib);
                    CHECK(p.iteration_s == q.iteration_s);
                    ++matched;
                }
    CHECK(matched == plans.size());
    // About 75 GiB a GPU: the 80 GB cards hold it, the 40 GB ones do not.
    auto has = [&](const std::string& gpu) {
        return std::any_of(plans.begin(), plans.end(), [&](const model::Plan& p) { return p.gpu == gpu; });
    };
    CHECK(has("A100-80GB-SXM"));
    CHECK_FALSE(has("A100-40GB-SXM"));
    // A layout the model cannot take is refused, not skipped.
    o.layout = model::Layout{3, 1, 1, 1, 1, 1, {}};
    CHECK_THROWS_AS(model::enumerate_plans(m, t, cat, o), DataError);
}

TEST_CASE("a larger micro-batch that needs less than a smaller one still gets its plan", "[model]") {
    // torchtitan before 0.2 on one GPU: with a single micro-batch FSDP2's fp32 gradients do not exist
    // when the loss back-propagates, so micro-batch 2 (one micro-batch) peaks below micro-batch 1 (two).
    const auto& m = catalog::find_model("llama-2-7b");
    auto t = training(128, 2);
    t.framework = model::Framework::fsdp;
    t.zero_stage = 3;
    t.framework_version = "0.1.0";
    model::Layout l{1, 1, 1, 1, 1, 1, {}};
    const double mb1 = model::estimate_memory(m, t, l, model::Measure::device).peak_bytes() / model::kGiB;
    l.micro_batch = 2;
    const double mb2 = model::estimate_memory(m, t, l, model::Measure::device).peak_bytes() / model::kGiB;
    REQUIRE(mb2 < mb1);
    auto cat = catalog::named_catalog("default");
    cat.gpus = {cat.find("H200-SXM")};
    model::PlanOptions o;
    o.max_gpus = 1;
    o.usable_fraction = (mb1 + mb2) / 2 / cat.gpus[0].memory_gib;  // holds micro-batch 2, not 1
    const auto plans = model::enumerate_plans(m, t, cat, o);
    REQUIRE(plans.size() == 1);
    CHECK(plans[0].layout.micro_batch == 2);
}

TEST_CASE("a type with quota 0 gets no plan, a negative quota is no limit", "[model]") {
    const auto& m = catalog::find_model("gpt2");
    auto cat = catalog::named_catalog("default");
    cat.gpus = {cat.find("A100-80GB-SXM"), cat.find("H100-SXM")};
    cat.gpus[0].quota = 0;
    cat.gpus[1].quota = -1;
    model::PlanOptions o;
    o.max_gpus = 8;
    const auto plans = model::enumerate_plans(m, training(1024, 8), cat, o);
    REQUIRE_FALSE(plans.empty());
    CHECK(std::all_of(plans.begin(), plans.end(), [](const model::Plan& p) { return p.gpu == "H100-SXM"; }));
    CHECK(std::any_of(plans.begin(), plans.end(), [](const model::Plan& p) { return p.layout.gpus() == 8; }));
}
