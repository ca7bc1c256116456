#include <hetsched/model/training.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <regex>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/names.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/model/layer_activations.hpp>

namespace hetsched::model {
namespace {

std::string str(long v) { return std::to_string(v); }

void positive(long v, const std::string& what, long hi) {
    if (v <= 0 || v > hi)
        throw DataError(what + " must be an integer from 1 to " + str(hi) + ", got " + str(v));
}

/// "X.Y" or "X.Y.Z" (each part 1-3 digits) as X * 1e6 + Y * 1e3 + Z; -1 otherwise.
long release_parts(const std::string& v) {
    long parts[3] = {0, 0, 0};
    int n = 0;
    size_t i = 0;
    while (n < 3) {
        const size_t start = i;
        long x = 0;
        while (i < v.size() && v[i] >= '0' && v[i] <= '9' && i - start < 3) x = x * 10 + (v[i++] - '0');
        if (i == start) return -1;
        parts[n++] = x;
        if (i == v.size()) break;
        if (v[i++] != '.') return -1;
    }
    if (n < 2 || i != v.size()) return -1;
    return parts[0] * 1000000 + parts[1] * 1000 + parts[2];
}


/// A release "X.Y" or "X.Y.Z" as X * 1e6 + Y * 1e3 + Z; -1 when it is not one. Also as tags and
/// pip write it: a leading v ("v0.2.2"), a pre-release or dev part ("0.2.2rc1", "0.2.2-rc1",
/// "0.17.6.dev0": just before its release, one less), a post-release or local part ("0.14.5.post1",
/// "0.16.4+cu124": the release).
long release_number(const std::string& written) {
    static const std::regex pep440(R"(v?([0-9.]+?)(([._-]?(a|b|rc|alpha|beta|pre|dev)[0-9]*)|([._-]?post[0-9]*))?(\+[0-9a-z._]+)?)",
                                   std::regex::icase);
    std::smatch m;
    // No release is longer; std::regex recurses once a character, so a long one would overflow the stack.
    if (written.size() > 40 || !std::regex_match(written, m, pep440)) return -1;
    const long release = release_parts(m[1].str());
    return release >= 0 && m[4].matched ? release - 1 : release;
}

}  // namespace

bool is_release(const std::string& v) { return release_number(v) >= 0; }

namespace {
/// The DeepSpeed release a job follows: its framework_version, or 0.17.5.
long deepspeed_release(const Training& t) {
    return t.framework_version.empty() ? 17005 : release_number(t.framework_version);
}
}  // namespace

DeepSpeedBf16 deepspeed_bf16(const Training& t) {
    const long v = deepspeed_release(t);
    if (v < 16005) return DeepSpeedBf16::fp32_buffer_grads_freed;                              // 0.16.5
    if (v < 17006) return DeepSpeedBf16::fp32_buffer_grads_kept;                               // 0.17.6
    if (v < 18005) return DeepSpeedBf16::fp16_optimizer;                                       // 0.18.5
    return DeepSpeedBf16::bf16_buffer;
}

bool deepspeed_fp16_fused(const Training& t) { return t.optimizer != "sgd" && deepspeed_release(t) >= 5000; }  // 0.5.0
DeepSpeedOptimizer deepspeed_optimizer(const Training& t) {
    if (t.zero_stage >= 1) return DeepSpeedOptimizer::zero;
    if (t.precision == "fp16") return DeepSpeedOptimizer::fp16;
    if (t.precision != "bf16") return DeepSpeedOptimizer::client;
    return deepspeed_bf16(t) == DeepSpeedBf16::fp16_optimizer ? DeepSpeedOptimizer::fp16 : DeepSpeedOptimizer::bf16;
}

bool deepspeed_state_at_start(const Training& t) {
    switch (deepspeed_optimizer(t)) {
    case DeepSpeedOptimizer::client: return false;
    case DeepSpeedOptimizer::fp16: return true;
    default: return deepspeed_release(t) < 13002;  // 0.13.2
    }
}
double deepspeed_sub_group_size(const Training& t) {
    if (t.sub_group_size > 0) return t.sub_group_size;
    return deepspeed_release(t) >= 4001 ? 1e9 : 1e12;
}
double deepspeed_reduce_bucket(const Training& t) { return t.reduce_bucket_size > 0 ? t.reduce_bucket_size : 5e8; }
double deepspeed_max_live(const Training& t) { return t.max_live_parameters > 0 ? t.max_live_parameters : 1e9; }
DeepSpeedBuckets deepspeed_buckets(const Training& t) {
    const long v = deepspeed_release(t);
    return {v >= 16005, v >= 17002, v >= 6000, v >= 17002};
}
long deepspeed_zero3_untraced_passes(const Training& t) { return deepspeed_release(t) >= 15004 ? 2 : 1; }  // 0.15.4
bool deepspeed_tied_grad_fp32(const Training& t) {
    if (t.framework != Framework::deepspeed || deepspeed_optimizer(t) != DeepSpeedOptimizer::bf16) return false;
    const DeepSpeedBf16 b = deepspeed_bf16(t);
    return b == DeepSpeedBf16::fp32_buffer_grads_freed || b == DeepSpeedBf16::fp32_buffer_grads_kept;
}
bool megatron_deepspeed_loss_in_place(const Training& t) { return deepspeed_release(t) < 7004; }  // 0.7.4
bool deepspeed_grads_partitioned(const Training& t) { return deepspeed_release(t) >= 5004; }  // 0.5.4
bool deepspeed_shared_receive_buffer(const Training& t) { return deepspeed_release(t) >= 15000; }  // 0.15.0

MegatronFp16 megatron_fp16(const Training& t) {
    const long v = t.framework_version.empty() ? -1 : release_number(t.framework_version);
    if (v < 1000000) return MegatronFp16::contiguous_buffer;  // current, or Megatron-Core 0.x
    if (v < 2005000) return MegatronFp16::master_grads_kept;  // 2.5
    if (v < 2006000) return MegatronFp16::grads_flattened;    // 2.6
    return MegatronFp16::contiguous_buffer;
}

bool megatron_main_grad_alias(const Training& t) {
    if (t.framework != Framework::megatron || t.precision != "fp16" || t.framework_version.empty()) return false;
    const long v = release_number(t.framework_version);
    return v >= 2001000 && v < 2006000;
}

namespace {
/// Megatron-LM as current, Megatron-Core (0.x) or 3.0 and later.
bool megatron_core_era(const Training& t) {
    if (t.framework != Framework::megatron) return false;
    if (t.framework_version.empty()) return true;
    const long v = release_number(t.framework_version);
    return v < 1000000 || v >= 3000000;
}
}  // namespace

bool megatron_global_buffer(const Training& t) { return megatron_core_era(t); }

int default_zero_stage(Framework f) { return f == Framework::fsdp ? 3 : 0; }

Training on_gpu(const Training& t, const catalog::GpuType& g) {
    Training out = t;
    out.compute_capability = catalog::compute_capability_of(g);
    out.fp8_units = g.fp8;
    return out;
}

std::string capability_note(const Training& t) {
    return t.compute_capability > 0 ? " (compute capability " + io::format_fixed(t.compute_capability, 1) + ")" : "";
}

std::string precision_unsupported(const Training& t) {
    if (t.precision == "fp8" && t.fp8_units >= 0)
        return t.fp8_units ? "" : "fp8 needs fp8 matrix units, which this type lacks (train in bf16 or fp16 there)";
    const double cc = t.compute_capability;
    if (cc <= 0) return "";
    if (t.precision == "bf16" && cc < 8.0)
        return "bf16 needs compute capability 8.0 or later (below, its matrix products are emulated in fp32; "
               "train in fp16 there)";
    if (t.precision == "fp8" && cc < 8.9)
        return "fp8 needs compute capability 8.9 or later (fp8 tensor cores; train in bf16 or fp16 there)";
    return "";
}

namespace {
bool transformer_engine_layers(const Training& t) { return megatron_core_era(t) && !t.local_impl; }
}  // namespace

bool replays_core_attention(const Training& t) { return megatron_core_era(t) || !runs_fused_attention(t); }

bool runs_fused_attention(const Training& t) {
    // Transformer Engine's get_attention_backend: flash and fused (cuDNN) attention need sm80+.
    const bool pre_ampere = t.compute_capability > 0 && t.compute_capability < 8;
    return t.flash_attention && !(transformer_engine_layers(t) && pre_ampere);
}

double transformer_engine_workspace(const Training& t) {
    if (!transformer_engine_layers(t)) return 0;
    const bool hopper_on = t.compute_capability == 0 || t.compute_capability >= 9;
    return (hopper_on ? 32.0 : 4.0) * 1024 * 1024;
}

double torch_cublas_workspace(const Training& t) {
    // Unstated: 32 MiB, the larger of torch's defaults and what deterministic runs set on any GPU, so
    // that a run that did not say is not under-estimated.
    if (t.cublas_workspace_config.empty()) return 32.0 * 1024 * 1024;
    // torch's default (aten CublasHandlePool.cpp, since 2.0): ":4096:2:16:8", 32 MiB on Hopper; on
    // Blackwell also 32 MiB from torch 2.11 (pytorch#175344), which is what is read here for 10.0 up.
    if (t.cublas_workspace_config == "default")
        return t.compute_capability == 0 || t.compute_capability >= 9 ? 32.0 * 1024 * 1024
                                                                       : (4096.0 * 2 + 16.0 * 8) * 1024;
    // ":SIZE:COUNT" repeated, SIZE in KiB, as torch reads CUBLAS_WORKSPACE_CONFIG (here the whole
    // value must be such pairs, of at most 9 digits each, and come to at most 1 GiB).
    static const std::regex whole("(:[0-9]{1,9}:[0-9]{1,9})+"), pair(":([0-9]+):([0-9]+)");
    const std::string& c = t.cublas_workspace_config;
    if (!std::regex_match(c, whole)) return -1;
    double bytes = 0;
    for (std::sregex_iterator it(c.begin(), c.end(), pair), end; it != end; ++it)
        bytes += std::stod((*it)[1]) * 1024 * std::stod((*it)[2]);
    return bytes <= kMaxCublasWorkspace ? bytes : -1;
}

namespace {
/// FSDP under torchtitan `release` (0.2.1 is 2001) or later; no version is its code before 0.2.
bool torchtitan_from(const Training& t, long release) {
    return t.framework == Framework::fsdp && !t.framework_version.empty() && release_number(t.framework_version) >= release;
}
}  // namespace

bool torchtitan_embedding_unit(const Training& t) { return torchtitan_from(t, 2000); }
bool torchtitan_saves_cudnn_attention(const Training& t) { return torchtitan_from(t, 2001); }
bool torchtitan_fused_rms_norm(const Training& t) { return torchtitan_from(t, 2000); }
bool torchtitan_gqa_without_repeat(const Training& t) { return torchtitan_from(t, 2002); }
bool torchtitan_fused_adamw(const Training& t) { return torchtitan_from(t, 1000); }
bool torchtitan_sac_saves_abs(const Training& t) { return t.framework == Framework::fsdp && !torchtitan_from(t, 1000); }
bool torchtitan_keeps_pipeline_outputs(const Training& t) { return t.framework == Framework::fsdp && !torchtitan_from(t, 2001); }

bool torchtitan_trains_fp32(const Training& t, const Layout& l) {
    return t.framework == Framework::fsdp && t.precision != "fp32" && l.dp * l.cp == 1 && (l.tp > 1 || l.pp > 1);
}

std::string torchtitan_fp32_note(const Training& t, const Layout& l) {
    if (!torchtitan_trains_fp32(t, l)) return {};
    return "torchtitan trains this layout in fp32 (tensor or pipeline parallelism without FSDP or context "
           "parallelism runs no mixed precision); this estimate is for " + t.precision + ": give --precision fp32 "
           "for torchtitan's";
}

bool can_pipeline(const Training& t) { return !(t.framework == Framework::deepspeed && t.zero_stage >= 2); }

bool optimizer_sharded(const Training& t) {
    return t.distributed_optimizer || t.zero_stage >= 1 ||
           (t.framework == Framework::deepspeed && deepspeed_optimizer(t) == DeepSpeedOptimizer::bf16);
}

namespace {
/// `s` lower-cased with '_' and spaces as '-': "megatron_lm" and "Megatron Core" as the names go.
std::string dashed(const std::string& s) {
    std::string w = io::folded_name(s);
    std::replace_if(w.begin(), w.end(), [](char c) { return c == '_' || c == ' '; }, '-');
    return w;
}
}  // namespace

Framework parse_framework(const std::string& s) {
    const std::string w = dashed(s);
    // The names the frameworks go by: Megatron-Core is Megatron-LM's, Megatron-DeepSpeed trains on
    // DeepSpeed's engine, and the fsdp habits are torchtitan's FSDP2.
    // NeMo trains its language models on Megatron-Core.
    if (w == "megatron" || w == "megatron-lm" || w == "megatron-core" || w == "mcore" || w == "nemo") return Framework::megatron;
    if (w == "deepspeed" || w == "megatron-deepspeed") return Framework::deepspeed;
    if (w == "fsdp" || w == "fsdp2" || w == "torchtitan") return Framework::fsdp;
    throw DataError("unknown framework '" + s +
                    "' (expected megatron, deepspeed or fsdp; megatron-lm, megatron-core, nemo, megatron-deepspeed, fsdp2 "
                    "and torchtitan are read as theirs)");
}

bool names_megatron_deepspeed(const std::string& text) { return dashed(text).find("megatron-deepspeed") != std::string::npos; }

std::string framework_name(Framework f) {
    switch (f) {
    case Framework::megatron: return "megatron";
    case Framework::deepspeed: return "deepspeed";
    case Framework::fsdp: return "fsdp";
    }
    return "?";
}

Recompute parse_recompute(const std::string& s) {
    if (s == "none" || s == "no" || s == "off" || s.empty()) return Recompute::none;
    // op: torchtitan's per-op selective option; sac its name for selective checkpointing.
    if (s == "selective" || s == "op" || s == "per-op" || s == "per_op" || s == "sac") return Recompute::selective;
    if (s == "full") return Recompute::full;
    throw DataError("unknown recompute '" + s + "' (expected none, selective or full)");
}

std::string precision_word(const std::string& s) {
    std::string w = io::folded_name(s);
    if (w.rfind("torch.", 0) == 0) w.erase(0, 6);  // torch.bfloat16
    // Lightning's mixed-precision names: 16-bit compute over fp32 weights, as bf16 and fp16 here.
    if (w == "bf16-mixed") return "bf16";
    if (w == "16-mixed") return "fp16";
    if (w == "bfloat16") return "bf16";  // torch's dtype names
    if (w == "float16" || w == "half") return "fp16";
    if (w == "float32" || w == "float") return "fp32";
    if (w == "float8" || w == "float8_e4m3fn" || w == "float8_e5m2") return "fp8";
    return w;
}

std::string recompute_name(Recompute r) {
    switch (r) {
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::full: return "full";
    }
    return "?";
}

void parse_deepspeed_model(const std::string& s, Training& t) {
    if (s != "megatron" && s != "hf") throw DataError("unknown deepspeed_model '" + s + "' (expected megatron or hf)");
    t.deepspeed_model = s;
}

void parse_transformer_impl(const std::string& s, Training& t) {
    if (s != "local" && s != "transformer_engine")
        throw DataError("unknown transformer_impl '" + s + "' (expected local or transformer_engine)");
    t.local_impl = s == "local";
}

void parse_attention_backend(const std::string& s, Training& t) {
    if (s != "flash" && s != "cudnn") throw DataError("unknown attention_backend '" + s + "' (expected flash or cudnn)");
    t.cudnn_attention = s == "cudnn";
}

void parse_compile(const std::string& s, Training& t) {
    bool model = false, loss = false;
    if (s == "true" || s == "yes" || s == "1" || s == "True") {
        model = loss = true;
    } else if (s != "false" && s != "no" && s != "0" && s != "False" && s != "none" && !s.empty()) {
        size_t from = 0;
        for (;;) {
            const size_t plus = s.find('+', from);
            const std::string part = s.substr(from, plus == std::string::npos ? std::string::npos : plus - from);
            bool& seen = part == "model" ? model : loss;
            if ((part != "model" && part != "loss") || seen)
                throw DataError("unknown compile '" + s + "' (expected none, model, loss, model+loss, true or false)");
            seen = true;
            if (plus == std::string::npos) break;
            from = plus + 1;
        }
    }
    t.compiled = model;
    t.compiled_loss = loss;
}

std::string compile_name(const Training& t) {
    if (t.compiled && t.compiled_loss) return "model+loss";
    if (t.compiled) return "model";
    return t.compiled_loss ? "loss" : "none";
}

void check_split_sum(const std::vector<long>& split, long layers) {
    long sum = 0;
    for (long c : split) sum += std::min(c, limits::layers + 1);  // no overflow: at most 2^16 stages
    if (!split.empty() && sum != layers)
        throw DataError("layers_per_stage sums to " + str(sum) + " layers, but the model has " + str(layers));
}

void validate_model(const catalog::ModelSpec& m) {
    positive(m.layers, "layers", limits::layers);
    positive(m.hidden, "hidden", limits::hidden);
    positive(m.heads, "heads", limits::heads);
    positive(m.kv_heads, "kv_heads", limits::heads);
    positive(m.ffn_hidden, "ffn_hidden", limits::ffn_hidden);
    positive(m.vocab, "vocab", limits::vocab);
    if (m.head_dim != 0) {
        positive(m.head_dim, "head_dim", limits::head_dim);
        if (m.heads * m.head_dim > limits::q_width)
            throw DataError("heads x head_dim (" + str(m.heads * m.head_dim) + ") must be at most " +
                            str(limits::q_width));
    } else if (m.hidden % m.heads != 0) {
        throw DataError("heads (" + str(m.heads) + ") must divide hidden (" + str(m.hidden) + "), or give head_dim");
    }
    if (m.heads % m.kv_heads != 0)
        throw DataError("kv_heads (" + str(m.kv_heads) + ") must divide heads (" + str(m.heads) + ")");
    if (m.dropout < 0 || m.dropout >= 1) throw DataError("dropout must be in [0, 1)");
}

void validate_training(const Training& t) {
    positive(t.seq_len, "seq_len", limits::seq_len);
    positive(t.global_batch, "global_batch", limits::global_batch);
    if (t.precision == "tf32")
        throw DataError("precision tf32 is fp32 training with TF32 matmuls: give precision fp32 and tf32 (training.tf32: "
                        "true, --tf32)");
    if (t.precision != "bf16" && t.precision != "fp16" && t.precision != "fp8" && t.precision != "fp32")
        throw DataError("unknown precision '" + t.precision + "' (expected bf16, fp16, fp8 or fp32)");
    if (t.optimizer != "adam" && t.optimizer != "adamw" && t.optimizer != "sgd")
        throw DataError("unknown optimizer '" + t.optimizer + "' (expected adam, adamw or sgd)");
    if (t.zero_stage < 0 || t.zero_stage > 3) throw DataError("zero_stage must be 0, 1, 2 or 3, got " + str(t.zero_stage));
    // Megatron-LM's distributed optimizer shards the optimizer states only: every rank keeps the whole
    // main-grad buffer, which the reduce-scatter fills (its docs: 6 + 12/d bytes a parameter in bf16).
    if (t.zero_stage >= 2 && t.framework == Framework::megatron)
        throw DataError("zero_stage " + str(t.zero_stage) + " is not Megatron-LM's: its distributed optimizer "
                        "(zero_stage 1) shards the optimizer states only, each rank keeping the whole gradient "
                        "buffer; use framework deepspeed or fsdp");
    // FSDP2 shards parameters, gradients and optimizer states together: no stage shards the optimizer
    // alone.
    if (t.zero_stage == 1 && t.framework == Framework::fsdp)
        throw DataError("zero_stage 1 is not FSDP2's: it shards parameters, gradients and optimizer states "
                        "together (zero_stage 3; 2: reshard_after_forward=False), or none of them (zero_stage 0, "
                        "plain data parallelism); sharding the optimizer alone is framework deepspeed's");
    if (t.checkpoint_every < 1 || t.checkpoint_every > limits::layers)
        throw DataError("checkpoint_every must be an integer from 1 to " + str(limits::layers) + ", got " +
                        str(t.checkpoint_every));
    if (t.checkpoint_every > 1 && t.recompute != Recompute::full)
        throw DataError("checkpoint_every " + str(t.checkpoint_every) + " needs recompute full, got " +
                        recompute_name(t.recompute));
    // Every N-th block checkpointed is torchtitan's option (its selective_ac_option N); Megatron-LM's
    // --recompute-num-layers and DeepSpeed's checkpoint_num_layers group consecutive layers instead.
    if (t.checkpoint_every > 1 && t.framework != Framework::fsdp)
        throw DataError("checkpoint_every (every N-th block) is torchtitan's, framework fsdp; got " +
                        framework_name(t.framework));
    if (!t.framework_version.empty() && !is_release(t.framework_version))
        throw DataError("framework_version must be a release such as 0.17.5, got '" + t.framework_version + "'");
    if (!t.deepspeed_model.empty() && t.deepspeed_model != "megatron" && t.deepspeed_model != "hf")
        throw DataError("unknown deepspeed_model '" + t.deepspeed_model + "' (expected megatron or hf)");
    if (!t.deepspeed_model.empty() && t.framework != Framework::deepspeed)
        throw DataError("deepspeed_model needs framework deepspeed, got " + framework_name(t.framework));
    if (!t.framework_version.empty() && t.framework != Framework::megatron &&
        (release_number(t.framework_version) >= 1000000 ||
         std::atol(t.framework_version.c_str() + (t.framework_version[0] == 'v' || t.framework_version[0] == 'V')) >= 1))
        throw DataError("framework_version for " + framework_name(t.framework) + " is " +
                        (t.framework == Framework::fsdp ? "torchtitan's" : "DeepSpeed's") + " release (0.x), got " +
                        t.framework_version);
    if (t.local_impl && t.framework != Framework::megatron)
        throw DataError("transformer_impl local applies to megatron, got " + framework_name(t.framework));
    if (t.cudnn_attention && t.framework != Framework::fsdp)
        throw DataError("attention_backend cudnn applies to fsdp (torchtitan's per-op checkpointing), got " +
                        framework_name(t.framework));
    if (t.cudnn_attention && !t.flash_attention)
        throw DataError("attention_backend cudnn needs flash_attention (cuDNN's is a fused kernel)");
    // Megatron-LM's and Megatron-DeepSpeed's --attention-softmax-in-fp32; torchtitan has no such setting.
    if (t.unfused_fp32_softmax && t.framework == Framework::fsdp)
        throw DataError("unfused_fp32_softmax is Megatron's --attention-softmax-in-fp32 (megatron, deepspeed), "
                        "got fsdp");
    if (t.unfused_fp32_softmax && t.flash_attention)
        throw DataError("unfused_fp32_softmax needs flash_attention off (flash attention saves no scores)");
    if (t.unfused_fp32_softmax && t.precision == "fp32")
        throw DataError("unfused_fp32_softmax needs a 16-bit precision (in fp32 the softmax saves only its fp32 "
                        "output), got fp32");
    if (t.fp8_all_gather && (t.precision != "fp8" || t.framework != Framework::fsdp))
        throw DataError("fp8_all_gather needs precision fp8 and framework fsdp, got " + t.precision + " and " +
                        framework_name(t.framework));
    // fp8 is modelled as Transformer Engine's (Megatron-LM) and torchao's float8 (FSDP2) run it;
    // DeepSpeed has no fp8 mode of its own, and its FP16 optimizer would be taken for it.
    if (t.precision == "fp8" && t.framework == Framework::deepspeed)
        throw DataError("precision fp8 is modelled for megatron (Transformer Engine) and fsdp (torchao float8), not "
                        "deepspeed, which has no fp8 mode of its own: give bf16");
    if (t.distributed_optimizer && t.framework != Framework::megatron)
        throw DataError("distributed_optimizer is Megatron-LM's (" + framework_name(t.framework) +
                        " shards the optimizer by zero_stage), got framework " + framework_name(t.framework));
    if ((t.compiled || t.compiled_loss) && t.framework == Framework::megatron)
        throw DataError("compile applies to deepspeed and fsdp (Megatron-LM runs its own fused kernels), got megatron");
    if (t.tf32 && t.precision != "fp32")
        throw DataError("tf32 applies to precision fp32 (its matrix multiplies on TF32 tensor cores), got " + t.precision);
    if (t.fp32_allreduce && t.framework != Framework::deepspeed)
        throw DataError("fp32_allreduce applies to deepspeed (Megatron-LM and FSDP reduce fp32 gradients already), "
                        "got " +
                        framework_name(t.framework));
    const bool deepspeed = t.framework == Framework::deepspeed;
    if (t.fp32_allreduce && t.zero_stage >= 1 && deepspeed && deepspeed_release(t) < 9000)
        throw DataError("fp32_allreduce under ZeRO needs DeepSpeed 0.9.0 or later (earlier releases refuse it), got "
                        "framework_version " +
                        t.framework_version);
    if (t.reduce_bucket_size < 0 || t.reduce_bucket_size > limits::bucket_elements)
        throw DataError("reduce_bucket_size must be from 1 to 1e13 elements, got " + io::format_number(t.reduce_bucket_size));
    if (t.sub_group_size < 0 || t.sub_group_size > limits::bucket_elements)
        throw DataError("sub_group_size must be from 1 to 1e13 elements, got " + io::format_number(t.sub_group_size));
    if (t.reduce_bucket_size > 0 && (!deepspeed || t.zero_stage < 1))
        throw DataError("reduce_bucket_size applies to deepspeed at zero_stage 1-3, got " + framework_name(t.framework) +
                        " at zero_stage " + str(t.zero_stage));
    if (t.overlap_comm && (!deepspeed || t.zero_stage < 1 || t.zero_stage > 2))
        throw DataError("overlap_comm applies to deepspeed at zero_stage 1-2 (ZeRO-3 always overlaps), got " +
                        framework_name(t.framework) + " at zero_stage " + str(t.zero_stage));
    if (t.max_live_parameters < 0 || t.max_live_parameters > limits::bucket_elements)
        throw DataError("stage3_max_live_parameters must be from 1 to 1e13 elements, got " +
                        io::format_number(t.max_live_parameters));
    for (const auto& [value, name] : {std::pair{t.reduce_bucket_size, "reduce_bucket_size"},
                                      std::pair{t.sub_group_size, "sub_group_size"},
                                      std::pair{t.max_live_parameters, "stage3_max_live_parameters"}})
        if (value != std::floor(value))  // counts of elements
            throw DataError(std::string(name) + " must be a whole number of elements, got " + io::format_number(value));
    for (const auto& [value, name] : {std::pair{t.sub_group_size, "sub_group_size"},
                                      std::pair{t.max_live_parameters, "stage3_max_live_parameters"}})
        if (value > 0 && (!deepspeed || t.zero_stage != 3))
            throw DataError(std::string(name) + " applies to deepspeed at zero_stage 3, got " +
                            framework_name(t.framework) + " at zero_stage " + str(t.zero_stage));
    if (t.fp8_all_gather && t.zero_stage < 2)
        throw DataError("fp8_all_gather needs zero_stage 2 or 3 (FSDP gathers nothing below), got " +
                        str(t.zero_stage));
    if (torch_cublas_workspace(t) < 0)
        throw DataError("cublas_workspace_config must be CUBLAS_WORKSPACE_CONFIG's \":SIZE:COUNT\" pairs, SIZE in KiB, "
                        "at most 1 GiB in all (e.g. :4096:8), or default (torch's, the variable unset), got '" +
                        t.cublas_workspace_config + "'");
}

std::string micro_batch_misfit(long micro_batch, long global_batch) {
    return "the micro-batch (" + std::to_string(micro_batch) + ") " +
           (micro_batch > global_batch ? "is larger than" : "does not divide") + " the global batch (" +
           std::to_string(global_batch) + ")";
}

void check_micro_batch(const Training& t, long micro_batch) {
    if (micro_batch > 0 && t.global_batch % micro_batch != 0) throw DataError(micro_batch_misfit(micro_batch, t.global_batch));
}

void validate(const catalog::ModelSpec& m, const Training& t) {
    validate_model(m);
    validate_training(t);
}

void validate(const catalog::ModelSpec& m, const Training& t, const Layout& l) {
    validate(m, t);
    positive(l.tp, "tp", limits::degree);
    positive(l.pp, "pp", limits::degree);
    positive(l.dp, "dp", limits::degree);
    positive(l.cp, "cp", limits::degree);
    positive(l.vpp, "vpp", limits::degree);
    positive(l.micro_batch, "micro_batch", limits::global_batch);
    const long gpus = static_cast<long>(l.tp) * l.pp * l.dp * l.cp;  // each at most 2^16: no overflow in 64 bits
    if (gpus > limits::layout_gpus)
        throw DataError("layout of " + str(gpus) + " GPUs is beyond what this model supports (at most " +
                        str(limits::layout_gpus) + ")");
    if (m.heads % l.tp != 0) throw DataError("tp (" + str(l.tp) + ") must divide heads (" + str(m.heads) + ")");
    // Megatron-LM, Megatron-DeepSpeed and torchtitan give each tensor-parallel rank whole key/value
    // heads of its own (none replicates a head over ranks).
    if (m.kv_heads % l.tp != 0)
        throw DataError("tp (" + str(l.tp) + ") must divide kv_heads (" + str(m.kv_heads) +
                        "): each tensor-parallel rank holds whole key/value heads of its own");
    if (m.ffn_hidden % l.tp != 0)
        throw DataError("tp (" + str(l.tp) + ") must divide ffn_hidden (" + str(m.ffn_hidden) + ")");
    if (!l.layers_per_stage.empty()) {
        if (static_cast<long>(l.layers_per_stage.size()) != l.pp)
            throw DataError("layers_per_stage gives " + io::counted(static_cast<long>(l.layers_per_stage.size()), "stage") +
                            ", but pp is " + str(l.pp));
        for (size_t i = 0; i < l.layers_per_stage.size(); ++i) {
            if (l.layers_per_stage[i] < 1)
                throw DataError("layers_per_stage: stage " + str(static_cast<long>(i)) + " holds " +
                                str(l.layers_per_stage[i]) + " layers; every stage needs at least one");
            if (l.layers_per_stage[i] < l.vpp)
                throw DataError("layers_per_stage: stage " + str(static_cast<long>(i)) + " holds " +
                                io::counted(l.layers_per_stage[i], "layer") + ", fewer than its " + str(l.vpp) +
                                " virtual chunks (vpp); each chunk needs at least one");
        }
        check_split_sum(l.layers_per_stage, m.layers);
    }
    if (t.local_impl && l.cp > 1)
        throw DataError("Megatron's local implementation has no context parallelism (only Transformer Engine's "
                        "attention has), got cp " + str(l.cp));
    if (l.pp > 1 && !can_pipeline(t))
        throw DataError("DeepSpeed's pipeline engine runs ZeRO stage 0 or 1 only, got zero_stage " + str(t.zero_stage) +
                        " with pp " + str(l.pp));
    if (l.vpp > 1 && l.pp == 1)
        throw DataError("vpp " + str(l.vpp) + " interleaves pipeline stages: it needs pp above 1");
    // DeepSpeed's pipeline engine runs one schedule, 1F1B over whole stages (TrainSchedule).
    if (l.vpp > 1 && t.framework == Framework::deepspeed)
        throw DataError("DeepSpeed's pipeline engine has no interleaved schedule: vpp must be 1, got " + str(l.vpp));
    const long chunks = static_cast<long>(l.pp) * l.vpp;  // each at most 2^16: no overflow in 64 bits
    if (chunks > m.layers)
        throw DataError((l.vpp > 1 ? "pp x vpp (" : "pp (") + str(chunks) + ") exceeds the number of layers (" +
                        str(m.layers) + ")");
    if (t.global_batch % (l.micro_batch * l.dp) != 0)
        throw DataError("global batch (" + str(t.global_batch) + ") is not divisible by micro_batch x dp (" +
                        str(l.micro_batch * l.dp) + ")");
    // Megatron-Core's interleaved schedule runs at least pp micro-batches (before 2024, a multiple of
    // pp); torch's ScheduleInterleaved1F1B (torchtitan) runs fewer, with a larger bubble.
    if (t.framework == Framework::megatron && l.vpp > 1 && l.micro_batches(t.global_batch) < l.pp)
        throw DataError("Megatron-LM's interleaved schedule (vpp " + str(l.vpp) + ") needs at least pp (" + str(l.pp) +
                        ") micro-batches, got " + str(l.micro_batches(t.global_batch)));
    // Megatron-LM (get_batch_on_this_cp_rank) and torch's context parallelism (torchtitan) balance
    // causal attention's work by cutting the sequence into 2 x cp equal chunks, a rank taking one
    // from each end; DeepSpeed's sequence parallelism (Ulysses) cuts it into cp.
    if (t.framework == Framework::deepspeed && t.seq_len % l.cp != 0)
        throw DataError("cp (" + str(l.cp) + ") must divide seq_len (" + str(t.seq_len) + ")");
    if (t.framework != Framework::deepspeed && l.cp > 1 && t.seq_len % (2 * l.cp) != 0)
        throw DataError("cp " + str(l.cp) + " needs seq_len (" + str(t.seq_len) + ") divisible by 2 x cp (" +
                        str(2 * l.cp) + "): the sequence is cut into 2 x cp equal chunks, two to a rank");
    // Each context-parallel rank's part of the sequence is then split over the tensor-parallel ranks.
    if (sequence_parallel(t, l) && (t.seq_len / l.cp) % l.tp != 0)
        throw DataError("sequence parallelism needs tp (" + str(l.tp) + ") to divide the sequence each rank holds (" +
                        (l.cp > 1 ? "seq_len / cp = " : "seq_len = ") + str(t.seq_len / l.cp) + ")");
}

}  // namespace hetsched::model
