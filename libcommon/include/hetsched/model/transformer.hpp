#pragma once
/// Sizes and FLOPs of a transformer, per layer and per tensor-parallel rank, from its shape alone.
#include <hetsched/catalog/model_preset.hpp>

namespace hetsched::model {

/// Width of one attention head: head_dim where the model gives it, else hidden / heads.
double head_width(const catalog::ModelSpec& m);
/// Width of the queries (and of the attention output that wo projects back to hidden): heads x head.
double q_width(const catalog::ModelSpec& m);
/// Width of the keys, and of the values: kv_heads x head.
double kv_width(const catalog::ModelSpec& m);

/// Parameters of one transformer layer held by one tensor-parallel rank (matrices and
/// column-parallel biases split by tp; norms and row-parallel biases replicated).
double layer_params(const catalog::ModelSpec& m, int tp);

/// Vocabulary rows after padding: Megatron pads to a multiple of 128 x tp; `pad` false keeps it.
long padded_vocab(const catalog::ModelSpec& m, int tp, bool pad);

/// Input-side parameters on the first stage (word embeddings / tp, plus a learned position table).
double embedding_params(const catalog::ModelSpec& m, int tp, bool pad_vocab);
/// Output-side parameters on the last stage (final norm, plus the output projection / tp when it is
/// untied or when pipeline stages > 1 force a copy of the tied one).
double output_params(const catalog::ModelSpec& m, int tp, int pp, bool pad_vocab);

/// All parameters of the model (tp = 1, no padding).
double total_params(const catalog::ModelSpec& m);

/// Forward FLOPs of one layer's matmuls (QKV, projection and MLP) for `tokens` tokens.
double layer_matmul_flops(const catalog::ModelSpec& m, double tokens);
/// Forward FLOPs of one layer's attention (QK^T and PV) over the whole score matrix: `tokens` tokens
/// each against the `seq` keys of its sequence.
double attention_flops(const catalog::ModelSpec& m, double tokens, double seq);
/// Forward FLOPs of the output projection for `tokens` tokens.
double logits_forward_flops(const catalog::ModelSpec& m, double tokens);

}  // namespace hetsched::model
