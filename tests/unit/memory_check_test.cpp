#include <catch2/catch.hpp>

#include <tuple>

#include <hetsched/model/memory_check.hpp>

using namespace hetsched;

// How memest --check reads a measured run: its columns, words and cells, and the rows it skips.

namespace {

/// The columns the tests' rows give, in their order: the required ones and five optional ones (vpp, cp,
/// distributed_optimizer, seq_parallel, stage_measured).
const std::string kColumns = "id,layers,hidden,heads,kv_heads,ffn_hidden,gated_mlp,vocab,tied_embeddings,seq_len,"
                              "micro_batch,global_batch,tp,pp,vpp,dp,cp,zero_stage,distributed_optimizer,recompute,"
                              "seq_parallel,flash_attn,precision,stage_measured,measured_gib,measure_kind";

/// The runs of CSV `text`, named m.csv in messages.
model::MeasuredRuns read_csv(const std::string& text) {
    return model::read_measured_runs(io::CsvTable::parse({"m.csv", text}));
}

}  // namespace

TEST_CASE("measured-run reader skips a bad row with its reason and checks the rest", "[model]") {
    std::string text = io::read_input(HETSCHED_TEST_DATA "/memory_measured.csv").text;
    text.replace(text.find(",53.219,"), 8, ",-1,");
    const auto read = read_csv(text);
    REQUIRE(read.skipped.size() == 1);
    CHECK(read.skipped[0].id == "mlm-ci-7b-tp4pp1-h100");
    CHECK(read.skipped[0].reason.rfind("m.csv:2:", 0) == 0);
    CHECK(read.skipped[0].reason.find("expected a number from 0.001 to 100000 in column 'measured_gib', got '-1'") !=
          std::string::npos);
    CHECK(read.runs.size() == 16);
}

TEST_CASE("A measured run's table may leave out the features it does not use", "[model]") {
    // No vpp, cp, distributed_optimizer, seq_parallel or stage_measured column: each off, the whole
    // model measured; a pipeline row must say which stage it measured.
    const std::string header = "id,layers,hidden,heads,kv_heads,ffn_hidden,gated_mlp,vocab,tied_embeddings,seq_len,"
                               "micro_batch,global_batch,tp,pp,dp,zero_stage,recompute,flash_attn,precision,measured_gib,"
                               "measure_kind\n";
    const auto read = read_csv(header + "a,32,4096,32,32,11008,1,32000,0,4096,1,16,1,1,8,0,full,1,bf16,20,allocated\n"
                                        "b,32,4096,32,32,11008,1,32000,0,4096,1,16,1,4,2,0,full,1,bf16,20,allocated\n");
    REQUIRE(read.runs.size() == 1);
    const auto& a = read.runs[0];
    CHECK((a.layout.vpp == 1 && a.layout.cp == 1 && a.stage == "all"));
    CHECK((!a.training.distributed_optimizer && !a.training.seq_parallel));
    REQUIRE(read.skipped.size() == 1);
    CHECK_THAT(read.skipped[0].reason, Catch::StartsWith("m.csv:3:45: a pipeline run (pp 4) needs stage_measured"));
    // The same run with the five columns, empty or off, reads the same.
    const auto full = read_csv(kColumns + "\na,32,4096,32,32,11008,1,32000,0,4096,1,16,1,1,,8,,0,0,full,0,1,bf16,,20,allocated\n");
    REQUIRE(full.runs.size() == 1);
    CHECK(model::check_runs(full.runs, model::Method::framework).at(0).predicted_gib ==
          model::check_runs(read.runs, model::Method::framework).at(0).predicted_gib);
}

