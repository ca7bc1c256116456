#include <catch2/catch.hpp>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/csv_table.hpp>
#include <hetsched/model/stage_memory.hpp>
#include <hetsched/model/transformer.hpp>
#include <hetsched/place/estimator.hpp>
#include <hetsched/place/problem_builder.hpp>

using namespace hetsched;

namespace {

model::JobSpec llama13b() {
    model::JobSpec job;
    job.model = catalog::find_model("espresso-llama-1.3b");
    job.training.seq_len = 2048;
    job.training.global_batch = 64;
    return job;
}

place::Allocation alloc(int dp, std::vector<std::string> stages) {
    place::Allocation a;
    a.dp = dp;
    a.stages = std::move(stages);
    return a;
}

io::YamlDocument doc(const std::string& text) { return io::parse_yaml({"job.yaml", text}); }

}  // namespace

TEST_CASE("the problem's memory limits are the memory model's, stage by stage", "[place]") {
    const auto cat = catalog::named_catalog("juchi");
    const auto job = llama13b();
    const auto p = place::make_problem(job, alloc(2, {"RTX-A6000", "A30", "A30", "RTX-A4000"}), cat, {});
    REQUIRE(p.types.size() == 3);
    CHECK(p.types[1].name == "A30");
    CHECK(p.types[1].stages == 2);
    CHECK(p.micro_batches == 32);
    const model::StageMemoryModel mem(job.model, job.training, {1, 4, 2, 1, 1, 1, {}}, model::Measure::device);
    for (const auto& t : p.types) {
        for (int pos = 0; pos < 4; ++pos) {
            const long most = t.max_layers[static_cast<size_t>(pos)];
            CAPTURE(t.name, pos, most);
            CHECK(mem.stage(pos, 0, most).total() <= t.usable_gib * model::kGiB);
            if (most < job.model.layers - 3) CHECK(mem.stage(pos, 0, most + 1).total() > t.usable_gib * model::kGiB);
        }
    }
}

TEST_CASE("each type's memory follows its GPU: Transformer Engine's workspace by compute capability", "[place]") {
    // Megatron-LM with Transformer Engine: a 32 MiB cuBLAS workspace from compute capability 9.0, 4 MiB
    // below, so a stage on an A100 (8.0) holds 28 MiB less than the same stage on an H100 (9.0).
    const auto cat = catalog::named_catalog("default");
    REQUIRE(cat.find("A100-80GB-SXM").compute_capability == Approx(8.0));
    REQUIRE(cat.find("H100-SXM").compute_capability == Approx(9.0));
    const auto p = place::make_problem(llama13b(), alloc(2, {"A100-80GB-SXM", "H100-SXM"}), cat, {});
    REQUIRE(p.types.size() == 2);
    REQUIRE(p.types[0].memory);
    REQUIRE(p.types[1].memory);
    const double a100 = p.types[0].memory->stage(0, 0, 12).total(), h100 = p.types[1].memory->stage(0, 0, 12).total();
    CHECK(h100 - a100 == Approx(28.0 * 1024 * 1024));
    // A job that ran with torch's default cuBLAS workspace (CUBLAS_WORKSPACE_CONFIG unset): torch's two
    // are 32 MiB on the H100 and 8.125 MiB on the A100, 47.75 MiB more between the two.
    auto job = llama13b();
    job.training.cublas_workspace_config = "default";
    const auto d = place::make_problem(job, alloc(2, {"A100-80GB-SXM", "H100-SXM"}), cat, {});
    CHECK(d.types[1].memory->stage(0, 0, 12).total() - d.types[0].memory->stage(0, 0, 12).total() ==
          Approx(75.75 * 1024 * 1024));
}

