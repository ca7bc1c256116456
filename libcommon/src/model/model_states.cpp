#include <hetsched/model/model_states.hpp>

#include <hetsched/model/memory.hpp>

namespace hetsched::model {
namespace {

/// Elements of the ZeRO-0 engine's all-reduce buckets (MEMORY_OPT_ALLREDUCE_SIZE, not configurable).
constexpr double kDeepSpeedBucket = 5e8;

}  // namespace

StateBytes state_bytes(const Training& t, int shards) {
    const bool fp32 = t.precision == "fp32";
    const double c = element_bytes(t);                    // compute copy of the weights
    const double moments = t.optimizer == "sgd" ? 4 : 8;  // momentum, or Adam's m and v, in fp32
    const double master = fp32 ? 0 : 4;                   // fp32 master weights in mixed precision
    const double d = shards;
    const int z = t.zero_stage;
    const double opt_shards = optimizer_sharded(t) ? d : 1;
    StateBytes b{};
    switch (t.framework) {
    case Framework::megatron:
        // bf16/fp16 params; a main-grad buffer in fp32 (bf16 accumulates in fp32; fp16 keeps its
        // grads in fp16 and the step upcasts them); optimizer sharded by the distributed optimizer
        // (== ZeRO-1). Under fp8 Transformer Engine's fp8 copies of its linears' weights are counted
        // per block (StageMemoryModel): the embedding and output layer are not TE's.
        b.weights = c;
        b.gradients = t.precision == "fp16" ? 2 : 4;  // the whole buffer on every rank (ZeRO-2/3 refused)
        // Before 2.5 the fp32 grads of the master weights stay allocated from one step to the next.
        if (t.precision == "fp16" && megatron_fp16(t) == MegatronFp16::master_grads_kept) b.gradients += 4 / opt_shards;
        b.optimizer = (master + moments) / opt_shards;
        break;
    case Framework::deepspeed:
        if (deepspeed_optimizer(t) == DeepSpeedOptimizer::bf16) {
            // BF16_Optimizer: a flat bf16 copy of the params, the params' own bf16 .grad, a full
            // gradient-accumulation buffer (fp32 up to 0.18.4, bf16 since), and the fp32 master
            // weights and moments partitioned over dp even without ZeRO.
            b.weights = c;
            b.gradients = c + (deepspeed_bf16(t) == DeepSpeedBf16::bf16_buffer ? c : 4);
            b.optimizer = (master + moments) / opt_shards;
        } else if (z == 0) {
            // FP16_Optimizer (fp16, and bf16 from 0.17.6 to 0.18.4), or the client's own: params and
            // grads in the compute type, unpartitioned fp32 master weights and moments.
            b.weights = c;
            b.gradients = c;
            b.optimizer = (master + moments) / opt_shards;
        } else {
            // ZeRO: 16-bit params, and 16-bit grads (their partition from stage 2; stage 3 keeps it in a
            // flat buffer made at start-up); the fp32 optimizer split. The fp32 grad partition exists
            // only inside the step (see step_bytes).
            b.weights = c / (z >= 3 ? d : 1);
            b.gradients = c / (z >= 2 ? d : 1);
            b.optimizer = (master + moments) / opt_shards;
        }
        break;
    case Framework::fsdp:
        // FSDP2 keeps fp32 parameters (the optimizer's own), sharded from ZeRO-2 on; grads fp32. Below
        // ZeRO-3 (ZeRO-2: reshard_after_forward=False) every layer's 16-bit copy stays gathered from its
        // forward to its backward (one fp8 byte when FSDP gathers fp8). In fp32 there is no 16-bit
        // copy: ZeRO-2's gathered parameters are fp32, beside their shards; unsharded (ZeRO-0/1) the
        // parameters are used as they are.
        b.weights = 4 / (z >= 2 ? d : 1) + (z >= 3 ? 0 : !fp32 ? (t.fp8_all_gather ? 1 : c) : z == 2 && d > 1 ? 4 : 0);
        b.gradients = 4 / (z >= 2 ? d : 1);
        b.optimizer = moments / opt_shards;
        break;
    }
    return b;
}

// Context-parallel ranks hold the same weights and reduce their gradients together with the data-
// parallel ones, so every framework shards over both: FSDP2's dp_shard x cp mesh, Megatron-Core's
// distributed optimizer over the data-parallel group with context parallelism, DeepSpeed's ZeRO over
// its sequence-data-parallel group.
int state_shards(const Training&, const Layout& l) { return l.dp * l.cp; }

StepBytes step_bytes(const Training& t, int shards) {
    StepBytes b;
    if (t.framework == Framework::deepspeed) {
        const DeepSpeedOptimizer o = deepspeed_optimizer(t);
        // FP16_Optimizer upcasts every 16-bit grad to fp32 and flattens the copies into one buffer;
        // FP16_UnfusedOptimizer gives each fp32 master weight its own upcast grad.
        if (o == DeepSpeedOptimizer::fp16) b.step = deepspeed_fp16_fused(t) ? 8 : 4;
        // At ZeRO-0 with data parallelism the engine all-reduces the grads a bucket at a time
        // (buffered_allreduce_fallback): it flattens the bucket's grads into a new tensor and, with
        // fp32_allreduce, upcasts that to fp32 too; both live through the all-reduce.
        if ((o == DeepSpeedOptimizer::fp16 || o == DeepSpeedOptimizer::client) && shards > 1) {
            const double c = element_bytes(t);
            b.reduce = c + (t.fp32_allreduce && c < 4 ? 4 : 0);
            b.reduce_cap = b.reduce * kDeepSpeedBucket;
        }
        // ZeRO's step concatenates this rank's 16-bit grad partition (a list of views) into one
        // tensor and upcasts that to the fp32 grad of the master partition, freed after the update:
        // both at once, c + 4 bytes a parameter (stage_1_and_2.py step(); stage3.py
        // _prepare_fp32_grad_for_sub_group); in fp32 the upcast is the concatenation itself. Stage 1
        // first frees the grads of parameters outside its partition. Stage 3 steps one sub-group (the
        // default sub_group_size) at a time.
        if (o == DeepSpeedOptimizer::zero) {
            const double c = element_bytes(t), per = c + (t.precision == "fp32" ? 0 : 4);
            b.step = per / shards;
            if (t.zero_stage == 1) b.grads_freed = c * (1 - 1.0 / shards);
            // The concatenation is let go once upcast, and the partition's own 16-bit grads before the
            // update (stage 1's .grad; stage 2's flat buffer, released at the backward's end, lives on
            // only through them): the update holds the fp32 grad alone beside the moments it makes in
            // a first step.
            if (t.zero_stage <= 2) {
                b.update = (t.precision == "fp32" ? c : 4) / shards;
                b.update_grads_freed = c / (t.zero_stage == 2 ? shards : 1);
            }
            if (t.zero_stage >= 3) b.step_cap = per * deepspeed_sub_group_size(t);
        }
        if (o != DeepSpeedOptimizer::bf16) return b;
        if (deepspeed_bf16(t) == DeepSpeedBf16::bf16_buffer)
            b.step = 4.0 / shards;  // BF16_Optimizer casts each rank's bf16 gradient partition to fp32
        else
            // With an fp32 buffer, ReduceGrads hands the group's whole flat buffer (one parameter
            // group: one tensor, flattened without a copy) to the all-reduce, which casts it to bf16,
            // unless it communicates in fp32.
            b.reduce = t.fp32_allreduce ? 0 : 2;
        return b;
    }
    // Megatron under fp16: the step copies each fp16 main grad into a new fp32 grad of the fp32 master
    // parameter it updates. Before 2.6 the local DDP first flattens every fp16 grad into one tensor to
    // all-reduce; before 2.5 the fp32 grads already exist (the copy replaces them), and in 2.5 they are
    // made anew beside the live fp16 grads.
    if (t.framework == Framework::megatron && t.precision == "fp16") {
        switch (megatron_fp16(t)) {
        case MegatronFp16::master_grads_kept: b.reduce = 2; break;
        case MegatronFp16::grads_flattened: b.reduce = 2, b.step = 4; break;
        case MegatronFp16::contiguous_buffer: b.step = 4.0 / (optimizer_sharded(t) ? shards : 1); break;
        }
        return b;
    }
    // FSDP's foreach AdamW allocates sqrt(v) for the shard it updates; torch's fused AdamW, torchtitan's
    // from 0.1.0, updates in place (measured: the first step's peak is its new states, to the MiB).
    if (t.framework == Framework::fsdp && t.optimizer != "sgd" && !torchtitan_fused_adamw(t)) b.step = 4.0 / shards;
    return b;
}

LazyBytes lazy_bytes(const Training& t, int shards) {
    LazyBytes b;
    // DeepSpeed's FP16 wrappers (and, before 0.13.2, ZeRO and the BF16 optimizer) take one step on zero
    // gradients at start-up to allocate the state.
    if (t.framework == Framework::deepspeed && deepspeed_state_at_start(t)) return b;
    // torch's, apex's and Transformer Engine's Adam (and SGD's momentum) make their state in their
    // first step; so do DeepSpeed's wrappers that wait for it. Megatron before 2.5 keeps fp32 master
    // grads from the first step's copy on.
    const double opt_shards = optimizer_sharded(t) ? shards : 1;
    b.optimizer = (t.optimizer == "sgd" ? 4 : 8) / opt_shards;
    if (t.framework == Framework::megatron && t.precision == "fp16" && megatron_fp16(t) == MegatronFp16::master_grads_kept)
        b.gradients = 4 / opt_shards;
    return b;
}

}  // namespace hetsched::model
