#include <hetsched/model/transformer.hpp>

namespace hetsched::model {

double head_width(const catalog::ModelSpec& m) {
    return m.head_dim > 0 ? static_cast<double>(m.head_dim) : static_cast<double>(m.hidden / m.heads);
}

double q_width(const catalog::ModelSpec& m) { return static_cast<double>(m.heads) * head_width(m); }

double kv_width(const catalog::ModelSpec& m) { return static_cast<double>(m.kv_heads) * head_width(m); }

double layer_params(const catalog::ModelSpec& m, int tp) {
    const double h = static_cast<double>(m.hidden), f = static_cast<double>(m.ffn_hidden), t = tp;
    const double qkv_out = q_width(m) + 2 * kv_width(m);
    const double fc1_out = f * (m.gated_mlp ? 2 : 1);
    double split = h * qkv_out + q_width(m) * h + h * fc1_out + f * h;  // qkv, proj, fc1, fc2 matrices
    double replicated = 2 * h * (m.rms_norm ? 1 : 2);          // two norms
    if (m.qk_norm) replicated += 2 * head_width(m);            // the query and key norms, one head wide
    if (m.linear_bias) {
        split += qkv_out + fc1_out;  // column-parallel biases
        replicated += 2 * h;         // row-parallel biases (proj, fc2)
    }
    return split / t + replicated;
}

long padded_vocab(const catalog::ModelSpec& m, int tp, bool pad) {
    if (!pad) return m.vocab;
    const long multiple = 128L * tp;
    return (m.vocab + multiple - 1) / multiple * multiple;
}

double embedding_params(const catalog::ModelSpec& m, int tp, bool pad_vocab) {
    const double h = static_cast<double>(m.hidden);
    return static_cast<double>(padded_vocab(m, tp, pad_vocab)) * h / tp + static_cast<double>(m.learned_positions) * h;
}

double output_params(const catalog::ModelSpec& m, int tp, int pp, bool pad_vocab) {
    const double h = static_cast<double>(m.hidden);
    double p = h * (m.rms_norm ? 1 : 2);
    if (!m.tied_embeddings || pp > 1) p += static_cast<double>(padded_vocab(m, tp, pad_vocab)) * h / tp;
    return p;
}

double total_params(const catalog::ModelSpec& m) {
    double p = static_cast<double>(m.layers) * layer_params(m, 1) + embedding_params(m, 1, false) +
               output_params(m, 1, 1, false);
    return p;
}

double layer_matmul_flops(const catalog::ModelSpec& m, double tokens) {
    const double h = static_cast<double>(m.hidden), f = static_cast<double>(m.ffn_hidden);
    return 2 * tokens * (h * (q_width(m) + 2 * kv_width(m)) + q_width(m) * h + h * f * (m.gated_mlp ? 3 : 2));
}

double attention_flops(const catalog::ModelSpec& m, double tokens, double seq) {
    return 2 * 2 * tokens * seq * q_width(m);  // QK^T and PV
}

double logits_forward_flops(const catalog::ModelSpec& m, double tokens) {
    return 2 * tokens * static_cast<double>(m.hidden) * static_cast<double>(m.vocab);
}

}  // namespace hetsched::model
