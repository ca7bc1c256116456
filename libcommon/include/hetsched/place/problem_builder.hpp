#pragma once
/// Builds a placement Problem from a job, an allocation and a catalog: the memory model says how many
/// layers each type holds at each stage position, the compute model (or a measured profile) what a
/// micro-batch costs, and the network what transfers and gradient syncs take.
#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/model/job_spec.hpp>
#include <hetsched/model/layer_profile.hpp>
#include <hetsched/model/memory.hpp>
#include <hetsched/model/step_time.hpp>
#include <hetsched/place/allocation.hpp>
#include <hetsched/place/problem.hpp>

namespace hetsched::place {

struct ProblemOptions {
    model::Measure measure = model::Measure::device;
    double usable_fraction = 0.98;                   ///< share of each GPU's memory a stage may fill
    double efficiency = model::kDefaultEfficiency;   ///< achieved share of peak TFLOPS
    model::Network network;
    const model::LayerProfile* profile = nullptr;    ///< measured layer times instead of the compute model
};

/// The problem; DataError at the allocation when it does not suit the job (more stages than layers,
/// a batch dp does not divide, ...).
Problem make_problem(const model::JobSpec& job, const Allocation& a, const catalog::GpuCatalog& c,
                     const ProblemOptions& o);

/// Micro-batch size the job runs with (its own, or 1).
long micro_batch_of(const model::JobSpec& job);

}  // namespace hetsched::place
