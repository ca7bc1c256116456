#include <hetsched/model/layer_activations.hpp>

#include <algorithm>

#include <hetsched/model/memory.hpp>
#include <hetsched/model/stage_memory.hpp>
#include <hetsched/model/transformer.hpp>

namespace hetsched::model {

bool eager_ops(const catalog::ModelSpec& m, const Training& t) {
    return t.framework != Framework::megatron && !megatron_deepspeed(m, t) && !t.compiled && m.rms_norm && m.gated_mlp;
}

bool dtensor_tp(const Training& t, const Layout& l) { return t.framework == Framework::fsdp && l.tp > 1; }

bool sequence_parallel(const Training& t, const Layout& l) { return t.seq_parallel || dtensor_tp(t, l); }

LayerActivations layer_activations(const catalog::ModelSpec& m, const Training& t, const Layout& l) {
    const double s = static_cast<double>(t.seq_len) / l.cp, b = static_cast<double>(l.micro_batch);
    const double h = static_cast<double>(m.hidden), f = static_cast<double>(m.ffn_hidden), tp = l.tp;
    // Queries, the attention output and wo's input are heads x head wide (hidden, unless the model
    // gives head_dim); keys and values kv_heads x head.
    const double a = static_cast<double>(m.heads), q = q_width(m), kv = kv_width(m);
    const double e = element_bytes(t);
    const double sbh = s * b * h, sp = sequence_parallel(t, l) ? tp : 1;
    const bool dropout = m.dropout > 0, fused = runs_fused_attention(t);
    const double lse = fused ? 4 * s * b * a : 0;  // flash attention's fp32 log-sum-exp per row

    // torchtitan's tensor parallelism (DTensor) saves the all-gathered, full-sequence input of the
    // column-parallel GEMMs (wq/wk/wv, w1/w3) for their backward; Megatron keeps that input split by
    // sequence parallelism and gathers it again in backward.
    const bool dtensor = dtensor_tp(t, l);
    const double gemm_in = (dtensor ? 1 : 1 / sp) * e * sbh;
    double replicated = 0, split = 0;  // replicated: already divided by sequence parallelism
    if (eager_ops(m, t)) {
        // Each RMSNorm keeps its fp32 input (pow and mul), fp32 1/rms per row and the normalised 16-bit
        // tensor (the weight's mul); torch's fused kernel keeps only its 16-bit input (the residual
        // stream, which nothing else keeps) and 1/rms. Its output is the next GEMMs' input.
        const double norm_element = torchtitan_fused_rms_norm(t) ? e : 4 + e;
        const double norm = norm_element * sbh + 4 * s * b;
        replicated = (2 * norm + (dropout ? 2 * sbh : 0)) / sp + 2 * gemm_in;
        // Attention keeps Q, and K and V repeated to every head (repeat_kv) or at their own heads, and
        // its output, which is copied contiguous for wo unless flash attention laid it out so already;
        // SwiGLU keeps w1's output, its silu, w3's output and the product. Hugging Face's sdpa attention
        // (transformers since early 2025, on torch 2.5 or later, with no mask beyond the causal one) hands
        // K and V to the kernel at their own heads (enable_gqa), as torchtitan does from 0.2.2.
        const bool own_heads =
            torchtitan_gqa_without_repeat(t) || (t.framework == Framework::deepspeed && fused);
        const double qkv = e * s * b * (own_heads ? q + 2 * kv : 3 * q);
        // The query and key norms (qk_norm) keep what a block norm keeps, per head: wq's and wk's
        // outputs, which nothing else keeps (rotary embedding saves only its cos and sin tables).
        const double qk_norm = m.qk_norm ? (norm_element * (q + kv) + 4 * (a + static_cast<double>(m.kv_heads))) * s * b : 0;
        split = qkv + e * s * b * q * (fused ? 1 : 2) + 4 * e * s * b * f + lse + qk_norm;
    } else {
        // Replicated across tensor ranks (split by sequence parallelism): two norm inputs, the inputs of
        // the QKV and FC1 GEMMs, and two 1-byte dropout masks.
        replicated = (2 * e * sbh + (dropout ? 2 * sbh : 0)) / sp + 2 * gemm_in;
        // Split by tp: Q, K, V (GQA shrinks K and V), attention context, FC1 output (x2 when gated), the
        // activation function's output that feeds FC2, and the inputs of the query and key norms
        // (qk_norm; a fused norm keeps its input).
        split = e * s * b * (q + 2 * kv) + e * s * b * q + e * s * b * f * (m.gated_mlp ? 2 : 1) + e * s * b * f + lse +
                (m.qk_norm ? e * s * b * (q + kv) : 0);
    }
    // Unfused attention keeps the softmax, its dropout mask and the dropped-out scores: 5as²b bytes.
    // A softmax taken unfused in fp32 (an eager LLaMA block's, or Megatron's without its fused kernel
    // when told to compute it in fp32) saves its fp32 output for its backward; its 16-bit cast is what
    // the second matmul keeps without dropout, and is dropped once dropout has made its own output.
    const bool fp32_softmax = !fused && (eager_ops(m, t) || t.unfused_fp32_softmax);
    double score_bytes = 0;  // a score's saved bytes
    if (!fused) score_bytes = fp32_softmax ? 4 + e + (dropout ? 1 : 0) : e + (dropout ? 1 + e : 0);
    const double scores = score_bytes * a * s * s * b;

    LayerActivations out{};
    double kept_unread = 0;  // stored, though no backward reads it: no part of `full`
    out.full = replicated + (split + scores) / tp;
    switch (t.recompute) {
    case Recompute::none: out.stored = out.full; break;
    case Recompute::selective:
        if (t.framework == Framework::fsdp) {
            // torchtitan's op-level policy: keep the layer input, the attention output and every other
            // matmul output (wq, wv, w1, w2 of wq wk wv wo w1 w3 w2), and the reduce-scatters' outputs;
            // replay everything else. Eager, torch.utils.checkpoint's caching mode stores every output the
            // policy marks must-save; compiled, AOTAutograd's partitioner saves only what the backward
            // reads, and no backward reads w2's output (the residual add's grad passes through). Under
            // tensor parallelism w2 is row-parallel: its matmul output is the full partial sum that the
            // reduce-scatter (one per block) splits.
            const double w2_out = t.compiled ? 0 : (dtensor ? 1 : 1 / tp) * e * sbh;
            // The attention output is saved only if its kernel is on the policy's list: flash and
            // memory-efficient attention always, cuDNN's from torchtitan 0.2.1 (before, it is replayed).
            const double attention = t.cudnn_attention && !torchtitan_saves_cudnn_attention(t) ? 0 : e * s * b * q + lse;
            out.stored = e * sbh / sp + (attention + e * s * b * (q + kv + f)) / tp + w2_out;
            // The reduce-scatters after wo and w2: compiled, only wo's is read again (it rebuilds the
            // residual that the second norm's backward needs). PyTorch's partitioner drops w2's since
            // spring 2025 (pytorch#149652), which this assumes; before, its side-effecting wait kept it.
            if (dtensor) out.stored += (t.compiled ? 1 : 2) * e * sbh / sp;
            // torchao's dynamic float8 scaling takes max(abs(x)) of each linear's input and, unless FSDP
            // gathers fp8 (the shard is then cast in FSDP's pre-forward hook, outside the checkpointed
            // block), of its gathered weight. Eager, a policy that saves aten.abs keeps every such abs, 16
            // bits and the size of what it scales, to the layer's backward. Without tensor parallelism
            // each linear casts its own input (wq, wk, wv, w1 and w3 the same normalised tensor); float8
            // tensor parallelism casts the attention's and the MLP's inputs once, on their sequence shard,
            // and wo's and w2's on their tp slice. Compiled, the abs is fused into the max, never stored.
            if (t.precision == "fp8" && !t.compiled && torchtitan_sac_saves_abs(t)) {
                const double inputs =
                    dtensor ? s * b * ((2 * h + q + f) / tp) : s * b * ((m.gated_mlp ? 5 : 4) * h + q + f);
                const double weights =
                    t.fp8_all_gather ? 0 : (h * (q + 2 * kv) + q * h + h * f * (m.gated_mlp ? 3 : 2)) / tp;
                kept_unread = e * (inputs + weights);
            }
        } else {
            out.stored = replicated + split / tp;  // Megatron: only core attention is replayed
        }
        break;
    case Recompute::full: out.stored = e * sbh / sp; break;  // only the layer input
    }
    out.replayed = out.full - out.stored;
    out.working = e * s * b * f * (m.gated_mlp ? 2 : 1) / tp + e * sbh;
    if (!fused) {
        // Back-propagating unfused attention holds more a score than it saved. An fp32 softmax holds
        // its saved output, the fp32 gradient the cast's backward made of the probabilities' 16-bit
        // one, the fp32 gradient it writes and, beside that, the product of gradient and output that
        // torch's CUDA softmax backward makes first (`tmp = grad * output`, freed as it returns; seen
        // in the allocation history of an eager Llama block, bench/gpu/deepspeed_memory.py --events):
        // 16 bytes. A 16-bit one: with dropout, the saved
        // softmax, dropout's mask, the probabilities' gradient and the one dropout's backward writes
        // (3e + 1); without, the saved softmax and its gradient, and the gradient torch's softmax
        // backward writes beside them (Megatron's fused kernel writes it in place: 2e). What the
        // second matmul saved is freed by then, as are the MLP's saved tensors; V's gradient and the
        // gradient coming into the layer are live beside them.
        const bool in_place = t.framework == Framework::megatron || megatron_deepspeed(m, t);
        const double peak = fp32_softmax ? 16 : dropout ? 3 * e + 1 : (in_place ? 2 : 3) * e;
        const double ab = a * s * s * b / tp;
        if (fp32_softmax) out.fp32_score_block = 4 * ab;
        out.attention_kept = std::max(0.0, peak - score_bytes) * ab + s * b * e * (q / tp + h / sp);
        // A replayed layer (full recompute) holds at that point what its replay made. Hugging Face's
        // eager block: the first norm's fp32 input, 1/rms and output (the QKV GEMMs' input), Q and the
        // repeated K, the repeated V's gradient, the gradient coming in, the replayed output and the
        // input's gradient. Megatron's: everything the layer saves, less what the kept case frees.
        out.attention_replayed = fp32_softmax && eager_ops(m, t)
            ? 16 * ab + s * b * ((4 * h + 4 + e * h + 3 * e * h) / sp + 3 * e * q / tp)
            : out.replayed + out.attention_kept;
    }
    out.stored += kept_unread;
    return out;
}

}  // namespace hetsched::model