TEST_CASE("layer times come from FLOPs over achieved TFLOPS, links from the network", "[place]") {
    const auto cat = catalog::named_catalog("juchi");
    const auto job = llama13b();
    place::ProblemOptions o;
    o.efficiency = 0.5;
    o.network.inter_node_gb_s = 2;
    const auto p = place::make_problem(job, alloc(2, {"A30", "A30", "RTX-A4000"}), cat, o);
    // Flash attention over a causal mask: half the scores forward, 2.5 times that backward.
    const double matmul = model::layer_matmul_flops(job.model, 2048), scores = model::attention_flops(job.model, 2048, 2048);
    CHECK(p.types[0].forward[1] == Approx((matmul + scores / 2) / (165e12 * 0.5)));
    CHECK(p.types[0].backward[1] == Approx((2 * matmul + 2.5 * scores / 2) / (165e12 * 0.5)));
    // 2048 tokens x 2048 hidden x 2 bytes over a 2 GB/s NIC shared by the stage's 2 GPUs.
    CHECK(p.transfer_s(0, 1, 0) == Approx(2048.0 * 2048 * 2 / 1e9));
    CHECK(p.stage_params(0, 1) > p.stage_params(1, 1));  // stage 0 also syncs the embedding
    CHECK(p.types[0].allreduce_s_per_param > 0);
    CHECK(p.types[0].link_s == Approx(2048.0 * 2048 * 2 / 32e9));  // two A30 stages share a node (PCIe Gen4)
}

TEST_CASE("a type's stages fill its nodes in pipeline order: a full node's last stage sends across the network", "[place]") {
    // juchi's A30 with 4 GPUs a node and dp 2: two stages a node. Four A30 stages: 0-1 on a node, 2-3 on
    // the next; so 0 -> 1 and 2 -> 3 stay in the node (PCIe Gen4, 32 GB/s) and 1 -> 2 crosses the 2 GB/s
    // network, shared by the stage's 2 GPUs.
    auto cat = catalog::named_catalog("juchi");
    for (auto& g : cat.gpus) g.gpus_per_node = 4;
    place::ProblemOptions o;
    o.network.inter_node_gb_s = 2;
    const auto p = place::make_problem(llama13b(), alloc(2, {"A30", "A30", "A30", "A30"}), cat, o);
    const double boundary = 2048.0 * 2048 * 2;
    CHECK(p.transfer_s(0, 0, 0) == Approx(boundary / 32e9));
    CHECK(p.transfer_s(0, 0, 1) == Approx(boundary / (2e9 / 2)));
    CHECK(p.transfer_s(0, 0, 2) == Approx(boundary / 32e9));
    // The estimate prices each link so: stage 1's send is the slow one.
    const place::Placement pl{{0, 0, 0, 0}, {7, 7, 6, 6}};
    const auto e = place::estimate(p, pl);
    CHECK(e.stages[0].send_activation == Approx(boundary / 32e9));
    CHECK(e.stages[1].send_activation == Approx(boundary / 1e9));
    CHECK(e.stages[2].send_activation == Approx(boundary / 32e9));
}

TEST_CASE("a type's own network (nic_gb_s) times its links to other nodes: the slower NIC of two types", "[place]") {
    // juchi's A30 on nodes with a 1 GB/s network, its RTX-A4000 on the network's 2 GB/s; dp 4 fills a
    // node of either (4 GPUs share its NIC).
    auto cat = catalog::named_catalog("juchi");
    for (auto& g : cat.gpus) {
        if (g.name == "A30") g.nic_gb_s = 1;
        g.gpus_per_node = 4;
    }
    place::ProblemOptions o;
    o.network.inter_node_gb_s = 2;
    const auto p = place::make_problem(llama13b(), alloc(4, {"A30", "A30", "RTX-A4000"}), cat, o);
    REQUIRE(p.types.size() == 2);
    const double boundary = 2048.0 * 2048 * 2;  // one micro-batch's activation
    CHECK(p.types[0].link_s == Approx(boundary / (1e9 / 4)));      // A30 to A30: two nodes of A30s
    CHECK(p.transfer_s(0, 1, 0) == Approx(boundary / (1e9 / 4)));     // A30 to RTX-A4000: the A30's 1 GB/s
    CHECK(p.transfer_s(1, 0, 0) == Approx(p.transfer_s(0, 1, 0)));
    CHECK(p.types[1].link_s == Approx(boundary / (2e9 / 4)));      // the network's own speed
    CHECK(p.tied_sync_s == 0);                                      // untied
    // Without a type's own network every pair is the network's, as before.
    const auto plain = place::make_problem(llama13b(), alloc(4, {"A30", "A30", "RTX-A4000"}), catalog::named_catalog("juchi"), o);
    CHECK(plain.transfer_s(0, 1, 0) == Approx(boundary / (2e9 / 4)));
    CHECK(plain.transfer_s(1, 0, 0) == Approx(boundary / (2e9 / 4)));
}

