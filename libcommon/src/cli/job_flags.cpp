#include <hetsched/cli/job_flags.hpp>

#include <hetsched/cli/validators.hpp>
#include <hetsched/io/comma_list.hpp>
#include <hetsched/io/number_range.hpp>
#include <hetsched/model/training.hpp>

namespace hetsched::cli {

void add_job_options(CLI::App& app, model::JobOptions& o, bool layout) {
    namespace lim = model::limits;
    const char* m = "Model";
    app.add_option("--model", o.model, "Model preset (see --list-models)")->group(m)->type_name("MODEL");
    app.add_option("--layers", o.layers, "Transformer layers")->group(m)->transform(integer_in(1, lim::layers));
    app.add_option("--hidden", o.hidden, "Hidden size")->group(m)->transform(integer_in(1, lim::hidden));
    app.add_option("--heads", o.heads, "Attention heads")->group(m)->transform(integer_in(1, lim::heads));
    app.add_option("--kv-heads", o.kv_heads, "Key/value heads (GQA groups)")->group(m)->transform(integer_in(1, lim::heads));
    app.add_option("--head-dim", o.head_dim, "Width of an attention head (default hidden / heads)")->group(m)
        ->transform(integer_in(1, lim::head_dim));
    app.add_option("--ffn-hidden", o.ffn_hidden, "MLP inner size")->group(m)->transform(integer_in(1, lim::ffn_hidden));
    app.add_option("--vocab", o.vocab, "Vocabulary size")->group(m)->transform(integer_in(1, lim::vocab));
    // Either of a pair, each the other's opposite; unsaid, the preset's or the document's (a model of
    // the flags alone: GPT-2's, a plain MLP and tied embeddings).
    auto either = [&](const char* yes, const char* no, int& dest, const char* yes_help, const char* no_help) {
        // No "=false": each says one thing (CLI11 would call neither callback for it, silently).
        CLI::Option* a = app.add_flag_callback(yes, [&dest] { dest = 1; }, yes_help)->group(m)->disable_flag_override();
        app.add_flag_callback(no, [&dest] { dest = 0; }, no_help)->group(m)->excludes(a)->disable_flag_override();
    };
    either("--gated-mlp", "--plain-mlp", o.gated_mlp,
           "A gated MLP (SwiGLU, three ffn_hidden matrices); a model of the flags alone also gets RMSNorm and no "
           "biases, LLaMA's",
           "A plain MLP (two matrices, GPT's)");
    either("--tied-embeddings", "--untied-embeddings", o.tied_embeddings,
           "The output layer shares the word embedding's matrix", "An output layer of its own (LLaMA's)");
    either("--qk-norm", "--no-qk-norm", o.qk_norm, "RMSNorm on each head's queries and keys (Qwen3's, OLMo 2's)",
           "No norm on queries and keys");
    app.add_option("--dropout", o.dropout,
                   "Hidden and attention dropout probability (default: 0.1 under megatron, and under deepspeed for "
                   "GPT-style models; 0 under fsdp, and under deepspeed for LLaMA-style ones)")
        ->group(m)
        ->check(number_in(0, 0.99));
    app.add_option("--learned-positions", o.learned_positions,
                   "Rows of a learned position-embedding table (GPT-2's), at least --seq-len; 0 for none (rotary)")
        ->group(m)
        ->transform(integer_in(0, lim::seq_len));
    const char* t = "Training";
    app.add_option("--seq-len", o.seq_len, "Sequence length in tokens")->group(t)->transform(integer_in(1, lim::seq_len));
    app.add_option("--global-batch", o.global_batch, "Sequences per iteration")->group(t)
        ->transform(integer_in(1, lim::global_batch));
    app.add_option("--micro-batch", o.micro_batch, "Sequences per micro-batch")->group(t)
        ->transform(integer_in(1, lim::global_batch));
    app.add_option("--iterations", o.iterations, "Training iterations")->group(t)->transform(integer_in(1, lim::iterations));
    app.add_option("--precision", o.precision, "bf16, fp16, fp8 or fp32")->group(t)
        ->check(CLI::IsMember({"bf16", "fp16", "fp8", "fp32"}));
    app.add_option("--optimizer", o.optimizer, "adam, adamw or sgd")->group(t)->check(CLI::IsMember({"adam", "adamw", "sgd"}));
    app.add_option("--framework", o.framework, "Allocation habits: megatron, deepspeed or fsdp")->group(t)
        ->check(CLI::IsMember({"megatron", "deepspeed", "fsdp"}));
    app.add_option("--framework-version", o.framework_version,
                   "Release of DeepSpeed (default 0.17.5), Megatron-LM (default current) or torchtitan "
                   "(fsdp; default its code before 0.2) to follow")
        ->group(t)
        ->type_name("X.Y.Z")
        ->check(CLI::Validator(
            [](std::string& v) { return model::is_release(v) ? std::string() : "expected a release such as 0.17.5"; },
            ""));
    app.add_option("--zero-stage", o.zero_stage, "ZeRO/FSDP sharding stage 0-3 (default 3 under fsdp, else 0)")->group(t)->transform(integer_in(0, 3));
    app.add_flag("--distributed-optimizer", o.distributed_optimizer, "Megatron's sharded optimizer")->group(t);
    app.add_option("--recompute", o.recompute, "none, selective or full")->group(t)
        ->check(CLI::IsMember({"none", "selective", "full"}));
    app.add_option("--checkpoint-every", o.checkpoint_every,
                   "With --recompute full under fsdp, checkpoint only every N-th layer (torchtitan's layer-level AC)")
        ->group(t)
        ->transform(integer_in(1, lim::layers));
    app.add_flag("--seq-parallel", o.seq_parallel, "Sequence parallelism with tensor parallelism (megatron, deepspeed; always on under fsdp, as torchtitan runs it)")->group(t);
    app.add_flag("--no-flash-attention", o.no_flash_attention, "Unfused attention (stores the score matrices)")->group(t);
    auto choice = [&](const char* name, std::string& dest, const char* help, const std::vector<std::string>& words) {
        app.add_option(name, dest, help)->group(t)->check(CLI::IsMember(words));
    };
    choice("--transformer-impl", o.transformer_impl,
           "Megatron-LM's layers: transformer_engine (default) or local (its own; the default from 3.0 to "
           "Megatron-Core 0.5)",
           {"local", "transformer_engine"});
    choice("--deepspeed-model", o.deepspeed_model,
           "Whose model DeepSpeed trains: megatron (Megatron-DeepSpeed) or hf (Hugging Face); default megatron for "
           "GPT-style, hf for LLaMA-style models",
           {"megatron", "hf"});
    choice("--attention-backend", o.attention_backend,
           "Fused attention kernel under fsdp: flash or cudnn (torchtitan's on Blackwell; recomputed under its "
           "per-op selective checkpointing before 0.2.1)",
           {"flash", "cudnn"});
    app.add_flag("--unfused-fp32-softmax", o.unfused_fp32_softmax,
                 "With --no-flash-attention (megatron, deepspeed): the softmax runs unfused in fp32 and saves its fp32 output "
                 "(Megatron-LM's --attention-softmax-in-fp32, with --no-masked-softmax-fusion or where its fused "
                 "kernel cannot run: sequences past 4096, past 2048 up to 2.6)")->group(t);
    app.add_flag("--compile", o.compile,
                 "torch.compile'd blocks and loss (deepspeed, fsdp); =model or =loss for one of them, =none for "
                 "neither (=true and =false: both and neither); the value only after '='")
        ->group(t)
        ->check(CLI::Validator(
            [](std::string& v) {
                model::Training scratch;
                try {
                    model::parse_compile(v, scratch);
                } catch (const std::exception& e) {
                    return std::string(e.what());
                }
                return std::string();
            },
            ""))
        ->type_name("[=model|loss|model+loss|none]");
    app.add_flag("--fp8-all-gather", o.fp8_all_gather, "FSDP all-gathers fp8 weights (fsdp, fp8)")->group(t);
    app.add_flag("--fp32-allreduce", o.fp32_allreduce,
                 "DeepSpeed all-reduces gradients in fp32 (its fp32_allreduce or communication_data_type fp32)")
        ->group(t);
    app.add_flag("--tf32", o.tf32, "fp32 matrix multiplies on TF32 tensor cores (allow_tf32): time only")->group(t);
    app.add_option("--reduce-bucket-size", o.reduce_bucket_size,
                   "DeepSpeed ZeRO's reduce_bucket_size, elements (default 5e8)")
        ->group(t)
        ->check(number_in(1, lim::bucket_elements));
    app.add_flag("--overlap-comm", o.overlap_comm, "DeepSpeed ZeRO-1/2's overlap_comm: a second reduce bucket")->group(t);
    app.add_option("--sub-group-size", o.sub_group_size,
                   "DeepSpeed ZeRO-3's sub_group_size, elements (default 1e9; 1e12 before 0.4.1)")
        ->group(t)
        ->check(number_in(1, lim::bucket_elements));
    app.add_option("--max-live-parameters", o.max_live_parameters,
                   "DeepSpeed ZeRO-3's stage3_max_live_parameters, elements (default 1e9)")
        ->group(t)
        ->check(number_in(1, lim::bucket_elements));
    app.add_option("--cublas-workspace-config", o.cublas_workspace_config,
                   "The run's CUBLAS_WORKSPACE_CONFIG, :SIZE:COUNT pairs with SIZE in KiB (e.g. :4096:8, 32 MiB), "
                   "or default when unset (torch's: 32 MiB from compute capability 9.0, 8 MiB + 128 KiB below): "
                   "the size of each of torch's two cuBLAS workspaces; not given: 32 MiB each")
        ->group(t)
        ->type_name("CONFIG")
        ->check(CLI::Validator(
            [](std::string& v) {
                model::Training scratch;
                scratch.cublas_workspace_config = v;
                return model::torch_cublas_workspace(scratch) >= 0
                           ? std::string()
                           : "expected :SIZE:COUNT pairs (SIZE in KiB, at most 1 GiB in all) or default";
            },
            ""));
    if (!layout) return;
    const char* l = "Layout (omit all for ranked plans)";
    app.add_option("--tp", o.tp, "Tensor-parallel degree")->group(l)->transform(integer_in(1, lim::degree));
    app.add_option("--pp", o.pp, "Pipeline-parallel degree")->group(l)->transform(integer_in(1, lim::degree));
    app.add_option("--dp", o.dp, "Data-parallel degree")->group(l)->transform(integer_in(1, lim::degree));
    app.add_option("--cp", o.cp, "Context-parallel degree")->group(l)->transform(integer_in(1, lim::degree));
    app.add_option("--vpp", o.vpp, "Virtual pipeline chunks per stage (interleaved 1F1B)")->group(l)
        ->transform(integer_in(1, lim::degree));
    add_layers_per_stage(app, o.layers_per_stage, "Layers of each pipeline stage, first first (e.g. 8,9,9,6; "
                                                  "pp defaults to their count)")
        ->group(l);
}

CLI::Option* add_layers_per_stage(CLI::App& app, std::vector<long>& split, const std::string& help) {
    // One string checked whole: CLI11's own splitting drops empty entries, so "16,,16" read as 16,16.
    return app
        .add_option_function<std::string>(
            "--layers-per-stage",
            [&split](const std::string& list) {  // integer_list_in checked every entry
                split.clear();
                for (const auto& entry : io::comma_list(list, "--layers-per-stage"))
                    split.push_back(io::parse_whole(entry, 1, model::limits::layers).value_or(0));
            },
            help)
        ->check(integer_list_in(1, model::limits::layers))
        ->type_name("LIST");
}

}  // namespace hetsched::cli
