#include <catch2/catch.hpp>

#include <hetsched/model/step_time.hpp>
#include <hetsched/model/transformer.hpp>

using namespace hetsched;

namespace {

catalog::GpuType gpu(double tflops, double bw_gb_s) {
    catalog::GpuType g;
    g.name = "test";
    g.tflops = tflops;
    g.mem_bw_gb_s = bw_gb_s;
    return g;
}

}  // namespace

TEST_CASE("the roofline takes the slower of compute and memory traffic", "[model]") {
    // 1e12 FLOPs at 100 TFLOPS x 0.5 = 20 ms; 8e9 bytes at 1000 GB/s x 0.8 = 10 ms.
    CHECK(model::roofline_s(gpu(100, 1000), 100, 1e12, 8e9, 0.5) == Approx(0.02));
    // The same work on a type with a quarter of the bandwidth is bound by memory: 40 ms.
    CHECK(model::roofline_s(gpu(100, 250), 100, 1e12, 8e9, 0.5) == Approx(0.04));
    // Unknown bandwidth: compute alone.
    CHECK(model::roofline_s(gpu(100, 0), 100, 1e12, 8e9, 0.5) == Approx(0.02));
}

TEST_CASE("matrix multiplies run at the tensor peak, fp32 at the FP32 one unless TF32 is allowed", "[model]") {
    catalog::GpuType a100 = gpu(312, 2039);
    a100.fp32_tflops = 19.5;
    a100.compute_capability = 8.0;
    model::Training t;
    t.precision = "bf16";
    CHECK(model::matmul_tflops(a100, t) == 312);
    t.precision = "fp32";
    CHECK(model::matmul_tflops(a100, t) == 19.5);
    t.tf32 = true;
    CHECK(model::matmul_tflops(a100, t) == 156);  // TF32 dense: half of BF16
    catalog::GpuType v100 = gpu(125, 900);  // FP16 tensor cores, no TF32
    v100.fp32_tflops = 15.7;
    v100.compute_capability = 7.0;
    CHECK(model::matmul_tflops(v100, t) == 15.7);
    v100.fp32_tflops = 0;  // unknown: the tensor figure, as before the column
    CHECK(model::matmul_tflops(v100, t) == 125);
    catalog::GpuType p100 = gpu(9.5, 732);  // a catalog with only the FP32 figure
    p100.tflops_from_fp32 = true;
    CHECK(model::matmul_tflops(p100, t) == 9.5);
}

TEST_CASE("a layer's traffic counts its weights and every operator's inputs and outputs", "[model]") {
    catalog::ModelSpec m;
    m.layers = 2, m.hidden = 8, m.heads = 2, m.kv_heads = 2, m.ffn_hidden = 32, m.vocab = 100;
    model::Training t;
    t.seq_len = 4;
    const auto w = model::micro_batch_work(m, t, 1);
    // Per token: QKV 8 + 24, attention 24 + 8, projection 16, FC1 8 + 32, activation 32 + 32,
    // FC2 32 + 8, norms 2 x 16, residual adds 2 x 24 = 304 elements; 4 tokens; 2 bytes each.
    CHECK(w.layer_forward_bytes == Approx(2 * (model::layer_params(m, 1) + 4 * 304.0)));
    CHECK(w.layer_backward_bytes == Approx(2 * w.layer_forward_bytes));
    t.recompute = model::Recompute::full;
    CHECK(model::micro_batch_work(m, t, 1).layer_backward_bytes == Approx(3 * w.layer_forward_bytes));
}

TEST_CASE("the optimizer step moves the states it reads and writes, sharded where they are", "[model]") {
    model::Training t;  // bf16, Adam
    // Norm read 4 + grad 4 + master and moments read and written 2 x 12 + bf16 weights 2.
    CHECK(model::optimizer_step_bytes(t, 4) == Approx(34));
    t.distributed_optimizer = true;
    CHECK(model::optimizer_step_bytes(t, 4) == Approx(34.0 / 4));
    t.distributed_optimizer = false;
    t.optimizer = "sgd";
    CHECK(model::optimizer_step_bytes(t, 1) == Approx(26));
    t.optimizer = "adam";
    t.precision = "fp32";
    CHECK(model::optimizer_step_bytes(t, 1) == Approx(32));
    // 1e9 parameters, 34 bytes each at 2000 GB/s x 0.8.
    t.precision = "bf16";
    CHECK(model::optimizer_step_s(gpu(300, 2000), t, 1, 1e9) == Approx(34e9 / 1.6e12));
    CHECK(model::optimizer_step_s(gpu(300, 0), t, 1, 1e9) == 0);
}