TEST_CASE("each type's layer times follow the attention kernel it runs", "[place]") {
    const auto cat = catalog::named_catalog("default");
    auto job = llama13b();  // Megatron-Core's Transformer Engine layers, flash attention
    job.training.precision = "fp16";
    place::ProblemOptions o;
    o.efficiency = 0.5;
    const auto p = place::make_problem(job, alloc(1, {"V100-SXM2-32GB", "A100-80GB-SXM"}), cat, o);
    for (const auto& t : p.types) {
        CAPTURE(t.name);
        // Below compute capability 8.0 Transformer Engine falls back to unfused attention: every score.
        auto on = job.training;
        on.compute_capability = cat.find(t.name).compute_capability;
        const double matmul = model::layer_matmul_flops(job.model, 2048), scores = model::attention_flops(job.model, 2048, 2048);
        const auto w = model::micro_batch_work(job.model, on, 1);
        CHECK(w.layer_forward == Approx(matmul + (on.compute_capability < 8 ? scores : scores / 2)));
        CHECK(t.forward[1] == Approx(model::roofline_s(cat.find(t.name), cat.find(t.name).tflops, w.layer_forward, w.layer_forward_bytes, 0.5)));
    }
}

TEST_CASE("allocations that do not suit the job are refused at the allocation", "[place]") {
    const auto cat = catalog::named_catalog("juchi");
    auto a = alloc(3, {"A30", "A30"});
    a.where.file = "job.yaml";
    a.where.line = 7;
    try {
        place::make_problem(llama13b(), a, cat, {});
        FAIL("expected DataError");
    } catch (const DataError& e) {
        CHECK(e.pos().line == 7);
        CHECK(std::string(e.what()).find("not divisible") != std::string::npos);
    }
    CHECK_THROWS_AS(place::make_problem(llama13b(), alloc(1, std::vector<std::string>(27, "A30")), cat, {}), DataError);
}

TEST_CASE("allocations are read as stage lists, maps with a gpu key, or GPU counts", "[place]") {
    const auto cat = catalog::named_catalog("juchi");
    auto a = place::read_allocation(doc("allocation: {dp: 2, stages: [rtx-a6000, {gpu: A30}]}\n"), cat);
    CHECK(a.dp == 2);
    CHECK(a.stages == std::vector<std::string>{"RTX-A6000", "A30"});
    a = place::read_allocation(doc("allocation: {dp: 2, gpus: {A30: 4, RTX-A4000: 2}}\n"), cat);
    CHECK(a.stages == std::vector<std::string>{"A30", "A30", "RTX-A4000"});
    CHECK_THROWS_AS(place::read_allocation(doc("allocation: {dp: 2, gpus: {A30: 3}}\n"), cat), DataError);
    CHECK_THROWS_AS(place::read_allocation(doc("allocation: {dp: 0, stages: [A30]}\n"), cat), DataError);
    CHECK_THROWS_AS(place::read_allocation(doc("allocation: {dp: 1}\n"), cat), DataError);
    CHECK_THROWS_AS(place::read_allocation(doc("model: {}\n"), cat), DataError);
    // One type twice, spelt two ways: refused, not summed.
    CHECK_THROWS_AS(place::read_allocation(doc("allocation: {dp: 2, gpus: {a30: 2, A30: 2}}\n"), cat), DataError);
    try {
        place::read_allocation(doc("allocation:\n  dp: 1\n  stages: [A30, V100]\n"), cat);
        FAIL("expected DataError");
    } catch (const DataError& e) {
        CHECK(e.pos().line == 3);
        CHECK(e.pos().col == 17);
    }
}