TEST_CASE("A measured run with an explicit split, measured on one stage", "[model]") {
    // A pp=4 row, first as an even split, then 8,9,9,6: stage 1 (the second) holds 9 layers, more than
    // the even split's 8, so the prediction for stage 1 grows, and the last stage's shrinks.
    const std::string header = kColumns + ",layers_per_stage\n";
    auto row = [](const std::string& stage, const std::string& split) {
        return "r,32,4096,32,32,11008,1,32000,0,4096,1,16,1,4,1,1,1,0,0,none,0,1,bf16," + stage + ",20,allocated," + split + "\n";
    };
    auto predict = [&](const std::string& stage, const std::string& split) {
        const auto read = read_csv(header + row(stage, split));
        REQUIRE(read.skipped.empty());
        return model::check_runs(read.runs, model::Method::framework).at(0).predicted_gib;
    };
    CHECK(predict("1", "8 9 9 6") > predict("1", ""));
    CHECK(predict("last", "8;9;9;6") < predict("last", ""));
    CHECK(predict("middle", "") == predict("1", ""));
    // A split that does not add up, or an index past pp, skips the row with its reason.
    for (const auto& [stage, split, why] : {std::tuple<std::string, std::string, std::string>{"1", "8 9 9 7", "sums to 33"},
                                            {"4", "", "stage index from 0 to 3"},
                                            {"1", "8 9 x 6", "layers_per_stage"},
                                            {"1e0", "", "stage index from 0 to 3"},
                                            {"1", " ; ", "layers_per_stage"}}) {
        const auto read = read_csv(header + row(stage, split));
        REQUIRE(read.skipped.size() == 1);
        CHECK_THAT(read.skipped[0].reason, Catch::Contains(why));
    }
    // A combination of cells is told at the column its message begins with: the split's, tp's.
    const std::string sums = row("1", "8 9 9 7");
    CHECK_THAT(read_csv(header + sums).skipped.at(0).reason,
               Catch::StartsWith("m.csv:2:" + std::to_string(sums.rfind(',') + 2) + ": layers_per_stage sums to 33"));
    std::string thin = row("1", "1 15 8 8");  // interleaved (vpp 2): stage 0's one layer cannot make two chunks
    size_t vpp_at = 0;
    for (int field = 0; field < 14; ++field) vpp_at = thin.find(',', vpp_at) + 1;  // vpp is the 15th column
    thin.replace(vpp_at, 1, "2");
    CHECK_THAT(read_csv(header + thin).skipped.at(0).reason,
               Catch::StartsWith("m.csv:2:" + std::to_string(thin.rfind(',') + 2) + ": layers_per_stage: stage 0"));
    std::string tp3 = row("1", "");
    size_t tp_at = 0;
    for (int field = 0; field < 12; ++field) tp_at = tp3.find(',', tp_at) + 1;  // tp is the 13th column
    tp3.replace(tp_at, 1, "3");
    CHECK_THAT(read_csv(header + tp3).skipped.at(0).reason,
               Catch::StartsWith("m.csv:2:" + std::to_string(tp_at + 1) + ": tp (3) must divide heads (32)"));
}

TEST_CASE("A measured run's GPU: its capability read or looked up, a precision it cannot run skips the row", "[model]") {
    auto row = [](const std::string& precision, const std::string& gpu, const std::string& capability) {
        return "r,32,4096,32,32,11008,1,32000,0,4096,1,16,1,1,1,1,1,0,0,full,0,1," + precision + ",all,20,allocated," +
               gpu + "," + capability + "\n";
    };
    const std::string header = kColumns + ",gpu,compute_capability\n";
    // The catalog's family: an A100 row runs bf16, a V100 one does not (skipped, at the precision cell).
    CHECK(read_csv(header + row("bf16", "a100-sxm4-80gb", "")).runs.at(0).training.compute_capability == 8.0);
    auto v100 = read_csv(header + row("bf16", "v100-sxm2-32gb", ""));
    REQUIRE(v100.skipped.size() == 1);
    CHECK_THAT(v100.skipped[0].reason, Catch::StartsWith("m.csv:2:") &&
                                           Catch::Contains("bf16 needs compute capability 8.0") &&
                                           Catch::Contains("(compute capability 7)"));
    CHECK(read_csv(header + row("fp16", "v100-sxm2-32gb", "")).skipped.empty());
    // The column overrides the family and must read as CUDA's major.minor.
    CHECK(read_csv(header + row("bf16", "v100-sxm2-32gb", "9.0")).runs.at(0).training.compute_capability == 9.0);
    for (const char* bad : {"42", "8.95", "0.5", "x"})
        CHECK(read_csv(header + row("bf16", "h100", bad)).skipped.size() == 1);
    // A GPU of no family the catalog lists reads as unknown, with one warning a name.
    auto named = [](const std::string& id, const std::string& line) { return id + line.substr(1); };  // ids apart
    const auto gb200 = read_csv(header + named("a", row("bf16", "gb200", "")) + named("b", row("bf16", "gb200", "")) +
                                named("c", row("bf16", "h1OO", "")));
    CHECK(gb200.runs.size() == 3);
    CHECK(gb200.runs.at(0).training.compute_capability == 0);
    REQUIRE(gb200.warnings.size() == 2);
    CHECK_THAT(gb200.warnings[0], Catch::StartsWith("m.csv:2:") && Catch::Contains("gpu 'gb200' is of no family"));
    CHECK_THAT(gb200.warnings[1], Catch::StartsWith("m.csv:4:") && Catch::Contains("gpu 'h1OO'"));
    CHECK(read_csv(header + row("bf16", "gb200", "10.0")).warnings.empty());
}

