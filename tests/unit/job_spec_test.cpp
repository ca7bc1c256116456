#include <catch2/catch.hpp>

#include <hetsched/cli/error.hpp>
#include <hetsched/model/job_document.hpp>
#include <hetsched/model/job_options.hpp>
#include <hetsched/model/job_spec.hpp>

using namespace hetsched;

namespace {

model::JobSpec read(const std::string& text) { return model::read_job_spec(io::parse_yaml({"job.yaml", text})); }

}  // namespace

TEST_CASE("a preset name fills the model section", "[model]") {
    auto job = read("kind: job\nversion: 1\nmodel: {name: llama-2-13b}\ntraining: {seq_len: 2048, global_batch: 8, micro_batch: 2}\n");
    CHECK(job.model.layers == 40);
    CHECK(job.micro_batch == 2);
    CHECK(job.training.recompute == model::Recompute::none);
}

TEST_CASE("a preset's learned position table grows to the sequence, a stated one must hold it", "[model]") {
    // GPT-2's 1024 rows at seq_len 2048: the run set its table to 2048 (--max-position-embeddings).
    CHECK(read("kind: job\nversion: 1\nmodel: {name: gpt2}\ntraining: {seq_len: 2048, global_batch: 8}\n")
              .model.learned_positions == 2048);
    CHECK(read("kind: job\nversion: 1\nmodel: {name: gpt2}\ntraining: {seq_len: 512, global_batch: 8}\n")
              .model.learned_positions == 1024);
    CHECK(read("kind: job\nversion: 1\nmodel: {name: llama-2-7b}\ntraining: {seq_len: 8192, global_batch: 8}\n")
              .model.learned_positions == 0);  // rotary: no table
    try {
        read("kind: job\nversion: 1\nmodel:\n  name: gpt2\n  learned_positions: 1024\n"
             "training: {seq_len: 2048, global_batch: 8}\n");
        FAIL("expected an error");
    } catch (const DataError& e) {
        CHECK_THAT(e.what(), Catch::StartsWith("learned_positions (1024) is shorter than seq_len (2048)"));
        CHECK(e.pos().line == 5);
    }
    // Flags that lengthen the sequence grow it too.
    auto job = read("kind: job\nversion: 1\nmodel: {name: gpt2}\ntraining: {seq_len: 512, global_batch: 8}\n");
    model::JobOptions o;
    o.seq_len = 4096;
    model::apply_job_options(o, job);
    CHECK(job.model.learned_positions == 4096);
}

TEST_CASE("job errors point at the offending key", "[model]") {
    try {
        read("kind: job\nversion: 1\nmodel: {name: x, layers: 2, hidden: 64, heads: 4, vocab: 100}\n"
             "training:\n  seq_len: -5\n  global_batch: 8\n");
        FAIL("expected an error");
    } catch (const DataError& e) {
        CHECK(std::string(e.what()) == "expected an integer from 1 to 16777216 for 'seq_len', got '-5'");
        CHECK(e.pos().line == 5);
        CHECK(e.pos().col == 12);
    }
    CHECK_THROWS_WITH(read("kind: job\nversion: 1\nmodel: {name: custom, layers: 2}\ntraining: {seq_len: 1, global_batch: 1}\n"),
                      "missing key 'hidden'");
    CHECK_THROWS_WITH(read("kind: job\nversion: 1\nmodel: {name: x, layers: 2, hidden: 65, heads: 4, vocab: 100}\n"
                           "training: {seq_len: 1, global_batch: 1}\n"),
                      "heads (4) must divide hidden (65), or give head_dim");
    CHECK_THROWS_WITH(read("kind: job\nversion: 1\nmodel: {name: llama-2-7b}\ntraining: {seq_len: 1, global_batch: 1, recompute: some}\n"),
                      Catch::Contains("unknown recompute 'some'"));
}