TEST_CASE("an allocation's keys: a stage's own width refused, other keys told about, pp and micro_batch read", "[place]") {
    const auto cat = catalog::named_catalog("juchi");
    // A stage's dp, tp or GPU count that is the allocation's is what the stage has anyway.
    auto a = place::read_allocation(doc("allocation: {dp: 2, tp: 2, stages: [{gpu: A30, dp: 2, tp: 2, gpus: 4}]}\n"), cat);
    CHECK(a.warnings.empty());
    // Another one is refused at its value: stages of their own width are not modelled.
    for (const char* stage : {"{gpu: A30, dp: 4}", "{gpu: A30, tp: 1}", "{gpu: A30, gpus: 8}"}) {
        try {
            place::read_allocation(doc(std::string("allocation: {dp: 2, tp: 2, stages: [") + stage + "]}\n"), cat);
            FAIL("expected DataError");
        } catch (const DataError& e) {
            CHECK_THAT(std::string(e.what()), Catch::Contains("every stage runs on allocation.dp x allocation.tp GPUs"));
            CHECK(e.pos().col > 30);
        }
    }
    // Keys not read, in a stage or in the allocation, are told about at their place; planalloc's pass.
    a = place::read_allocation(doc("allocation: {dp: 1, stages: [{gpu: A30, layer: 3, replicas: 2}], cost: 3, "
                                   "tensor_parallel: 2}\n"),
                               cat);
    REQUIRE(a.warnings.size() == 3);
    CHECK_THAT(a.warnings[0], Catch::StartsWith("job.yaml:1:") && Catch::Contains("'tensor_parallel' in allocation is not read"));
    CHECK_THAT(a.warnings[1], Catch::Contains("'layer' in a stage is not read, did you mean 'layers'?"));
    CHECK_THAT(a.warnings[2], Catch::Contains("'replicas' in a stage is not read"));
    // planalloc's pp must match the stages; its micro-batch is kept for the job.
    CHECK_THROWS_WITH(place::read_allocation(doc("allocation: {dp: 1, pp: 2, stages: [A30]}\n"), cat),
                      Catch::Contains("pp 2 but the allocation has 1 stage"));
    a = place::read_allocation(doc("allocation: {dp: 1, pp: 2, micro_batch: 4, gpus: {A30: 2}}\n"), cat);
    CHECK(a.micro_batch == 4L);
    CHECK(a.micro_batch_where.col == 41);  // the value 4
}

TEST_CASE("a plan is timed with the settings planalloc timed it with, unless a flag says otherwise", "[place]") {
    const auto cat = catalog::named_catalog("juchi");
    const auto a = place::read_allocation(
        doc("allocation: {dp: 1, stages: [A30], schedule: blocking, measure: allocated, usable_fraction: 1, "
            "efficiency: 0.9}\n"),
        cat);
    place::ProblemOptions flags;  // the defaults, no flag given
    auto po = place::with_planned_settings(flags, a);
    CHECK(po.schedule == place::ScheduleKind::blocking);
    CHECK(po.measure == model::Measure::allocated);
    CHECK(po.usable_fraction == 1.0);
    CHECK(po.efficiency == 0.9);
    // Flags given win, each on its own.
    flags.efficiency = 0.3;
    flags.given.efficiency = true;
    po = place::with_planned_settings(flags, a);
    CHECK(po.efficiency == 0.3);
    CHECK(po.measure == model::Measure::allocated);
    // An allocation without them leaves the flags' values.
    po = place::with_planned_settings(flags, place::read_allocation(doc("allocation: {dp: 1, stages: [A30]}\n"), cat));
    CHECK(po.measure == model::Measure::device);
    CHECK(po.usable_fraction == place::ProblemOptions{}.usable_fraction);
    // Out of the flags' ranges: refused where written.
    CHECK_THROWS_AS(place::read_allocation(doc("allocation: {dp: 1, stages: [A30], efficiency: 2}\n"), cat), DataError);
    CHECK_THROWS_AS(place::read_allocation(doc("allocation: {dp: 1, stages: [A30], measure: peak}\n"), cat), DataError);
}