TEST_CASE("A measured run's words read in any case, and torch's and nvidia-smi's names for the measures", "[model]") {
    const std::string header = kColumns + ",framework\n";
    auto row = [](const std::string& recompute, const std::string& precision, const std::string& stage,
                  const std::string& kind, const std::string& framework) {
        return "r,32,4096,32,32,11008,1,32000,0,4096,1,16,2,4,1,2,1,0,0," + recompute + ",0,1," + precision + "," +
               stage + ",20," + kind + "," + framework + "\n";
    };
    auto read = [&](const std::string& text) {
        const auto runs = read_csv(header + text);
        REQUIRE(runs.skipped.empty());
        return runs.runs.at(0);
    };
    const auto lower = read(row("full", "bf16", "first", "allocated", "megatron"));
    const auto upper = read(row("Full", "BF16", "First", "Max_Memory_Allocated", "Megatron"));
    CHECK(upper.training.recompute == lower.training.recompute);
    CHECK(upper.training.precision == "bf16");
    CHECK(upper.stage == "first");
    CHECK(upper.measure == model::Measure::allocated);
    CHECK(upper.training.framework == model::Framework::megatron);
    CHECK(model::check_runs({upper}, model::Method::framework).at(0).predicted_gib ==
          model::check_runs({lower}, model::Method::framework).at(0).predicted_gib);
    CHECK(read(row("full", "bf16", "first", "max_memory_reserved", "megatron")).measure == model::Measure::reserved);
    CHECK(read(row("full", "bf16", "first", "nvidia-smi", "megatron")).measure == model::Measure::device);
    CHECK(read(row("full", "bf16", "first", "NVIDIA_SMI", "megatron")).measure == model::Measure::device);
    // A word that is none of them is still refused at its cell.
    const auto bad = read_csv(header + row("full", "bf16", "first", "peak", "megatron"));
    REQUIRE(bad.skipped.size() == 1);
    CHECK_THAT(bad.skipped[0].reason, Catch::Contains("unknown measure 'peak'"));
}

TEST_CASE("A stage index checks against frenzy's single stage too", "[model]") {
    const std::string text = kColumns + "\n"
                             "r,32,4096,32,32,11008,1,32000,0,4096,1,16,1,4,1,1,1,0,0,none,0,1,bf16,3,20,allocated\n";
    const auto read = read_csv(text);
    const auto rows = model::check_runs(read.runs, model::Method::frenzy);
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].predicted_gib > 0);
}