TEST_CASE("a job's words as users write them, and keys that are no settings, told what to write", "[model]") {
    const std::string head = "kind: job\nversion: 1\nmodel: {name: llama-2-7b}\ntraining: {seq_len: 8, global_batch: 8";
    CHECK(read(head + ", optimizer: AdamW}\n").training.optimizer == "adamw");
    CHECK(read(head + ", recompute: Selective, framework: NeMo}\n").training.framework == model::Framework::megatron);
    CHECK_THROWS_WITH(read(head + ", recompute: Selektive}\n"), Catch::Contains("unknown recompute 'Selektive'"));
    CHECK(model::precision_word("torch.float8_e4m3fn") == "fp8");
    CHECK(model::precision_word("float8_e5m2") == "fp8");
    CHECK(model::precision_word("16-mixed") == "fp16");
    CHECK(read(head + ", framework: deepspeed, zero_stage: 2, reduce_bucket_size: auto}\n").training.reduce_bucket_size ==
          4096.0 * 4096.0);  // Hugging Face's auto: hidden x hidden
    {  // auto is the final model's hidden x hidden, --hidden or --model given after the document
        auto job = read(head + ", framework: deepspeed, zero_stage: 2, reduce_bucket_size: auto}\n");
        model::JobOptions o;
        o.hidden = 2048, o.heads = 16, o.kv_heads = 16;
        model::apply_job_options(o, job);
        CHECK(job.training.reduce_bucket_size == 2048.0 * 2048.0);
        o.reduce_bucket_size = 5e8;  // a number given beside it replaces it
        model::apply_job_options(o, job);
        CHECK(job.training.reduce_bucket_size == 5e8);
        o.reduce_bucket_size = 0;
        model::apply_job_options(o, job);
        CHECK(job.training.reduce_bucket_size == 5e8);
    }
    CHECK_THROWS_WITH(read(head + ", micro_batches: 4}\n"),
                      Catch::Contains("global_batch / (micro_batch x dp)"));
    CHECK_THROWS_WITH(read(head + ", gradient_accumulation_steps: 4}\n"), Catch::Contains("'gradient_accumulation_steps'"));
    const auto doc = io::parse_yaml({"job.yaml", head + "}\nnetwork: {inter_node_gbps: 10}\n"});
    CHECK_THROWS_WITH(model::read_network(doc, {}), Catch::Contains("a 10 Gb/s link is 1.25"));
}

TEST_CASE("training.compile names what torch.compile covers: a bare true covers model and loss", "[model]") {
    auto compile = [](const std::string& v) {
        return read("kind: job\nversion: 1\nmodel: {name: llama-2-7b}\ntraining: {seq_len: 1, global_batch: 1, framework: fsdp, "
                    "compile: " + v + "}\n")
            .training;
    };
    CHECK((compile("true").compiled && compile("true").compiled_loss));
    CHECK((compile("model").compiled && !compile("model").compiled_loss));
    CHECK((!compile("loss").compiled && compile("loss").compiled_loss));
    CHECK((compile("loss+model").compiled && compile("loss+model").compiled_loss));
    CHECK((!compile("false").compiled && !compile("none").compiled_loss));
    CHECK(model::compile_name(compile("loss+model")) == "model+loss");
    CHECK(model::compile_name(compile("no")) == "none");
    try {
        compile("model+model");
        FAIL("expected an error");
    } catch (const DataError& e) {
        CHECK(std::string(e.what()) == "unknown compile 'model+model' (expected none, model, loss, model+loss, true or false)");
        CHECK(e.pos().line == 4);
        CHECK(e.pos().col == 67);
    }
    CHECK_THROWS_WITH(compile("[model]"), Catch::Contains("expected a string for 'compile'"));
}

TEST_CASE("training.cublas_workspace_config: read, refused with its place, written back", "[model]") {
    const std::string head = "kind: job\nversion: 1\nmodel: {name: llama-2-7b}\ntraining:\n  seq_len: 1\n  global_batch: 1\n";
    CHECK(read(head).training.cublas_workspace_config.empty());
    const auto job = read(head + "  cublas_workspace_config: ':4096:8'\n");
    CHECK(job.training.cublas_workspace_config == ":4096:8");
    CHECK(model::training_to_yaml(job)["cublas_workspace_config"].as<std::string>() == ":4096:8");
    CHECK(read(head + "  cublas_workspace_config: default\n").training.cublas_workspace_config == "default");
    CHECK_FALSE(model::training_to_yaml(read(head))["cublas_workspace_config"].IsDefined());
    try {
        read(head + "  cublas_workspace_config: ':1048576:2'\n");  // 2 GiB
        FAIL("expected an error");
    } catch (const DataError& e) {
        CHECK_THAT(std::string(e.what()), Catch::Contains("at most 1 GiB") && Catch::Contains("got ':1048576:2'"));
        CHECK(e.pos().line == 7);  // the value itself
        CHECK(e.pos().col == 28);
    }
}