TEST_CASE("profiles give per-layer times and refuse what they cannot answer", "[place]") {
    const auto cat = catalog::named_catalog("juchi");
    const auto table = io::CsvTable::parse(io::read_input(std::string(HETSCHED_TEST_DATA) + "/layer_profile.csv"));
    const auto prof = model::read_layer_profile(table, 26, 1, cat);
    const auto& a30 = prof.complete("A30");
    CHECK(a30.forward[0] == Approx(0.00356));
    CHECK(a30.forward[1] == Approx(0.0031));
    CHECK(a30.head_forward == Approx(0.0004));
    CHECK_THROWS_AS(prof.complete("RTX-3090"), DataError);
    CHECK_THROWS_AS(model::read_layer_profile(table, 26, 2, cat), DataError);  // micro-batch differs
    CHECK_THROWS_AS(model::read_layer_profile(table, 20, 1, cat), DataError);  // layer 20 out of range

    auto job = llama13b();
    place::ProblemOptions o;
    o.profile = &prof;
    const auto p = place::make_problem(job, alloc(1, {"A30", "RTX-A4000"}), cat, o);
    CHECK(p.forward_s(0, 0, 0, 2) == Approx(0.0004 + 0.00356 + 0.0031));
    CHECK(p.types[1].tail_forward == Approx(0.0072 * 1.6));
    // A profile's backward is without recomputation: full recompute replays each layer's forward.
    const double plain = p.backward_s(0, 1, 1, 2);
    job.training.recompute = model::Recompute::full;
    const auto full = place::make_problem(job, alloc(1, {"A30", "RTX-A4000"}), cat, o);
    CHECK(full.backward_s(0, 1, 1, 2) == Approx(plain + 0.0031 + 0.0031));
    // Selective: the share of the forward the compute model replays (the core attention), less.
    job.training.recompute = model::Recompute::selective;
    job.training.flash_attention = false;
    const auto selective = place::make_problem(job, alloc(1, {"A30", "RTX-A4000"}), cat, o);
    CHECK(selective.backward_s(0, 1, 1, 2) > plain);
    CHECK(selective.backward_s(0, 1, 1, 2) < plain + 0.0031);
}

TEST_CASE("a profile's rows of types the catalog lacks are left out with a warning, layer names read in any case", "[place]") {
    const auto cat = catalog::named_catalog("juchi");
    const auto table = io::CsvTable::parse({"p.csv", "gpu,layer,forward_s,backward_s\n"
                                                     "A30,*,0.002,0.005\n"
                                                     "H100-SXM,*,0.001,0.002\n"
                                                     "H100-SXM,Embedding,0.001,0.002\n"
                                                     "A30,OUTPUT,0.003,0.006\n"});
    const auto prof = model::read_layer_profile(table, 26, 1, cat);
    REQUIRE(prof.warnings.size() == 1);  // once a type
    CHECK_THAT(prof.warnings[0], Catch::StartsWith("p.csv:3:1: unknown GPU type 'H100-SXM'") &&
                                     Catch::EndsWith("its rows are left out"));
    CHECK(prof.complete("A30").tail_forward == Approx(0.003));
    CHECK_THROWS_AS(prof.complete("RTX-3090"), DataError);  // a type without rows, asked for
}

TEST_CASE("a profile of several micro-batches gives the job's rows", "[place]") {
    const auto cat = catalog::named_catalog("juchi");
    const auto table = io::CsvTable::parse({"mb.csv", "gpu,layer,micro_batch,forward_s,backward_s,tp\n"
                                                      "A30,*,1,0.002,0.005,4\n"
                                                      "A30,*,2,0.0035,0.009,4\n"});
    CHECK(model::read_layer_profile(table, 26, 1, cat).complete("A30").forward[3] == Approx(0.002));
    const auto two = model::read_layer_profile(table, 26, 2, cat);
    CHECK(two.complete("A30").backward[3] == Approx(0.009));
    CHECK(two.tp == 4);  // the tp of the rows it keeps, the first of which is not the file's first
    try {
        model::read_layer_profile(table, 26, 4, cat);
        FAIL("expected DataError");
    } catch (const DataError& e) {
        CHECK(e.pos().line == 2);
        CHECK_THAT(std::string(e.what()), Catch::Contains("no row measured with the job's micro-batch 4 (the profile has 1, 2"));
    }
}