TEST_CASE("a run's framework comes from its column, else from the software its source names", "[model]") {
    const std::string header = kColumns + ",source";
    auto read = [&](const std::string& extra_header, const std::string& source, const std::string& extra) {
        const std::string text = header + extra_header + "\nr,32,4096,32,8,14336,1,128256,0,8192,1,16,1,1,1,8,1,3,0,"
                                 "selective,0,1,bf16,all,80,max_reserved," + source + extra + "\n";
        const auto runs = read_csv(text);
        REQUIRE(runs.skipped.empty());
        return runs.runs.at(0).training;
    };
    CHECK(read("", "pytorch/torchtitan benchmarks", "").framework == model::Framework::fsdp);
    CHECK(read("", "microsoft/DeepSpeed issue 123", "").framework == model::Framework::deepspeed);
    CHECK(read("", "a blog", "").framework == model::Framework::fsdp);  // ZeRO-3 without a name: FSDP
    CHECK(read(",framework", "microsoft/DeepSpeed issue 123", ",fsdp").framework == model::Framework::fsdp);
    CHECK(read(",framework", "pytorch/torchtitan", ",").framework == model::Framework::fsdp);  // empty cell
    CHECK(!read("", "pytorch/torchtitan", "").compiled);
    CHECK(!read("", "pytorch/torchtitan compile: none", "").compiled);  // negated after the word
    CHECK(read("", "pytorch/torchtitan compile on", "").compiled);
    CHECK(read(",compile", "pytorch/torchtitan", ",1").compiled_loss);  // a true cell: model and loss
    CHECK(read(",compile", "pytorch/torchtitan", ",model").compiled);
    CHECK(!read(",compile", "pytorch/torchtitan", ",model").compiled_loss);
    CHECK(read(",first_iteration", "pytorch/torchtitan", ",1").first_iteration);
    CHECK(!read(",first_iteration", "pytorch/torchtitan", ",").first_iteration);
    CHECK(read(",framework,fp32_allreduce", "a DeepSpeed blog", ",deepspeed,1").fp32_allreduce);
    CHECK(!read(",framework,fp32_allreduce", "a DeepSpeed blog", ",deepspeed,").fp32_allreduce);
    const auto buckets = read(",framework,reduce_bucket_size,overlap_comm,sub_group_size", "a DeepSpeed blog",
                              ",deepspeed,2e8,0,5e8");
    CHECK(buckets.reduce_bucket_size == Approx(2e8));
    CHECK(!buckets.overlap_comm);
    CHECK(buckets.sub_group_size == Approx(5e8));
    // Megatron-DeepSpeed named in the source: its model code, unless a column says otherwise.
    CHECK(read(",framework", "argonne-lcf/Megatron-DeepSpeed@ffa3456 ALCF/README.md", ",deepspeed").deepspeed_model ==
          "megatron");
    CHECK(read(",framework", "a DeepSpeed blog", ",deepspeed").deepspeed_model.empty());
    CHECK(read(",framework,deepspeed_model", "Megatron_DeepSpeed", ",deepspeed,hf").deepspeed_model == "hf");
    // Megatron's local implementation: a column, or the id's word "local", or a source naming it.
    auto local = [&](const std::string& id, const std::string& source, const std::string& column) {
        const std::string text = header + ",transformer_impl\n" + id + ",12,512,8,8,2048,0,50257,1,1024,4,32,1,1,1,8,1,0,0,"
                                 "none,0,0,bf16,all,3,max_allocated," + source + "," + column + "\n";
        const auto runs = read_csv(text);
        REQUIRE(runs.skipped.empty());
        return runs.runs.at(0).training.local_impl;
    };
    CHECK(local("mlm-ci-tiny-tp4pp1-local", "Megatron-LM CI", ""));
    CHECK(local("r", "tests/functional_tests/test_cases/gpt/gpt3_mcore_tp2_pp2_uninstall_te", ""));
    CHECK(local("r", "run with --transformer-impl local", ""));
    CHECK(!local("mlm-ci-localized", "Megatron-LM CI; local batch 4", ""));
    CHECK(!local("mlm-ci-tiny-local", "Megatron-LM CI", "transformer_engine"));
    CHECK(local("r", "Megatron-LM CI", "local"));
    // A DeepSpeed release named in the source, unless a column gives one.
    CHECK(read(",framework", "run with DeepSpeed 0.16.4.", ",deepspeed").framework_version == "0.16.4");
    CHECK(read(",framework", "pip deepspeed==0.14.0; torch 2.3", ",deepspeed").framework_version == "0.14.0");
    CHECK(read(",framework", "DeepSpeed v0.9.5", ",deepspeed").framework_version == "0.9.5");
    CHECK(read(",framework,framework_version", "DeepSpeed 0.16.4", ",deepspeed,0.18.5").framework_version == "0.18.5");
    CHECK(read(",framework", "DeepSpeed info: version=0.4.0+407ff0f", ",deepspeed").framework_version == "0.4.0");
    CHECK(read(",framework", "DeepSpeed version 0.16.4+cu121", ",deepspeed").framework_version == "0.16.4");
    for (const char* none : {"Megatron-DeepSpeed 0.2", "Megatron_DeepSpeed 0.2", "Megatron DeepSpeed 0.2",
                             "DeepSpeed 1.3B GPT", "DeepSpeed 0.8GB", "deepspeed>=0.14", "DeepSpeed"})
        CHECK(read(",framework", none, ",deepspeed").framework_version.empty());
    CHECK(read(",framework", "DeepSpeed 0.16.4", ",fsdp").framework_version.empty());  // not a DeepSpeed run
    // A torchtitan release, likewise, for an FSDP run; a commit is none.
    CHECK(read(",framework", "torchtitan v0.2.2 on 8 H200s", ",fsdp").framework_version == "0.2.2");
    CHECK(read(",framework", "pip torchtitan==0.2.0", ",fsdp").framework_version == "0.2.0");
    for (const char* none : {"torchtitan 9dec370", "pytorch/torchtitan@b5bcd76", "bench/gpu/torchtitan_memory.py",
                             "torchtitan 6fc499f of 2025-08-14", "DeepSpeed 0.16.4"})
        CHECK(read(",framework", none, ",fsdp").framework_version.empty());
    CHECK(read(",framework", "torchtitan 0.2.2", ",deepspeed").framework_version.empty());  // not a torchtitan run
    const std::string bad = header + ",compile\nr,32,4096,32,8,14336,1,128256,0,8192,1,16,1,1,1,8,1,3,0,"
                            "selective,0,1,bf16,all,80,max_reserved,torchtitan,blocks\n";
    const auto skipped = read_csv(bad).skipped;
    REQUIRE(skipped.size() == 1);
    CHECK(skipped[0].reason == "m.csv:2:107: unknown compile 'blocks' (expected none, model, loss, model+loss, true or false)");
}

