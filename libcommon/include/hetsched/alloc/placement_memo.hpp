#pragma once
/// Placements remembered across searches of one job: the same plan (data-parallel degree, stages and
/// how many of each type) is placed the same way whatever the SLO, so searches for several SLOs, or
/// for the cheapest and then the fastest plan, place each plan once. Results and statistics are those
/// of a search without it. Safe to share between threads.
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/model/job_spec.hpp>
#include <hetsched/place/methods.hpp>
#include <hetsched/place/problem_builder.hpp>

namespace hetsched::alloc {

class PlacementMemo {
public:
    /// The placement of the plan (dp, pp, counts per candidate type), if one was stored.
    std::optional<place::PlaceResult> find(int dp, int pp, const std::vector<int>& counts) const;
    void store(int dp, int pp, const std::vector<int>& counts, const place::PlaceResult& r);

    /// Binds the memo to one search context (the job, catalog, candidate types, model options and
    /// placer, written out by the search); std::logic_error when a later search brings another, since
    /// its placements would differ.
    void bind(const std::string& context);

    size_t size() const;

private:
    using Key = std::tuple<int, int, std::vector<int>>;
    mutable std::mutex mutex_;
    std::map<Key, place::PlaceResult> placed_;
    std::string context_;
};

/// What a plan's placement depends on besides the plan, written out for PlacementMemo::bind: the job,
/// the candidate types (catalog names, in the search's order) as the catalog describes them, the
/// model's options and the placer.
std::string placement_context(const model::JobSpec& job, const catalog::GpuCatalog& catalog,
                              const std::vector<std::string>& types, const place::ProblemOptions& problem,
                              place::Method placer, long placer_limit);

}  // namespace hetsched::alloc
