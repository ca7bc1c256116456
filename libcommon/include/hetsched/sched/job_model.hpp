#pragma once
/// What a job's `model:` and `training:` sections tell the scheduler without a measurement: the memory
/// one GPU needs (memest's model, so that FFT §4.4.1 can exclude smaller types) and the size of the
/// checkpoint a migration moves.
#include <hetsched/model/job_spec.hpp>

namespace hetsched::sched {

/// Per-GPU memory, GiB, of the job trained data-parallel on `gpus` GPUs (tp = pp = 1, the spec's
/// micro-batch or 1): memest's device-level peak over the share of a card a job may fill (0.98, as
/// memest's plans), on a GPU of `compute_capability` (0: unknown; what runs there can differ, e.g.
/// Transformer Engine's attention below 8.0). DataError when the layout does not divide the batch.
double model_memory_gib(const model::JobSpec& job, int gpus, double compute_capability = 0);

/// Checkpoint size, GiB: the weights in the training precision plus the optimizer's state (Adam: two
/// fp32 moments; SGD: one momentum; plus fp32 master weights unless training in fp32).
double model_checkpoint_gib(const model::JobSpec& job);

}  // namespace hetsched::sched