TEST_CASE("zero_stage not given: 3 under fsdp (FSDP shards fully by default), else 0: given, kept", "[model]") {
    const std::string head = "kind: job\nversion: 1\nmodel: {name: llama-2-7b}\ntraining: {seq_len: 8, global_batch: 8";
    CHECK(read(head + ", framework: fsdp}\n").training.zero_stage == 3);
    CHECK(read(head + ", framework: deepspeed}\n").training.zero_stage == 0);
    CHECK(read(head + "}\n").training.zero_stage == 0);
    auto explicit_zero = read(head + ", framework: fsdp, zero_stage: 0}\n");
    CHECK(explicit_zero.training.zero_stage == 0);
    CHECK(explicit_zero.zero_stage_given);
    // Flags: --framework turns an unsaid stage into the new framework's default; --zero-stage wins.
    model::JobOptions o;
    o.framework = "fsdp";
    auto job = read(head + "}\n");
    model::apply_job_options(o, job);
    CHECK(job.training.zero_stage == 3);
    o.framework = "megatron";
    model::apply_job_options(o, job);
    CHECK(job.training.zero_stage == 0);
    o.framework = "fsdp";
    o.zero_stage = 2;
    model::apply_job_options(o, job);
    CHECK(job.training.zero_stage == 2);
    o.zero_stage = -1;
    // A document's stage is its framework's: --framework of another resets it to that one's default,
    // so a document memest wrote for Megatron-LM (zero_stage 0) shards fully under --framework fsdp.
    auto written = read(head + ", framework: megatron, zero_stage: 0}\n");
    model::apply_job_options(o, written);
    CHECK(written.training.zero_stage == 3);
    auto same = read(head + ", framework: fsdp, zero_stage: 2}\n");
    model::apply_job_options(o, same);  // --framework fsdp on an fsdp document keeps its stage
    CHECK(same.training.zero_stage == 2);
}

TEST_CASE("a section computed for other training settings is refused, iterations aside", "[model]") {
    const io::YamlDocument doc = io::parse_yaml(
        {"job.yaml", "kind: job\nversion: 1\nmodel: {name: gpt2}\n"
                     "training: {seq_len: 8, global_batch: 8, precision: bf16, iterations: 10}\n"
                     "memory: {job: {model: gpt2, seq_len: 8, global_batch: 8}, plans: []}\n"});
    model::JobSpec job = model::read_job_spec(doc);
    CHECK_NOTHROW(model::check_job_unchanged(doc, "memory", job, "memest"));
    job.iterations = 1000;  // the cost's setting: no part of the memory
    CHECK_NOTHROW(model::check_job_unchanged(doc, "memory", job, "memest"));
    job.training.precision = "fp32";
    try {
        model::check_job_unchanged(doc, "memory", job, "memest");
        FAIL("expected an error");
    } catch (const DataError& e) {
        CHECK(std::string(e.what()) ==
              "'memory' was computed for training.precision bf16, which the flags change to fp32; rerun memest with them");
        CHECK(e.pos().line == 5);
    }
    job.training.precision = "bf16";
    job.micro_batch = 2;  // a key the document did not have
    CHECK_THROWS_WITH(model::check_job_unchanged(doc, "memory", job, "memest"),
                      Catch::Contains("training.micro_batch (none), which the flags change to 2"));
}

