#include <hetsched/model/comm_buffers.hpp>

#include <algorithm>

#include <hetsched/model/memory.hpp>

namespace hetsched::model {

double fp8_cast_bytes(const Training& t) { return t.precision == "fp8" && !t.fp8_all_gather ? 1 : 0; }

double gathered_weight_bytes(const Training& t) { return t.fp8_all_gather ? 1 : element_bytes(t) + fp8_cast_bytes(t); }

CommBytes comm_bytes(const Training& t, const Layout& l, double layer, double stage_params, double ends,
                     long micro_batches, double zero3_module, const DeepSpeedBuckets& when) {
    if (t.framework == Framework::deepspeed && t.zero_stage >= 1) {
        const double elements = deepspeed_reduce_bucket(t), c = element_bytes(t);
        const bool fp32_comm = t.fp32_allreduce && t.precision != "fp32";
        // A bucket is allocated whole; reducing it in fp32 (communication_data_type) converts what it
        // holds, at most the stage's grads.
        const double filled = std::min(elements, stage_params);
        // ZeRO-3 keeps its bucket (see DeepSpeedBuckets for when and in which type) beside the gathered
        // parameters: the module at work, the prefetched ones, and those whose next use (the backward,
        // for the last layers' forward) comes within stage3_max_reuse_distance (1e9 elements), all
        // capped by stage3_max_live_parameters, though a module larger than the cap is still gathered
        // whole. Its first passes only record the order the modules run in: until that record is
        // complete it neither prefetches nor keeps a parameter for its next use, and releases each
        // module's parameters once the module is done, so only the module at work is gathered. A first
        // iteration with no more micro-batches than those passes never has more.
        if (t.zero_stage >= 3) {
            const bool untraced = t.first_iteration && micro_batches <= deepspeed_zero3_untraced_passes(t);
            const double live = c * (untraced ? std::min(stage_params, zero3_module)
                                              : std::min(stage_params, std::max(deepspeed_max_live(t), zero3_module)));
            if (!when.zero3_at_start) return {live, live + 2 * c * elements + (fp32_comm ? 4 * filled : 0)};
            if (!when.zero3_in_comm_type) return {live + c * elements, live + c * elements + (fp32_comm ? 4 * filled : 0)};
            const double bucket = (fp32_comm ? 4 : c) * elements;
            return {live + bucket, live + bucket + (fp32_comm ? c * filled : 0)};
        }
        // ZeRO-1/2 allocate the bucket (contiguous_gradients, the default from 0.4.3), in the weights'
        // type, as the backward starts (backward(), or from 0.16.5 the first gradient hook), and free
        // it once the grads are reduced (independent_gradient_partition_epilogue): for ZeRO-2 after
        // each micro-batch, for ZeRO-1 at the last. overlap_comm doubles it. See StageMemoryModel::stage
        // for when it stands in forward.
        return {0, c * elements * (t.overlap_comm ? 2 : 1) + (fp32_comm ? 4 * filled : 0)};
    }
    if (t.framework == Framework::fsdp && t.zero_stage >= 2 && l.dp * l.cp > 1) {
        const double g = element_bytes(t), cast = fp8_cast_bytes(t), w = gathered_weight_bytes(t);
        // ZeRO-2 keeps every block gathered (the weights count them); only the fp8 cast of the block
        // at work is here.
        const double gathered = t.zero_stage >= 3 ? w : 0, at_work = t.zero_stage >= 3 ? 0 : cast;
        // With pipelining every block of the stage stays gathered (no reshard after forward) and its
        // gradients accumulate unsharded in fp32 until the virtual stage's last backward, which
        // reduce-scatters and frees them. Interleaved over one round (micro-batches <= pp), a rank runs
        // all the backwards of one virtual stage before the next one's: one chunk's grads at a time.
        // Gathered weights stay 16-bit, or fp8 when FSDP gathers fp8, but for the embedding and output
        // layer (no float8 linears); a weight's fp8 cast lives only while its block works.
        if (l.pp > 1) {
            const double chunks = l.vpp > 1 && micro_batches <= l.pp ? 1.0 / l.vpp : 1.0;
            const double kept = t.zero_stage >= 3 ? (t.fp8_all_gather ? 1 : g) * (stage_params - ends) + g * ends : 0;
            const double held = kept + 4 * stage_params * chunks + cast * layer;
            return {held, held};
        }
        // Under ZeRO-3 this block and the one prefetched are gathered; backward adds this block's 16-bit
        // grads and the fp32 reduce-scatter input they are cast into.
        return {(2 * gathered + at_work) * layer, (2 * gathered + at_work + g + 4) * layer};
    }
    return {};
}

double zero_bucket_lifetime(const Training& t, const Layout& l, long micro_batches, bool last,
                            const DeepSpeedBuckets& when, CommBytes& c) {
    const double one = element_bytes(t) * deepspeed_reduce_bucket(t), kept = one * (t.overlap_comm ? 2 : 1);
    if (l.pp == 1) {
        // ZeRO-1 frees it only at the accumulation boundary: the later micro-batches' forwards keep it.
        if (t.zero_stage == 1 && micro_batches > 1) c.forward = kept;
        return kept;
    }
    // Under the pipeline engine (ZeRO-1) a stage that makes it in a backward keeps it through its later
    // forwards until the reduction: from 0.16.5 every stage (gradient hooks), before only the last (the
    // engine runs ZeRO's backward() there alone). Reducing adds one more (from 0.17.2) or replaces them.
    const bool made = when.from_hooks || last;
    c = made ? CommBytes{kept, c.backward} : CommBytes{};
    return made && when.pipeline_reduce_adds ? kept + one : one;
}

}  // namespace hetsched::model