TEST_CASE("a profile measured at a tensor-parallel degree times allocations of that degree", "[place]") {
    const auto cat = catalog::named_catalog("juchi");
    const auto table = io::CsvTable::parse({"tp.csv", "gpu,layer,forward_s,backward_s,tp\n"
                                                      "A30,*,0.002,0.005,2\n"
                                                      "A30,embedding,0.0003,0.0006,2\n"});
    const auto prof = model::read_layer_profile(table, 26, 1, cat);
    CHECK(prof.tp == 2);
    auto job = llama13b();
    place::ProblemOptions o;
    o.profile = &prof;
    auto a = alloc(1, {"A30"});
    a.tp = 2;
    a.where = {"job.yaml", 7, 3};
    // The measured times already hold the layer's own all-reduces: nothing is added for them.
    const auto p = place::make_problem(job, a, cat, o);
    CHECK(p.types[0].forward[2] == Approx(2 * 0.002));
    CHECK(p.types[0].backward[3] == Approx(3 * 0.005));
    CHECK(p.types[0].head_forward == Approx(0.0003));
    // Another degree is refused where the allocation says it.
    a.tp = 4;
    try {
        place::make_problem(job, a, cat, o);
        FAIL("expected DataError");
    } catch (const DataError& e) {
        CHECK(e.pos().line == 7);
        CHECK(e.pos().col == 3);
        CHECK_THAT(std::string(e.what()), Catch::Contains("has times measured at tp 2, the allocation uses tp 4"));
    }
    // A profile of two degrees is refused at the row that changes it.
    try {
        model::read_layer_profile(io::CsvTable::parse({"two.csv", "gpu,layer,forward_s,backward_s,tp\n"
                                                                   "A30,*,0.002,0.005,2\n"
                                                                   "A30,embedding,0.0003,0.0006,4\n"}),
                                  26, 1, cat);
        FAIL("expected DataError");
    } catch (const DataError& e) {
        CHECK(e.pos().line == 3);
        CHECK(e.pos().col == 29);
        CHECK_THAT(std::string(e.what()), Catch::Contains("row measured at tp 4, the rows above at tp 2"));
    }
    // Told the allocation's tp, a profile of several degrees gives that degree's rows.
    const auto both = io::CsvTable::parse({"both.csv", "gpu,layer,forward_s,backward_s,tp\n"
                                                       "A30,*,0.004,0.009,1\n"
                                                       "A30,*,0.002,0.005,2\n"});
    CHECK(model::read_layer_profile(both, 26, 1, cat, 2).complete("A30").forward[0] == Approx(0.002));
    CHECK(model::read_layer_profile(both, 26, 1, cat, 1).complete("A30").forward[0] == Approx(0.004));
    CHECK_THROWS_WITH(model::read_layer_profile(both, 26, 1, cat, 4),
                      Catch::Contains("no row measured at the allocation's tp 4 (the profile's rows are at tp 1, 2"));
    // A type whose rows are all at another degree is told so, at its first such row.
    const auto split_types = io::CsvTable::parse({"st.csv", "gpu,layer,forward_s,backward_s,tp\n"
                                                            "RTX-A4000,*,0.004,0.009,1\n"
                                                            "A30,*,0.002,0.005,2\n"});
    CHECK_THROWS_WITH(model::read_layer_profile(split_types, 26, 1, cat, 2).complete("RTX-A4000"),
                      Catch::Contains("no row for RTX-A4000 measured at the allocation's tp 2 (its rows are at tp 1"));
    // Without a tp column the times are of whole layers: tp 1 only.
    const auto whole = io::CsvTable::parse({"one.csv", "gpu,layer,forward_s,backward_s\nA30,*,0.002,0.005\n"});
    const auto one = model::read_layer_profile(whole, 26, 1, cat);
    CHECK(one.tp == 1);
    o.profile = &one;
    a.tp = 2;
    CHECK_THROWS_WITH(place::make_problem(job, a, cat, o), Catch::Contains("it has no tp column"));
}