TEST_CASE("without a compile cell, an FSDP run whose id or source says torch.compile ran compiled its blocks", "[model]") {
    const std::string header = kColumns + ",framework,source";
    auto read = [&](const std::string& id, const std::string& framework, const std::string& source,
                    const std::string& cell = "-") {
        // FSDP2 shards fully (zero_stage 3); the others at 1, as Megatron-LM's distributed optimizer can.
        const std::string zero = framework == "megatron" || framework == "deepspeed" ? "1" : "3";
        const std::string text = header + (cell == "-" ? "" : ",compile") + "\n" + id +
                                 ",32,4096,32,8,14336,1,128256,0,8192,1,16,1,1,1,8,1," + zero +
                                 ",0,selective,0,1,bf16,all,80,max_reserved," + framework + "," + source +
                                 (cell == "-" ? "" : "," + cell) + "\n";
        const auto runs = read_csv(text);
        REQUIRE(runs.skipped.empty());
        return runs.runs.at(0).training;
    };
    CHECK(read("tt-l8b-fsdp128-compile", "fsdp", "torchtitan Table 3").compiled);  // the id says so
    CHECK(!read("tt-l8b-fsdp128-compile", "fsdp", "torchtitan Table 3").compiled_loss);  // blocks only
    CHECK(read("r", "fsdp", "Table 1 (FSDP + torch.compile)").compiled);              // the source says so
    CHECK(read("r", "", "torchtitan: compiled blocks").compiled);                      // framework from the source
    CHECK(read("r", "fsdp", "Table 1 (FSDP + torch.compile)", "").compiled);          // an empty cell
    CHECK(!read("r", "fsdp", "Table 1 (FSDP + torch.compile)", "0").compiled);        // a cell wins
    for (const char* id : {"tt-nocompile", "tt-uncompiled", "precompiled-kernels", "r"})
        CHECK(!read(id, "fsdp", "torchtitan").compiled);
    for (const char* source : {"FSDP without torch.compile", "no compile", "not compiled", "compile off", "compile=0",
                               "compile disabled", "FSDP w/o compile"})
        CHECK(!read("r", "fsdp", source).compiled);
    // DeepSpeed and Megatron runs are never guessed compiled.
    CHECK(!read("ds-compile", "deepspeed", "torch.compile").compiled);
    CHECK(!read("mlm-compile", "megatron", "torch.compile").compiled);
}

TEST_CASE("A measured run's softmax column: unfused fp32 raises the prediction: with flash it skips the row", "[model]") {
    const std::string header = kColumns + ",unfused_fp32_softmax\n";
    auto read = [&](const std::string& flash, const std::string& softmax) {
        return read_csv(header + "r,12,512,8,8,2048,0,50257,1,1024,4,32,2,2,1,2,1,0,0,none,0," + flash +
                          ",fp16,last,1.943,max_allocated," + softmax + "\n");
    };
    const auto fused = read("0", ""), fp32 = read("0", "1");
    REQUIRE(fused.skipped.empty());
    REQUIRE(fp32.skipped.empty());
    CHECK(fp32.runs.at(0).training.unfused_fp32_softmax);
    CHECK(model::check_runs(fp32.runs, model::Method::framework).at(0).predicted_gib >
          model::check_runs(fused.runs, model::Method::framework).at(0).predicted_gib);
    const auto flash = read("1", "1");
    REQUIRE(flash.skipped.size() == 1);
    CHECK_THAT(flash.skipped[0].reason, Catch::Contains("unfused_fp32_softmax needs flash_attention off"));
}

TEST_CASE("A measured run's attention_backend column: flash, cudnn, or the row is skipped", "[model]") {
    const std::string header = kColumns + ",framework,framework_version,attention_backend\n";
    auto read = [&](const std::string& backend) {
        return read_csv(header + "r,32,4096,32,8,14336,1,128256,0,8192,1,8,1,1,1,8,1,3,0,selective,0,1,bf16,all,33.7,"
                               "max_reserved,fsdp,0.2," + backend + "\n");
    };
    CHECK(read("cudnn").runs.at(0).training.cudnn_attention);
    CHECK(!read("flash").runs.at(0).training.cudnn_attention);
    CHECK(read("cudnn").runs.at(0).training.framework_version == "0.2");
    const auto bad = read("sdpa");
    REQUIRE(bad.skipped.size() == 1);
    CHECK_THAT(bad.skipped[0].reason, Catch::Contains("m.csv:2:"));
    CHECK_THAT(bad.skipped[0].reason, Catch::Contains("unknown attention_backend 'sdpa' (expected flash or cudnn)"));
}

