#pragma once
/// The 1F1B pipeline schedule, simulated operation by operation: each stage runs its warm-up forwards,
/// then alternates one forward and one backward, then drains; a forward waits for the previous stage's
/// activation, a backward for the next stage's gradient; each direction of the link between two stages
/// carries one transfer at a time, so a slow link queues micro-batches as a slow stage does.
/// After its last backward a stage all-reduces its gradients with its data-parallel peers while earlier
/// stages are still back-propagating (Espresso Eq. 8-9, without its approximation of when each
/// stage finishes).
#include <string>
#include <vector>

#include <hetsched/model/training.hpp>

namespace hetsched::place {

/// One stage's costs per micro-batch, in seconds.
struct StageCosts {
    double forward = 0;
    double backward = 0;
    double to_next = 0;    ///< activation to the next stage, and its gradient back (0 on the last stage)
    double allreduce = 0;  ///< data-parallel gradient sync after the stage's last backward
    double optimizer = 0;  ///< the optimizer step, after the all-reduce
    /// The tied embedding's gradient all-reduce between the first and the last stage (Megatron-LM and
    /// DeepSpeed tie the output layer to the embedding): set on those two stages, 0 elsewhere. Both
    /// wait for each other, then sync, before their data-parallel all-reduce (DeepSpeed) or after it.
    double tied = 0;
    bool tied_before_allreduce = false;

    /// What the stage runs after its last backward.
    double tail() const { return allreduce + optimizer; }
};

enum class EventKind { forward, backward, send_activation, send_gradient, allreduce, embedding_allreduce, optimizer_step };
const char* event_kind_name(EventKind k);

/// How stages exchange activations and gradients: `overlapped` (Megatron-LM, torchtitan: sends run
/// beside compute, a stage waits only for what it receives) or `blocking` (DeepSpeed's pipeline
/// engine: every send and receive is a rendezvous that holds both stages until the transfer is done).
enum class ScheduleKind { overlapped, blocking };
ScheduleKind parse_schedule_kind(const std::string& s);  ///< UsageError unless overlapped or blocking
/// The schedule a framework runs: blocking for DeepSpeed's pipeline engine, whose sends and receives
/// hold the stage; overlapped for Megatron-LM and torchtitan.
ScheduleKind default_schedule(const model::Training& t);
const char* schedule_kind_name(ScheduleKind k);

/// One interval of the simulated schedule, for plotting.
struct TimelineEvent {
    int stage = 0;
    long micro_batch = 0;  ///< -1 for the all-reduce
    EventKind kind = EventKind::forward;
    double start_s = 0, end_s = 0;
};

struct Schedule {
    double iteration_s = 0;             ///< every stage done, its all-reduce and optimizer step included
    double pipeline_s = 0;              ///< the last backward anywhere
    std::vector<double> backward_end;   ///< per stage: end of its last backward
    std::vector<double> stage_end;      ///< per stage: end of its optimizer step
};

/// Simulates one iteration of `micro_batches` micro-batches through `stages` into `out` (reused by
/// callers in a loop, so that nothing is allocated after the first call); events go to `timeline`
/// when given.
void simulate_1f1b(const std::vector<StageCosts>& stages, long micro_batches, Schedule& out,
                   std::vector<TimelineEvent>* timeline = nullptr);

/// For the simulators, once out.backward_end holds when each stage ends its last backward (or send):
/// each stage then all-reduces and steps its optimizer, the first and the last also syncing the tied
/// embedding together; sets out.stage_end, out.pipeline_s and out.iteration_s, and adds the events to
/// `timeline` when given.
void finish_stages(const std::vector<StageCosts>& stages, Schedule& out, std::vector<TimelineEvent>* timeline);

/// Where a stage's first and last backward fall among its own operations, for lower bounds: it runs
/// `forwards_first` forwards before its first backward (that one's micro-batch included), and
/// `backwards_between` backwards between its last forward and its last backward.
struct StageOrder {
    long forwards_first = 0;
    long backwards_between = 0;
};

/// Stage `stage` of `stages` with `micro_batches` micro-batches: min(k - j, m) and min(k - 1 - j, m - 1),
/// in both schedules (DeepSpeed's TrainSchedule runs 1F1B's operations in 1F1B's order).
StageOrder stage_order(int stage, int stages, long micro_batches);

/// A lower bound on the time from a stage's first forward to its last backward: its 2m operations and
/// two waits. Its first backward waits `chain` after its first forward (the micro-batch's way to the
/// last stage and back), in which it runs o.forwards_first - 1 forwards; its last backward waits as
/// long after its last forward, in which it runs o.backwards_between backwards. The two waits are apart
/// when the first backward comes before the last forward (forwards_first < m), else one span.
double busy_and_waits(double forward, double backward, double chain, long micro_batches, const StageOrder& o);

/// The schedule `kind`: simulate_1f1b, or simulate_blocking (blocking_schedule.hpp).
void simulate(ScheduleKind kind, const std::vector<StageCosts>& stages, long micro_batches, Schedule& out,
              std::vector<TimelineEvent>* timeline = nullptr);

/// A lower bound on simulate_1f1b's iteration time from the costs alone, in O(k), for screening
/// candidates before simulating them. For every stage j: micro-batch 0 reaches it through the stages
/// and links before it; it then runs its 2m operations and waits twice (busy_and_waits: for micro-batch
/// 0's way to the last stage and back before its first backward, and for the last micro-batch's after
/// its last forward, less what 1F1B runs meanwhile); and the last gradient goes back through the
/// stages before it before stage 0 all-reduces (or stage j all-reduces). For every link: it carries
/// the m activations one at a time, and the last one still goes to the last stage and comes back.
/// Exact for equal stages without transfers or all-reduces: (m + k - 1)(f + b). It bounds the blocking
/// schedule too, which runs the same operations in the same order under more constraints; `blocking`
/// adds that each of a stage's transfers holds it, so that its busy time includes the 2m transfers on
/// each of its links.
double schedule_lower_bound(const std::vector<StageCosts>& stages, long micro_batches, ScheduleKind kind);

}  // namespace hetsched::place