TEST_CASE("each stage's optimizer step is priced by its type's memory bandwidth", "[place]") {
    const auto cat = catalog::named_catalog("juchi");
    const auto job = llama13b();
    const auto p = place::make_problem(job, alloc(2, {"A30", "RTX-A4000"}), cat, {});
    for (const auto& t : p.types) {
        const double bw = cat.find(t.name).mem_bw_gb_s;
        CAPTURE(t.name, bw);
        REQUIRE(bw > 0);
        CHECK(t.optimizer_s_per_param == Approx(model::optimizer_step_bytes(job.training, 2) / (bw * 1e9 * 0.8)));
    }
    CHECK(p.tail_s(1, 1, 3) == Approx(p.stage_params(1, 3) * (p.types[1].allreduce_s_per_param +
                                                              p.types[1].optimizer_s_per_param)));
}

TEST_CASE("tensor parallelism splits each stage's layers over tp GPUs of a node and syncs them", "[place]") {
    const auto cat = catalog::named_catalog("juchi");
    const auto job = llama13b();
    auto a = alloc(1, {"A30", "A30"});
    const auto one = place::make_problem(job, a, cat, {});
    a.tp = 2;
    const auto two = place::make_problem(job, a, cat, {});
    CHECK(two.tp == 2);
    const auto& g = cat.find("A30");
    // Half the FLOPs per GPU, plus two all-reduces of the layer's 2048 x 2048 x 2-byte output over
    // the pair's PCIe link each way.
    const double sync = 2 * model::ring_allreduce_s(2048.0 * 2048 * 2, 2, model::intra_node_bytes_s(g, {}));
    CHECK(two.types[0].forward[1] == Approx(one.types[0].forward[1] / 2 + sync));
    CHECK(two.types[0].backward[1] == Approx(one.types[0].backward[1] / 2 + sync));
    CHECK(two.layer_params < one.layer_params);
    // Memory is the memory model's at tp 2.
    const model::StageMemoryModel mem(job.model, job.training, {2, 2, 1, 1, 1, 1, {}}, model::Measure::device);
    const long most = two.types[0].max_layers[0];
    CHECK(mem.stage(0, 0, most).total() <= two.types[0].usable_gib * model::kGiB);
    CHECK(most > one.types[0].max_layers[0]);
    a.tp = 16;  // more than a node
    CHECK_THROWS_AS(place::make_problem(job, a, cat, {}), DataError);
}

TEST_CASE("an allocation's GPU counts divide into stages of dp x tp GPUs", "[place]") {
    const auto cat = catalog::named_catalog("juchi");
    const auto read = [&](const std::string& text) { return place::read_allocation(doc(text), cat); };
    const auto a = read("allocation: {tp: 2, dp: 2, gpus: {A30: 8, RTX-A4000: 4}}\n");
    CHECK(a.tp == 2);
    CHECK(a.stages.size() == 3);
    CHECK_THROWS_WITH(read("allocation: {tp: 2, dp: 2, gpus: {A30: 6}}\n"),
                      Catch::Contains("expected a positive multiple of dp x tp (4) GPUs of A30, got 6"));
    CHECK_THROWS_AS(read("allocation: {tp: 0, dp: 2, gpus: {A30: 8}}\n"), DataError);
}