TEST_CASE("a layer's FLOPs: matmuls, the attention its kernel computes, and what recompute replays", "[model]") {
    catalog::ModelSpec m;
    m.layers = 2, m.hidden = 8, m.heads = 2, m.kv_heads = 1, m.ffn_hidden = 32, m.vocab = 100, m.gated_mlp = true;
    model::Training t;  // flash attention
    t.seq_len = 16;
    // Per token: QKV 8 x (8 + 2 x 4), projection 8 x 8, MLP 3 x 8 x 32 = 960 multiply-adds; 16 tokens.
    const double matmul = 2 * 16 * 960.0;
    CHECK(model::layer_matmul_flops(m, 16) == Approx(matmul));
    // QK^T and PV: 16 tokens x 16 keys x 8 wide, twice, two FLOPs each.
    const double scores = 4 * 16 * 16 * 8.0;
    CHECK(model::attention_flops(m, 16, 16) == Approx(scores));
    // Causal and fused: half the score blocks forward; backward recomputes them beside its gradients.
    auto w = model::micro_batch_work(m, t, 1);
    CHECK(w.layer_forward == Approx(matmul + scores / 2));
    CHECK(w.layer_backward == Approx(2 * matmul + 2.5 * scores / 2));
    // An encoder's fused kernel computes every block.
    m.causal = false;
    CHECK(model::micro_batch_work(m, t, 1).layer_forward == Approx(matmul + scores));
    // Unfused attention computes and masks every score, and back-propagates two matmuls a product.
    m.causal = true;
    t.flash_attention = false;
    w = model::micro_batch_work(m, t, 1);
    CHECK(w.layer_forward == Approx(matmul + scores));
    CHECK(w.layer_backward == Approx(2 * (matmul + scores)));
    // Full recompute replays the forward of the checkpointed layers: every second one here.
    t.flash_attention = true;
    t.recompute = model::Recompute::full;
    t.checkpoint_every = 2;
    CHECK(model::micro_batch_work(m, t, 1).layer_backward == Approx(2 * matmul + 1.25 * scores + (matmul + scores / 2) / 2));
    // Selective: Megatron-LM replays the core attention; torchtitan's op-level policy wk, wo and w3
    // (16 tokens x (8 x 4 + 8 x 8 + 8 x 32) multiply-adds).
    t.recompute = model::Recompute::selective;
    t.checkpoint_every = 1;
    CHECK(model::micro_batch_work(m, t, 1).layer_backward == Approx(2 * matmul + 1.25 * scores + scores / 2));
    // Megatron-LM before Megatron-Core (and Megatron-DeepSpeed) skip that checkpoint for flash attention.
    t.framework_version = "2.5";
    CHECK(model::micro_batch_work(m, t, 1).layer_backward == Approx(2 * matmul + 1.25 * scores));
    t.framework = model::Framework::deepspeed;
    t.framework_version = "";
    CHECK(model::micro_batch_work(m, t, 1).layer_backward == Approx(2 * matmul + 1.25 * scores));
    t.flash_attention = false;
    CHECK(model::micro_batch_work(m, t, 1).layer_backward == Approx(2 * (matmul + scores) + scores));
    t.flash_attention = true;
    t.framework = model::Framework::fsdp;
    CHECK(model::micro_batch_work(m, t, 1).layer_backward == Approx(2 * matmul + 1.25 * scores + 2 * 16 * 352.0));
    // ... and the attention too when SDPA runs unfused (its bmm are not on the save list).
    t.flash_attention = false;
    CHECK(model::micro_batch_work(m, t, 1).layer_backward == Approx(2 * (matmul + scores) + 2 * 16 * 352.0 + scores));
    t.flash_attention = true;
    // Transformer Engine runs attention unfused below compute capability 8.0.
    t.framework = model::Framework::megatron;
    t.recompute = model::Recompute::none;
    t.compute_capability = 7.0;
    CHECK(model::micro_batch_work(m, t, 1).layer_forward == Approx(matmul + scores));
}

TEST_CASE("a stage reaches other nodes over its node's network, shared by its GPUs there", "[model]") {
    catalog::GpuType g = gpu(100, 1000);
    g.gpus_per_node = 8;
    g.link_gb_s = 600;
    const model::Network net{25};
    const auto two = model::stage_network(g, net, 2);
    CHECK(two.intra_bytes_s == Approx(300e9));  // one direction of the link
    CHECK(two.nic_bytes_s == Approx(25e9));      // the network's: the type gives no nic_gb_s
    CHECK(two.cross_bytes_s() == Approx(12.5e9));
    CHECK(two.stages_per_node == 4);
    g.nic_gb_s = 50;  // the type's own network
    const auto wide = model::stage_network(g, net, 16);  // a stage spanning two nodes
    CHECK(wide.cross_bytes_s() == Approx(50e9 / 8));
    CHECK(wide.stages_per_node == 1);
}
