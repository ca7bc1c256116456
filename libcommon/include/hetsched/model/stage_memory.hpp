#pragma once
/// The memory of one pipeline stage as a function of how many layers it holds, for placers that
/// split layers unevenly across stages on different GPU types. estimate_memory() is this model
/// applied to the split the layout gives, else the framework's own (pipeline_split.hpp).
#include <hetsched/catalog/model_preset.hpp>
#include <hetsched/model/memory.hpp>
#include <hetsched/model/training.hpp>

#include <vector>

namespace hetsched::model {

/// Whether a DeepSpeed job runs Megatron-DeepSpeed's model (training.deepspeed_model; by default any
/// but a LLaMA block): its fused layers, its loss, its pipeline buffers' fp32 logits and its partition
/// by transformer layers.
bool megatron_deepspeed(const catalog::ModelSpec& m, const Training& t);

/// Whether the vocabulary is padded to a multiple of 128 x tp: Megatron-LM's models, and
/// Megatron-DeepSpeed's, which keep its _vocab_size_with_padding.
bool pads_vocab(const catalog::ModelSpec& m, const Training& t);

/// A pipeline stage's own buffers, in bytes: per in-flight micro-batch, allocated once (receive), held
/// while a micro-batch back-propagates, and the logits the last stage keeps, of which `own_logits` are
/// the micro-batch's at work (which a loss that holds its logits counts already).
struct PipeBuffers {
    double per_micro_batch = 0, receive = 0, backward = 0, kept_logits = 0, own_logits = 0;
    double output_logits = 0;  ///< the last stage's own output, held through its loss and backward
    double step_logits = 0;    ///< logits still held through the optimizer step
    double merged_logits = 0;  ///< a copy made once the schedule ends, beside step_logits, before the step
};

class StageMemoryModel {
public:
    /// The per-layout terms are worked out once here; `l.pp` is the number of stages. Validates its
    /// inputs (DataError). Only the framework method has per-stage layer counts.
    StageMemoryModel(const catalog::ModelSpec& m, const Training& t, const Layout& l, Measure measure);

    /// Stage `stage` (0-based of l.pp) holding `count` layers from `first_layer` on.
    StageMemory stage(int stage, long first_layer, long count) const;