TEST_CASE("A measured run's bad recompute or deepspeed_model is reported at its own cell", "[model]") {
    const std::string header = kColumns + ",framework,deepspeed_model\n";
    auto why = [&](const std::string& recompute, const std::string& model) {
        const auto read = read_csv(header + "r,24,2048,32,32,8192,0,50272,1,512,8,128,1,1,1,16,1,2,0," + recompute +
                          ",0,0,fp16,all,22.95,max_allocated,deepspeed," + model + "\n");
        REQUIRE(read.skipped.size() == 1);
        return read.skipped[0].reason;
    };
    // recompute is the 20th cell, starting at column 57; deepspeed_model the 28th, at column 105.
    CHECK_THAT(why("some", "hf"), Catch::StartsWith("m.csv:2:57: unknown recompute 'some'"));
    CHECK_THAT(why("none", "hugging"), Catch::StartsWith("m.csv:2:105: unknown deepspeed_model 'hugging'"));
}

TEST_CASE("A measured run's GPU: a compute_capability cell, else the gpu cell's family in the default catalog", "[model]") {
    const std::string header = kColumns + ",gpu,compute_capability\n";
    auto capability = [&](const std::string& gpu, const std::string& cc) {
        const auto read = read_csv(header + "r,12,512,8,8,2048,0,50257,1,1024,4,32,2,2,1,2,1,0,0,none,0,1,bf16,all,3.0,"
                                            "max_allocated," + gpu + "," + cc + "\n");
        REQUIRE(read.runs.size() == 1);
        return read.runs[0].training.compute_capability;
    };
    CHECK(capability("a100-sxm-80gb", "") == Approx(8.0));
    CHECK(capability("h100-sxm-80gb", "") == Approx(9.0));
    CHECK(capability("gb200", "") == 0);  // unknown: read as Hopper or later
    CHECK(capability("gb200", "10.0") == Approx(10.0));
    CHECK(capability("a100-sxm-80gb", "0") == 0);  // said unknown
    // The A100 run is predicted 28 MiB below the same run on an H100: Transformer Engine's workspace.
    const auto a100 = read_csv(header + "r,12,512,8,8,2048,0,50257,1,1024,4,32,2,2,1,2,1,0,0,none,0,1,bf16,all,3.0,"
                                        "max_allocated,a100-sxm-80gb,\n");
    const auto h100 = read_csv(header + "r,12,512,8,8,2048,0,50257,1,1024,4,32,2,2,1,2,1,0,0,none,0,1,bf16,all,3.0,"
                                        "max_allocated,h100-sxm-80gb,\n");
    const auto rows = model::check_runs({a100.runs.at(0), h100.runs.at(0)}, model::Method::framework);
    CHECK((rows[1].predicted_gib - rows[0].predicted_gib) * 1024 == Approx(28));
}

TEST_CASE("A measured run's CUBLAS_WORKSPACE_CONFIG: the cublas_workspace_config column", "[model]") {
    const std::string header = kColumns + ",gpu,cublas_workspace_config\n";
    const std::string run = "r,12,512,8,8,2048,0,50257,1,1024,4,32,2,2,1,2,1,0,0,none,0,1,bf16,all,3.0,max_allocated,";
    const auto set = read_csv(header + run + "a100-sxm-80gb,:4096:8\n");
    const auto unset = read_csv(header + run + "a100-sxm-80gb,default\n");
    const auto unsaid = read_csv(header + run + "a100-sxm-80gb,\n");
    REQUIRE(set.runs.size() == 1);
    CHECK(set.runs[0].training.cublas_workspace_config == ":4096:8");
    CHECK(unsaid.runs.at(0).training.cublas_workspace_config.empty());
    // Two workspaces of 32 MiB instead of torch's 8.125 MiB each on an A100; unsaid reads as 32 MiB.
    const auto rows =
        model::check_runs({unset.runs.at(0), set.runs.at(0), unsaid.runs.at(0)}, model::Method::framework);
    CHECK((rows[1].predicted_gib - rows[0].predicted_gib) * 1024 == Approx(47.75));
    CHECK(rows[2].predicted_gib == Approx(rows[1].predicted_gib));
    // A malformed one skips the row with its reason.
    const auto bad = read_csv(header + run + "a100-sxm-80gb,4096:8\n");
    CHECK(bad.runs.empty());
    REQUIRE(bad.skipped.size() == 1);
    CHECK_THAT(bad.skipped[0].reason, Catch::Contains("cublas_workspace_config must be") && Catch::Contains("4096:8"));
}