TEST_CASE("a tied embedding's gradient is synced between the first and the last stage", "[place]") {
    // gpt3-1.3b ties its output layer to the word embedding (not its position table): Megatron-LM
    // all-reduces the 4-byte gradient of each tp rank's rows of the padded vocabulary between the first
    // and last stage, over the network (2 GB/s NIC shared by the stage's dp x tp = 2 GPUs on a node), or
    // within a node when the pipeline fits.
    const auto cat = catalog::named_catalog("juchi");
    model::JobSpec job;
    job.model = catalog::find_model("gpt3-1.3b");
    REQUIRE(job.model.tied_embeddings);
    job.training.seq_len = 2048;
    job.training.global_batch = 64;
    place::ProblemOptions o;
    o.network.inter_node_gb_s = 2;
    const double h = static_cast<double>(job.model.hidden);
    const double bytes = static_cast<double>(model::padded_vocab(job.model, 1, true)) * h * 4;
    const auto mixed = place::make_problem(job, alloc(2, {"A30", "RTX-A4000"}), cat, o);
    CHECK(mixed.tied_sync_s == Approx(bytes / (2e9 / 2)));
    CHECK_FALSE(mixed.tied_before_allreduce);
    const auto& g = cat.find("A30");
    const auto one_node = place::make_problem(job, alloc(2, {"A30", "A30"}), cat, o);  // 4 GPUs of a node
    REQUIRE(2 * 2 <= g.gpus_per_node);
    CHECK(one_node.tied_sync_s == Approx(bytes / model::intra_node_bytes_s(g, o.network)));
    // DeepSpeed syncs it before the data-parallel all-reduce: in fp16 its 16-bit grad, in bf16 (0.17.5)
    // the BF16 optimizer's fp32 one.
    job.training.framework = model::Framework::deepspeed;
    const double rows = static_cast<double>(model::padded_vocab(job.model, 1, model::pads_vocab(job.model, job.training))) * h;
    const auto bf16 = place::make_problem(job, alloc(2, {"A30", "RTX-A4000"}), cat, o);
    CHECK(bf16.tied_sync_s == Approx(rows * 4 / (2e9 / 2)));
    job.training.precision = "fp16";
    const auto ds = place::make_problem(job, alloc(2, {"A30", "RTX-A4000"}), cat, o);
    CHECK(ds.tied_sync_s == Approx(rows * 2 / (2e9 / 2)));
    CHECK(ds.tied_before_allreduce);
    // With fp32_allreduce DeepSpeed reduces the data-parallel grads in fp32, the tied one still in 16 bits.
    job.training.fp32_allreduce = true;
    const auto ds32 = place::make_problem(job, alloc(2, {"A30", "RTX-A4000"}), cat, o);
    CHECK(ds32.tied_sync_s == Approx(ds.tied_sync_s));
    for (size_t i = 0; i < ds.types.size(); ++i)
        CHECK(ds32.types[i].allreduce_s_per_param == Approx(2 * ds.types[i].allreduce_s_per_param));
    job.training.fp32_allreduce = false;
    job.training.precision = "bf16";
    // Nothing to sync: one stage, untied embeddings, or torchtitan (no tying across stages).
    CHECK(place::make_problem(job, alloc(2, {"A30"}), cat, o).tied_sync_s == 0);
    job.training.framework = model::Framework::fsdp;
    CHECK(place::make_problem(job, alloc(2, {"A30", "RTX-A4000"}), cat, o).tied_sync_s == 0);
    CHECK(place::make_problem(llama13b(), alloc(2, {"A30", "RTX-A4000"}), cat, o).tied_sync_s == 0);
}

TEST_CASE("the schedule follows the job's framework unless an option names one", "[place]") {
    const auto cat = catalog::named_catalog("juchi");
    auto job = llama13b();
    CHECK(place::make_problem(job, alloc(2, {"A30", "A30"}), cat, {}).schedule == place::ScheduleKind::overlapped);
    job.training.framework = model::Framework::deepspeed;  // its pipeline engine's sends block the stage
    CHECK(place::make_problem(job, alloc(2, {"A30", "A30"}), cat, {}).schedule == place::ScheduleKind::blocking);
    place::ProblemOptions o;
    o.schedule = place::ScheduleKind::overlapped;
    CHECK(place::make_problem(job, alloc(2, {"A30", "A30"}), cat, o).schedule == place::ScheduleKind::overlapped);
}

TEST_CASE("across nodes the tp ranks' gradient rings share a node's network", "[place]") {
    // 16 A30s a stage (8 a node): dp 16 at tp 1 is one ring, through each node's 2 GB/s network once
    // each way; dp 8 at tp 2 is two rings of half the gradients, both through it: a parameter's
    // bytes take 2 x 7/8 over 1 GB/s, not over 2.
    const auto cat = catalog::named_catalog("juchi");
    const auto job = llama13b();
    place::ProblemOptions o;
    o.network.inter_node_gb_s = 2;
    const double per_param = model::gradient_sync(job.training).bytes_per_param;
    const auto one = place::make_problem(job, alloc(16, {"A30", "A30"}), cat, o);
    CHECK(one.types[0].allreduce_s_per_param == Approx(2.0 * 15 / 16 * per_param / 2e9));
    place::Allocation two = alloc(8, {"A30", "A30"});
    two.tp = 2;
    const auto p = place::make_problem(job, two, cat, o);
    CHECK(p.types[0].allreduce_s_per_param == Approx(2.0 * 7 / 8 * per_param / 1e9));
}
