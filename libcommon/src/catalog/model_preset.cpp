#include <hetsched/catalog/model_preset.hpp>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/cli/error.hpp>
#include <hetsched/io/names.hpp>

namespace hetsched::catalog {
namespace {

/// GPT-2/GPT-3/OPT/BERT style: LayerNorm, biases, learned positions, tied embeddings, dropout 0.1.
ModelSpec gpt(const char* name, long layers, long hidden, long heads, long vocab, long positions) {
    return {name, layers, hidden, heads, heads, 4 * hidden, false, vocab, true, false, true, positions, 0.1};
}

/// The same shape as an encoder: every token attends to every other.
ModelSpec encoder(ModelSpec m) {
    m.causal = false;
    return m;
}

/// LLaMA style: RMSNorm, no biases, rotary positions, SwiGLU, untied output, no dropout.
ModelSpec llama(const char* name, long layers, long hidden, long heads, long kv, long ffn, long vocab) {
    return {name, layers, hidden, heads, kv, ffn, true, vocab, false, true, false, 0, 0.0};
}

/// Qwen3's dense models: a LLaMA block with heads of 128 whatever the hidden size and RMSNorm on each
/// head's queries and keys, tied embeddings up to 4B.
ModelSpec qwen3(const char* name, long layers, long hidden, long heads, long ffn, bool tied) {
    ModelSpec m = llama(name, layers, hidden, heads, 8, ffn, 151936);
    m.tied_embeddings = tied;
    m.head_dim = 128;
    m.qk_norm = true;
    return m;
}

std::vector<ModelSpec> build() {
    std::vector<ModelSpec> m = {
        gpt("gpt2", 12, 768, 12, 50257, 1024),
        gpt("gpt2-medium", 24, 1024, 16, 50257, 1024),
        gpt("gpt2-large", 36, 1280, 20, 50257, 1024),
        gpt("gpt2-xl", 48, 1600, 25, 50257, 1024),
        // Megatron-LM's GPT-3 examples (vocab: GPT-2 BPE).
        gpt("gpt3-1.3b", 24, 2048, 16, 50257, 2048),
        gpt("gpt3-2.7b", 32, 2560, 32, 50257, 2048),
        gpt("gpt3-6.7b", 32, 4096, 32, 50257, 2048),
        gpt("gpt3-13b", 40, 5120, 40, 50257, 2048),
        gpt("gpt3-175b", 96, 12288, 96, 50257, 2048),
        // Espresso Table II (layers and hidden size from the paper; head size 128, or 100 for 3200).
        llama("espresso-llama-1.3b", 26, 2048, 16, 16, 5632, 32000),
        llama("espresso-llama-3b", 45, 2560, 20, 20, 6912, 32000),
        llama("espresso-llama-7b", 61, 3200, 32, 32, 8704, 32000),
        {"espresso-vit-3.4b", 70, 2048, 16, 16, 8192, false, 1000, false, false, true, 257, 0.0, false},
        // LLaMA (Touvron et al. 2023, Table 2): the first generation, the shapes LLaMA 2 kept at 7B and 13B.
        llama("llama-7b", 32, 4096, 32, 32, 11008, 32000),
        llama("llama-13b", 40, 5120, 40, 40, 13824, 32000),
        llama("llama-33b", 60, 6656, 52, 52, 17920, 32000),
        llama("llama-65b", 80, 8192, 64, 64, 22016, 32000),
        llama("llama-2-7b", 32, 4096, 32, 32, 11008, 32000),
        llama("llama-2-13b", 40, 5120, 40, 40, 13824, 32000),
        llama("llama-2-70b", 80, 8192, 64, 8, 28672, 32000),
        llama("llama-3.1-8b", 32, 4096, 32, 8, 14336, 128256),
        llama("llama-3.1-70b", 80, 8192, 64, 8, 28672, 128256),
        llama("llama-3.1-405b", 126, 16384, 128, 8, 53248, 128256),
        encoder(gpt("bert-base", 12, 768, 12, 30522, 512)),
        encoder(gpt("bert-large", 24, 1024, 16, 30522, 512)),
        gpt("opt-6.7b", 32, 4096, 32, 50272, 2048),
        gpt("gpt-neo-1.3b", 24, 2048, 16, 50257, 2048),
        gpt("gpt-neo-2.7b", 32, 2560, 20, 50257, 2048),
        // torchtitan's qwen3 flavors (torchtitan/models/qwen3/__init__.py at v0.2.2), as Qwen's configs.
        qwen3("qwen3-0.6b", 28, 1024, 16, 3072, true),
        qwen3("qwen3-1.7b", 28, 2048, 16, 6144, true),
        qwen3("qwen3-4b", 36, 2560, 32, 9728, true),
        qwen3("qwen3-8b", 36, 4096, 32, 12288, false),
        qwen3("qwen3-14b", 40, 5120, 40, 17408, false),
        qwen3("qwen3-32b", 64, 5120, 64, 25600, false),
    };
    return m;
}

}  // namespace

const std::vector<ModelSpec>& model_presets() {
    static const std::vector<ModelSpec> presets = build();
    return presets;
}

const ModelSpec& find_model(const std::string& name) {
    std::vector<std::string> names;
    for (const auto& m : model_presets()) {
        if (io::same_name(m.name, name)) return m;
        names.push_back(m.name);
    }
    throw UsageError("unknown model '" + name + "'" + io::did_you_mean(name, names) + " (see --list-models)");
}

}  // namespace hetsched::catalog