TEST_CASE("memest --check's summary breaks the rows down by framework and by measure when they differ", "[model]") {
    using model::CheckRow, model::Framework, model::Measure;
    const std::vector<CheckRow> rows{{"a", Framework::fsdp, Measure::allocated, 10, 10.1, 1},
                                     {"b", Framework::fsdp, Measure::reserved, 10, 10.3, 3},
                                     {"c", Framework::megatron, Measure::allocated, 10, 9.5, -5}};
    CHECK(model::summary_line(rows) ==
          "3 cases, mean |error| 3%, max |error| 5%, 3 within 5%; by framework: megatron 1 (mean 5%, max 5%), fsdp 2 "
          "(mean 2%, max 3%); by measure: allocated 2 (mean 3%, max 5%), reserved 1 (mean 3%, max 3%)");
    // One framework and one measure: no breakdown.
    CHECK(model::summary_line({rows[0]}) == "1 case, mean |error| 1%, max |error| 1%, 1 within 5%");
}

TEST_CASE("A measured run's head_dim column: wider heads raise the prediction: 0 skips the row", "[model]") {
    // Qwen3-32B's shape (64 heads of 128 over hidden 5120) under FSDP 8, full recompute.
    const std::string header = kColumns + ",framework,head_dim\n";
    auto read = [&](const std::string& head_dim) {
        return read_csv(header + "r,64,5120,64,8,25600,1,151936,0,4096,1,8,1,1,1,8,1,3,0,full,0,1,bf16,all,81.47,"
                               "max_reserved,fsdp," + head_dim + "\n");
    };
    const auto wide = read("128"), plain = read(""), same = read("80");
    REQUIRE(wide.skipped.empty());
    CHECK(wide.runs.at(0).model.head_dim == 128);
    CHECK(plain.runs.at(0).model.head_dim == 0);
    const auto predicted = [](const model::MeasuredRuns& r) {
        return model::check_runs(r.runs, model::Method::framework).at(0).predicted_gib;
    };
    CHECK(predicted(wide) > predicted(plain));
    CHECK(predicted(same) == Approx(predicted(plain)));  // 5120 / 64
    const auto bad = read("0");
    REQUIRE(bad.skipped.size() == 1);
    CHECK_THAT(bad.skipped[0].reason, Catch::Contains("head_dim"));
}

TEST_CASE("A measured run's learned_positions column: seq_len for a GPT-style model unless given", "[model]") {
    const std::string header = kColumns + ",learned_positions\n";
    auto read = [&](const std::string& positions) {
        return read_csv(header + "r,12,512,8,8,2048,0,50257,1,1024,4,32,1,1,1,2,1,0,0,none,0,1,fp16,all,1.943,"
                                 "max_allocated," + positions + "\n");
    };
    const auto unsaid = read(""), none = read("0"), longer = read("2048"), short_table = read("512");
    REQUIRE(unsaid.skipped.empty());
    CHECK(unsaid.runs.at(0).model.learned_positions == 1024);  // seq_len: no gated MLP
    CHECK(none.runs.at(0).model.learned_positions == 0);
    CHECK(longer.runs.at(0).model.learned_positions == 2048);
    const auto predicted = [](const model::MeasuredRuns& r) {
        return model::check_runs(r.runs, model::Method::framework).at(0).predicted_gib;
    };
    CHECK(predicted(none) < predicted(unsaid));
    CHECK(predicted(longer) > predicted(unsaid));
    REQUIRE(short_table.skipped.size() == 1);
    CHECK_THAT(short_table.skipped[0].reason, Catch::Contains("learned_positions 512 is shorter than seq_len 1024"));
}

TEST_CASE("A measured run's qk_norm column: the query and key norms' activations without checkpointing", "[model]") {
    // A Qwen3-8B-like shape under FSDP 8 without recompute: the norms keep wq's and wk's outputs.
    const std::string header = kColumns + ",framework,head_dim,qk_norm\n";
    auto read = [&](const std::string& qk_norm) {
        return read_csv(header + "r,36,4096,32,8,12288,1,151936,0,4096,1,8,1,1,1,8,1,3,0,none,0,1,bf16,all,60,"
                               "max_allocated,fsdp,128," + qk_norm + "\n");
    };
    const auto on = read("1"), off = read(""), bad = read("2");
    REQUIRE(on.skipped.empty());
    CHECK(on.runs.at(0).model.qk_norm);
    CHECK_FALSE(off.runs.at(0).model.qk_norm);
    const auto predicted = [](const model::MeasuredRuns& r) {
        return model::check_runs(r.runs, model::Method::framework).at(0).predicted_gib;
    };
    CHECK(predicted(on) > predicted(off));
    REQUIRE(bad.skipped.size() == 1);
    CHECK_THAT(bad.skipped[0].reason, Catch::Contains("qk_norm"));
}

