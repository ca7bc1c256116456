#pragma once
/// The communication buffers a stage holds beside its states and activations: DeepSpeed's reduce
/// buckets and ZeRO-3's gathered parameters, FSDP2's gathered layers, their fp8 casts and gradients.
#include <hetsched/model/training.hpp>

namespace hetsched::model {

/// Bytes of the fp8 copy a gathered 16-bit weight is cast into under fp8 (none when FSDP gathers fp8).
double fp8_cast_bytes(const Training& t);
/// Bytes of a weight FSDP gathers: 16 bits, plus its fp8 cast under fp8; one fp8 byte when FSDP
/// gathers fp8.
double gathered_weight_bytes(const Training& t);

/// Communication buffers while a layer runs forward and while one runs backward.
struct CommBytes {
    double forward = 0, backward = 0;
};

/// Communication buffers: DeepSpeed's reduce bucket, FSDP's gathered 16-bit layers and their grads.
/// `ends`: the stage's embedding and output-layer parameters, of its `stage_params`.
/// `zero3_module`: the largest module ZeRO-3 gathers whole, whatever its live-parameter cap; `when`:
/// deepspeed_buckets(t), worked out once.
CommBytes comm_bytes(const Training& t, const Layout& l, double layer, double stage_params, double ends,
                     long micro_batches, double zero3_module, const DeepSpeedBuckets& when);

/// ZeRO-1/2's reduce bucket beyond the backward that makes it (comm_bytes): where it outlives a
/// micro-batch it stands in forward too, and it stands while the grads are reduced. Adjusts `c` to
/// this stage; returns the bucket bytes at the reduction.
double zero_bucket_lifetime(const Training& t, const Layout& l, long micro_batches, bool last,
                            const DeepSpeedBuckets& when, CommBytes& c);

}  // namespace hetsched::model
