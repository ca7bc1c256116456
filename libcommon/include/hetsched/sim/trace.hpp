#pragma once
/// Job traces replay reads: our CSV (`job_id,submit_time_s,num_gpus,duration_s[,model][,memory_gib]`; the shared
/// data's samples of real traces also carry gpu_type_hint, user and status, which are not read), Gavel's tab-separated trace (job
/// type, command, working directory, num-steps argument, needs-data-dir, total steps, scale factor,
/// priority weight, SLO, arrival time) and the Sia/Pollux workload CSV (`name,time,application,
/// num_replicas,batch_size`: no duration, a job trains until its application's work is done), told
/// apart by their shape.
#include <string>
#include <vector>

#include <hetsched/io/text_input.hpp>

namespace hetsched::sim {

/// One job of a trace. A job knows its run time on the reference GPU (our CSV) or its total steps
/// (Gavel's trace); a Sia/Pollux job knows neither (both 0) but its global batch.
struct TraceJob {
    std::string id;
    double submit_time_s = 0;
    int num_gpus = 1;
    double duration_s = 0;  ///< run time on the reference GPU type
    double steps = 0;       ///< total work in the throughput table's unit
    std::string model;      ///< empty: assigned by the seeded rule
    double priority_weight = 1;
    double batch_size = 0;  ///< global batch in samples (Sia/Pollux workloads); 0: not given
    double memory_gib = 0;  ///< memory the job needs on each of its GPUs (our CSV); 0: not given
    int line = 0;           ///< where it was read, for later errors: its line, and the columns of
    int id_col = 0;         ///< its id (0: none in the trace, as in Gavel's),
    int submit_col = 0;     ///< its submission time
    int model_col = 0;      ///< and its model or application (0: none given)
};

/// A trace's jobs in submission order. DataError (65) at the offending cell: missing columns, a
/// non-positive duration or GPU count, a memory_gib outside 0.01-100000 (an empty cell: not given),
/// duplicate ids, rows out of submission order. Columns not read that look like a slip of one that is
/// get a warning in `warnings` (file:line:col), when given.
std::vector<TraceJob> read_trace(const io::TextInput& in, std::vector<std::string>* warnings = nullptr);

}  // namespace hetsched::sim