TEST_CASE("a custom model's unstated norm, biases and dropout follow its style and framework", "[model]") {
    const std::string llama = "kind: job\nversion: 1\nmodel: {name: mine, layers: 2, hidden: 64, heads: 4, vocab: 100, "
                              "gated_mlp: true}\ntraining: {seq_len: 8, global_batch: 8";
    const std::string gpt = "kind: job\nversion: 1\nmodel: {name: mine, layers: 2, hidden: 64, heads: 4, vocab: 100}\n"
                            "training: {seq_len: 8, global_batch: 8";
    auto hf = read(llama + ", framework: deepspeed}\n");
    CHECK(hf.model.rms_norm);
    CHECK_FALSE(hf.model.linear_bias);
    CHECK(hf.model.dropout == 0.0);               // a LLaMA block trained as Hugging Face's
    CHECK(read(llama + "}\n").model.dropout == 0.1);  // Megatron-LM's defaults, whatever the block
    auto gpt_fsdp = read(gpt + ", framework: fsdp}\n");
    CHECK_FALSE(gpt_fsdp.model.rms_norm);
    CHECK(gpt_fsdp.model.linear_bias);
    CHECK(gpt_fsdp.model.dropout == 0.0);  // torchtitan's models have none
    CHECK(read(gpt + ", framework: deepspeed}\n").model.dropout == 0.1);
    // framework megatron-deepspeed: DeepSpeed's engine on Megatron's model code (its dropout), unless
    // deepspeed_model says otherwise.
    auto mds = read(llama + ", framework: Megatron-DeepSpeed}\n");
    CHECK(mds.training.framework == model::Framework::deepspeed);
    CHECK(mds.training.deepspeed_model == "megatron");
    CHECK(mds.model.dropout == 0.1);
    CHECK(read(llama + ", framework: megatron-deepspeed, deepspeed_model: hf}\n").training.deepspeed_model == "hf");
    // Stated keys and a preset's style are kept.
    auto stated = read("kind: job\nversion: 1\nmodel: {name: mine, layers: 2, hidden: 64, heads: 4, vocab: 100, gated_mlp: "
                       "true, rms_norm: false, linear_bias: true, dropout: 0.05}\ntraining: {seq_len: 8, global_batch: 8}\n");
    CHECK_FALSE(stated.model.rms_norm);
    CHECK(stated.model.linear_bias);
    CHECK(stated.model.dropout == 0.05);
    CHECK(read("kind: job\nversion: 1\nmodel: {name: llama-2-7b}\ntraining: {seq_len: 8, global_batch: 8}\n").model.dropout ==
          0.0);
    // --framework moves an unstated dropout with it; the command line's custom model (GPT-2 style) too.
    model::JobOptions o;
    o.framework = "fsdp";
    auto moved = read(gpt + "}\n");
    model::apply_job_options(o, moved);
    CHECK(moved.model.dropout == 0.0);
    o.layers = 2, o.hidden = 64, o.heads = 4, o.vocab = 100, o.seq_len = 8, o.global_batch = 8;
    CHECK(model::job_from_options(o).model.dropout == 0.0);
    o.framework = "megatron";
    CHECK(model::job_from_options(o).model.dropout == 0.1);
}

TEST_CASE("model.head_dim: read, written back, refused out of range: --head-dim sets it", "[model]") {
    const std::string head = "kind: job\nversion: 1\nmodel: {name: mine, layers: 2, hidden: 100, heads: 3, vocab: 100";
    const std::string tail = "}\ntraining: {seq_len: 8, global_batch: 8}\n";
    auto job = read(head + ", head_dim: 64" + tail);  // 3 heads need not divide 100 once their width is given
    CHECK(job.model.head_dim == 64);
    CHECK(model::model_to_yaml(job.model)["head_dim"].as<long>() == 64);
    CHECK_FALSE(model::model_to_yaml(read("kind: job\nversion: 1\nmodel: {name: llama-2-7b" + tail).model)["head_dim"]);
    try {
        read(head + ", head_dim: 0" + tail);
        FAIL("expected an error");
    } catch (const DataError& e) {
        CHECK(std::string(e.what()) == "expected an integer from 1 to 65536 for 'head_dim', got '0'");
        CHECK(e.pos().line == 3);
    }
    CHECK_THROWS_WITH(read("kind: job\nversion: 1\nmodel: {name: mine, layers: 2, hidden: 100, heads: 128, vocab: 100, "
                           "head_dim: 65536" + tail),
                      Catch::Contains("heads x head_dim (8388608) must be at most 4194304"));
    model::JobOptions o;
    o.head_dim = 128;
    auto preset = read("kind: job\nversion: 1\nmodel: {name: llama-2-7b" + tail);
    model::apply_job_options(o, preset);
    CHECK(preset.model.head_dim == 128);
}

TEST_CASE("a job's own gpus: list is its catalog, named job, refused beside --catalog", "[model]") {
    const std::string head = "kind: job\nversion: 1\nmodel: {name: gpt2}\ntraining: {seq_len: 8, global_batch: 8}\n";
    const auto given = catalog::named_catalog("juchi");
    const auto plain = io::parse_yaml({"job.yaml", head});
    CHECK(model::job_catalog(plain, given, true).name == "juchi");
    const auto own = io::parse_yaml({"job.yaml", head + "gpus:\n  - {name: X, memory_gib: 4, tflops: 10, quota: 2}\n"});
    const auto c = model::job_catalog(own, given, false);
    CHECK(c.name == "job");
    REQUIRE(c.gpus.size() == 1);
    CHECK(c.gpus[0].memory_gib == 4);
    CHECK(c.gpus[0].quota == 2);
    CHECK(c.inter_node_gb_s == given.inter_node_gb_s);
    CHECK_THROWS_AS(model::job_catalog(own, given, true), UsageError);
    // A catalog file's errors (78) are the job's data here (65), at their place.
    const auto twice = io::parse_yaml({"job.yaml", head + "gpus:\n  - {name: X, memory_gib: 4, tflops: 10}\n  - {name: x, memory_gib: 4, tflops: 10}\n"});
    try {
        model::job_catalog(twice, given, false);
        FAIL("expected an error");
    } catch (const DataError& e) {
        CHECK_THAT(std::string(e.what()), Catch::Contains("listed twice"));
        CHECK(e.pos().line == 7);
    }
    CHECK_THROWS_WITH(model::job_catalog(io::parse_yaml({"job.yaml", head + "gpus: []\n"}), given, false),
                      "expected at least one GPU type under 'gpus'");
}