TEST_CASE("A measured run written as spreadsheets, pandas and the frameworks' own names write it", "[model]") {
    // One Megatron-DeepSpeed pipeline row, then the same with each cell as a user's tools give it.
    const std::string header = "id,layers,hidden,heads,kv_heads,ffn_hidden,gated_mlp,vocab,tied_embeddings,seq_len,"
                               "micro_batch,global_batch,tp,pp,vpp,dp,cp,zero_stage,distributed_optimizer,recompute,"
                               "seq_parallel,flash_attn,precision,stage_measured,measured_gib,measure_kind,framework,"
                               "layers_per_stage,framework_version";
    struct Cells {
        std::string gated = "1", vpp = "1", recompute = "full", sp = "0", precision = "bf16", kind = "allocated",
                    framework = "deepspeed", split = "8 9 9 6", version = "0.14.5";
    };
    auto text = [&](const Cells& c, const std::string& head) {
        return head + "\nr,32,4096,32,32,11008," + c.gated + ",32000,0,4096,1,16,1,4," + c.vpp + ",1,1,0,0," + c.recompute +
               "," + c.sp + ",1," + c.precision + ",1,20," + c.kind + "," + c.framework + ",\"" + c.split + "\"," +
               c.version + "\n";
    };
    auto run = [&](const Cells& c, const std::string& head) {
        const auto read = read_csv(text(c, head));
        REQUIRE(read.skipped.empty());
        return read.runs.at(0);
    };
    const auto base = run(Cells{}, header);
    const double predicted = model::check_runs({base}, model::Method::framework).at(0).predicted_gib;
    auto same = [&](const Cells& c, const std::string& head = "") {
        const auto r = run(c, head.empty() ? header : head);
        CHECK(model::check_runs({r}, model::Method::framework).at(0).predicted_gib == predicted);
        return r;
    };
    Cells c;
    for (const char* truth : {"TRUE", "True", "1.0", "yes"}) c.gated = truth, same(c);
    c = {};
    for (const char* falsity : {"FALSE", "0.0", "No"}) c.sp = falsity, same(c);  // pandas writes 0/1 with gaps as floats
    c = {};
    for (const char* vpp : {"", "None", "0"}) c.vpp = vpp, same(c);  // Megatron-LM's unset virtual pipeline size
    c = {};
    for (const char* split : {"8,9,9,6", "[8, 9, 9, 6]", "8;9;9;6"}) c.split = split, same(c);
    c = {};
    for (const char* kind : {"torch.cuda.max_memory_allocated", "max allocated", "mem-max-allocated-bytes", "MAX_ALLOCATED"})
        c.kind = kind, same(c);
    c = {};
    for (const char* precision : {"torch.bfloat16", "bf16-mixed", "BFloat16"}) c.precision = precision, same(c);
    c = {};
    for (const char* version : {"v0.14.5", "0.14.5.post1", "0.14.5+cu124"}) c.version = version, same(c);
    c = {};
    // The column's other names, as the job document and the frameworks' arguments say them.
    std::string renamed = header;
    renamed.replace(renamed.find("flash_attn"), 10, "flash_attention");
    renamed.replace(renamed.find("seq_parallel"), 12, "sequence_parallel");
    renamed.replace(renamed.find("kv_heads"), 8, "num_kv_heads");
    same(c, renamed);
    // Megatron-DeepSpeed named in the framework cell: DeepSpeed's engine on Megatron's model code.
    c.framework = "Megatron-DeepSpeed";
    CHECK(same(c).training.deepspeed_model == "megatron");
    c = {};
    c.framework = "megatron_lm";
    CHECK(run(c, header).training.framework == model::Framework::megatron);
    c.framework = "NeMo";
    CHECK(run(c, header).training.framework == model::Framework::megatron);
    c = {};
    c.recompute = "SAC";
    CHECK(run(c, header).training.recompute == model::Recompute::selective);
    c.recompute = "per-op";
    CHECK(run(c, header).training.recompute == model::Recompute::selective);
    // fp32 with TF32 matrix multiplies holds fp32's memory.
    c = {};
    c.precision = "tf32";
    CHECK(run(c, header).training.precision == "fp32");
    // Refused at their cells: an empty recompute (the column is required), a measured figure in MiB.
    c = {};
    c.recompute = "";
    auto empty = read_csv(text(c, header));
    REQUIRE(empty.skipped.size() == 1);
    CHECK_THAT(empty.skipped[0].reason, Catch::Contains("expected none, selective or full in column 'recompute'"));
    std::string mib = text(Cells{}, header);
    mib.replace(mib.find(",20,allocated"), 13, ",54496.3,allocated");
    auto in_mib = read_csv(mib);
    REQUIRE(in_mib.skipped.size() == 1);
    CHECK_THAT(in_mib.skipped[0].reason, Catch::Contains("measured_gib 54496.3 is more than twice") &&
                                             Catch::Contains("expected GiB (MiB / 1024)"));
}
