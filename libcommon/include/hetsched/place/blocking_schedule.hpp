#pragma once
/// DeepSpeed's pipeline engine, simulated command by command. Its 1F1B training schedule runs
/// 2 (m + k − 1) steps on every stage; in each a stage exchanges tensors with a neighbour, then runs a
/// forward or a backward. Even stages run forwards on even steps and odd stages on odd steps, so that
/// every send meets the matching receive of the neighbour. Each send and receive blocks both stages
/// until the transfer is done (a rendezvous), where the overlapped schedule lets compute go on beside it.
#include <vector>

#include <hetsched/place/pipeline_schedule.hpp>

namespace hetsched::place {

/// One iteration of `micro_batches` through `stages`, as simulate_1f1b, under blocking transfers.
/// Each stage ends with its data-parallel all-reduce and optimizer step.
void simulate_blocking(const std::vector<StageCosts>& stages, long micro_batches, Schedule& out,
                       std::vector<TimelineEvent>* timeline = nullptr);

}  // namespace hetsched::place