    /// The most layers (at most `limit`) stage `stage` holds within `capacity_bytes`; 0 when not even
    /// one fits. Memory grows with the layer count, so this is a bisection.
    long max_layers(int stage, double capacity_bytes, long limit) const;

private:
    catalog::ModelSpec model_;
    Training training_;
    Layout layout_;
    Measure measure_;
    long micro_batches_ = 0;
    double workspaces_ = 0;                                ///< torch's cuBLAS and Transformer Engine's workspaces
    std::vector<PipeBuffers> pipe_;                        ///< per stage, worked out once
    double weights_ = 0, gradients_ = 0, optimizer_ = 0;  ///< bytes per parameter after sharding
    double fp8_copy_ = 0;  ///< bytes per block parameter of Transformer Engine's fp8 weight copies
    double stored_ = 0;                                    ///< activation bytes one layer keeps per micro-batch
    double full_ = 0;                                      ///< what a layer keeps when it is not checkpointed
    double step_per_param_ = 0;                            ///< the optimizer step's temporaries per parameter
    double step_cap_ = 0;                                  ///< the most those temporaries take (ZeRO-3 sub-groups)
    double step_grads_freed_ = 0;                          ///< grads per parameter freed before the step's temporaries
    double update_per_param_ = 0;                          ///< what lives through the update when the step's
                                                           ///< temporaries go before it (ZeRO-1/2), else 0
    double update_grads_freed_ = 0;                        ///< grads per parameter freed by that update
    double loss_grads_absent_ = 0;                         ///< grads per parameter not yet made at the loss's backward
    double forward_grads_absent_ = 0;                      ///< grads per parameter not yet made in a forward
    bool partition_at_first_bucket_ = false;  ///< ZeRO-2, one micro-batch: the 16-bit partition made at the
                                              ///< first bucket reduced (.cpp)
    double reduce_bucket_elements_ = 0;       ///< DeepSpeed ZeRO's reduce_bucket_size, elements
    double reduce_per_param_ = 0;                          ///< the gradient reduction's, before the step
    double reduce_cap_ = 0;                                ///< the most those take (one DeepSpeed bucket)
    double zero3_module_ = 0;                              ///< DeepSpeed ZeRO-3: the largest module gathered whole
    bool zero_bucket_ = false;                             ///< DeepSpeed ZeRO-1/2: a reduce bucket with a lifetime
    DeepSpeedBuckets ds_buckets_{};                        ///< when DeepSpeed allocates its buckets, by release
    double lazy_gradients_ = 0, lazy_optimizer_ = 0;       ///< first iteration: made by the first step
    bool flat_state_segments_ = false;  ///< reserved: the first step's state (lazy_optimizer_) takes new segments (.cpp)
    double fp32_score_block_ = 0;       ///< one unfused fp32 softmax's score tensor (LayerActivations)
    int state_tensors_ = 2;             ///< tensors the optimizer's state is made of (Adam's two moments; SGD's momentum)
    double layer_ = 0, embedding_ = 0, output_ = 0;        ///< parameters per tensor-parallel rank
    double working_ = 0;                                   ///< one layer's gradient temporaries, beside the stash
    double replay_ = 0;                                    ///< what recomputation replays of a checkpointed layer
    double attention_replayed_ = 0, attention_kept_ = 0;   ///< eager attention's softmax backward (see .cpp)
    /// Back-propagating one layer beyond the stash: what recomputation replays of it (when it is
    /// checkpointed) and the larger of its gradient temporaries and its eager attention's softmax
    /// backward (all of the latter beyond its input when the whole layer is replayed).
    double layer_backward(bool checkpointed) const;
    /// Bytes the allocator keeps cached for FSDP2's all-gather stream over `blocks` blocks and a root
    /// unit of `root` parameters gathered (0: none passes the stream).
    double gathered_pool(double root, long blocks) const;
    double logits_ = 0, loss_ = 0;                          ///< logits per micro-batch; the loss's bytes
    double loss_forward_ = 0;                              ///< the loss's forward as it ends, logits counted
    bool loss_holds_logits_ = false;                        ///< the loss's bytes count the 16-bit logits
    double freed_logits_ = 0;                               ///< 16-bit logits freed before the loss's backward (.cpp)
    Phase loss_phase_ = Phase::backward;                    ///< when the loss peaks
    double sbh_ = 0, element_ = 0;
    double head_inputs_ = 0;                                ///< last stage: final norm and output-layer inputs
    bool lp_grads_cleared_ = false;                         ///< DeepSpeed up to 0.16.4 frees 16-bit grads per backward
    double global_buffer_ = 0, global_buffer_last_ = 0;  ///< Megatron's persistent "mpu" buffer (see .cpp)
    double wgrad_transient_ = 0;  ///< a weight's new gradient before it is added into the accumulated one
    double stale_grads_ = 0;  ///< bytes per parameter of last iteration's grads still held in backward (see .cpp)
    bool grads_made_in_backward_ = false;  ///< FSDP2, one micro-batch: each unit's grads appear at its backward
    double stream_pools_ = 0;  ///< bytes the allocator keeps cached for FSDP2's all-gather stream
    bool grads_on_reduce_stream_ = false;  ///< FSDP2, sharded: grads made on (and cached for) the reduce-scatter stream
    bool fsdp_units_ = false;  ///< FSDP ZeRO-3, sharded, no pipeline: blocks gathered one at a time
    bool fsdp_pipeline_pools_ = false;  ///< FSDP ZeRO-3, sharded, pipelined: stream pools by stage
    bool own_unit_ = false;    ///< torchtitan 0.2, untied: the embedding, and the norm with the output, own units
    double last_block_gathered_ = 0;  ///< before torchtitan 0.2: the last block, gathered at the loss
    double first_block_prefetch_ = 0;  ///< torchtitan 0.2: the embedding prefetched in the first block's backward, less a block
    double upcast_layer_ = 0, upcast_vocab_ = 0;            ///< largest parameters DeepSpeed upcasts one at a time
    double embedding_grad_extra_ = 0;  ///< DTensor tp: the embedding's gradient beyond its rows, in elements (see .cpp)
    double whole_embedding_grad_ = 0;  ///< the same, kept in .grad when no FSDP shards the model
    bool embedding_grad_made_last_ = false;  ///< that gradient made as the backward ends: at the step only
    double embedding_grad_new_ = 0;    ///< FSDP2 pipelined: the embedding's 16-bit gradient as its backward ends
    int shards_ = 1;                                       ///< ranks the model states are split over
};

}  // namespace hetsched::model
