#pragma once
/// Transformer architectures by name: the facts the memory and time models need (GQA, gated MLP,
/// vocabulary, tied embeddings, norm and bias style, causal or encoder attention), for the models users
/// ask for by name.
#include <string>
#include <vector>

namespace hetsched::catalog {

/// A decoder (or encoder) transformer's shape.
struct ModelSpec {
    std::string name = "custom";
    long layers = 0;
    long hidden = 0;
    long heads = 0;
    long kv_heads = 0;          ///< query groups; == heads without GQA
    long ffn_hidden = 0;
    bool gated_mlp = false;     ///< SwiGLU-style: two input projections of ffn_hidden
    long vocab = 0;
    bool tied_embeddings = true;
    bool rms_norm = false;      ///< RMSNorm (weight only) instead of LayerNorm (weight and bias)
    bool linear_bias = true;    ///< biases on the linear layers
    long learned_positions = 0; ///< rows of a learned position table (0 = rotary, no table)
    double dropout = 0.1;       ///< hidden and attention dropout probability used in training
    bool causal = true;         ///< each token attends only to those before it (false: an encoder, BERT or ViT)
    long head_dim = 0;          ///< width of an attention head; 0: hidden / heads (Qwen3's and Gemma's differ)
    bool qk_norm = false;       ///< RMSNorm over each head's queries and keys before rotary (Qwen3, OLMo 2)
};

/// Every preset, in the order --list-models shows them.
const std::vector<ModelSpec>& model_presets();

/// The preset called exactly `name` (ASCII case ignored, nothing else); UsageError naming close names
/// as suggestions only otherwise.
const ModelSpec& find_model(const std::string& name);

}  // namespace hetsched::catalog