TEST_CASE("Flags --dropout --qk-norm and --learned-positions set what a document's model keys do", "[model]") {
    model::JobOptions o;
    o.model = "gpt2", o.seq_len = 1024, o.global_batch = 8;
    const auto preset = model::job_from_options(o).model;
    REQUIRE(preset.dropout == Approx(0.1));
    REQUIRE_FALSE(preset.qk_norm);
    o.dropout = 0, o.qk_norm = 1, o.learned_positions = 2048;
    const auto job = model::job_from_options(o);
    CHECK(job.dropout_stated);  // stays 0 whatever framework a later flag names
    CHECK(job.model.dropout == Approx(0));
    CHECK(job.model.qk_norm);
    CHECK(job.model.learned_positions == 2048);
    // Unsaid under a framework whose default differs, the dropout follows it; said, it stays.
    o.framework = "fsdp";
    CHECK(model::job_from_options(o).model.dropout == Approx(0));
    o.dropout = 0.2;
    CHECK(model::job_from_options(o).model.dropout == Approx(0.2));
    // A table shorter than the sequence is refused, as a document's is; 0 says none (rotary).
    o.learned_positions = 512;
    CHECK_THROWS_WITH(model::job_from_options(o), Catch::Contains("--learned-positions (512) is shorter than seq_len (1024)"));
    o.learned_positions = 0;
    CHECK(model::job_from_options(o).model.learned_positions == 0);
    std::vector<std::string> keys;
    auto job2 = model::job_from_options(o);
    model::apply_job_options(o, job2, &keys);
    CHECK(keys == std::vector<std::string>{"name", "qk_norm", "dropout", "learned_positions", "seq_len", "global_batch",
                                           "framework"});
}

TEST_CASE("Flags --gated-mlp and --untied-embeddings: a model of the flags alone takes LLaMA's style, a preset only the MLP", "[model]") {
    model::JobOptions o;
    o.layers = 32, o.hidden = 4096, o.heads = 32, o.kv_heads = 8, o.ffn_hidden = 14336, o.vocab = 128256;
    o.seq_len = 8192, o.global_batch = 8;
    const auto plain = model::job_from_options(o).model;  // GPT-2's, unsaid
    CHECK_FALSE(plain.gated_mlp);
    CHECK(plain.tied_embeddings);
    CHECK_FALSE(plain.rms_norm);
    CHECK(plain.linear_bias);
    o.gated_mlp = 1, o.tied_embeddings = 0;
    const auto gated = model::job_from_options(o).model;
    CHECK(gated.gated_mlp);
    CHECK_FALSE(gated.tied_embeddings);
    CHECK(gated.rms_norm);
    CHECK_FALSE(gated.linear_bias);
    // The same dimensions as the preset: the same model, parameter for parameter.
    model::JobOptions p;
    p.model = "llama-3.1-8b", p.seq_len = 8192, p.global_batch = 8;
    const auto preset = model::job_from_options(p).model;
    CHECK(gated.gated_mlp == preset.gated_mlp);
    CHECK(gated.tied_embeddings == preset.tied_embeddings);
    CHECK(gated.rms_norm == preset.rms_norm);
    CHECK(gated.linear_bias == preset.linear_bias);
    // On a preset the flag changes the MLP and leaves its norm and biases.
    p.gated_mlp = 0, p.tied_embeddings = 1;
    const auto changed = model::job_from_options(p).model;
    CHECK_FALSE(changed.gated_mlp);
    CHECK(changed.tied_embeddings);
    CHECK(changed.rms_norm == preset.rms_norm);
    CHECK(changed.linear_bias == preset.linear_bias);
}
