#include <hetsched/sched/job_model.hpp>

#include <hetsched/model/memory.hpp>
#include <hetsched/model/plans.hpp>
#include <hetsched/model/transformer.hpp>

namespace hetsched::sched {

double model_memory_gib(const model::JobSpec& job, int gpus, double compute_capability) {
    model::Layout l;
    l.dp = gpus;
    l.micro_batch = job.micro_batch > 0 ? job.micro_batch : 1;
    model::Training t = job.training;
    t.compute_capability = compute_capability;
    const model::MemoryEstimate est = model::estimate_memory(job.model, t, l, model::Measure::device);
    return est.peak_bytes() / model::kGiB / model::PlanOptions{}.usable_fraction;
}

double model_checkpoint_gib(const model::JobSpec& job) {
    const model::Training& t = job.training;
    const bool fp32 = t.precision == "fp32";
    const double optimizer = (t.optimizer == "sgd" ? 4.0 : 8.0) + (fp32 ? 0.0 : 4.0);
    return model::total_params(job.model) * (model::element_bytes(t) + optimizer) / model::kGiB;
}

}  // namespace hetsched::sched
