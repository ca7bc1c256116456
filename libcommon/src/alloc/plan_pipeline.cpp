#include <hetsched/alloc/plan_pipeline.hpp>

#include <hetsched/cli/error.hpp>
#include <hetsched/place/methods.hpp>

namespace hetsched::alloc {

PlanPipeline::PlanPipeline(std::vector<std::string> names, const SearchOptions& o,
                           std::chrono::steady_clock::time_point started)
    : names_(std::move(names)), placer_(o.placer), placer_limit_(o.placer_limit), memo_(o.memo) {
    if (o.time_limit_s > 0)
        deadline_ = started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                  std::chrono::duration<double>(o.time_limit_s));
    if (o.threads > 1) pool_ = std::make_unique<PlacementPool>(o.threads - 1);
}

PlanPipeline::~PlanPipeline() = default;

void PlanPipeline::submit(Plan plan) {
    const long key = next_key_++;
    if (pool_) {
        SearchLayout* l = plan.layout;
        pool_->offer(key, static_cast<double>(key), [this, l, counts = plan.counts] { return place(*l, counts); });
    }
    pending_.push_back({std::move(plan), key});
}

place::PlaceResult PlanPipeline::take_oldest(Plan& plan) {
    Pending f = std::move(pending_.front());
    pending_.pop_front();
    place::PlaceResult r;
    if (!pool_ || !pool_->take(f.key, r)) r = place(*f.plan.layout, f.plan.counts);
    plan = std::move(f.plan);
    return r;
}

place::PlaceResult PlanPipeline::place(SearchLayout& l, const std::vector<int>& counts) const {
    if (!memo_) return place_fresh(l, counts);
    if (auto known = memo_->find(l.dp, l.pp, counts)) return *known;
    place::PlaceResult r = place_fresh(l, counts);
    // A search the clock stopped may answer otherwise another time; one its node limit stopped will not.
    if (!r.stopped || r.node_limit) memo_->store(l.dp, l.pp, counts, r);
    return r;
}

place::PlaceResult PlanPipeline::place_fresh(SearchLayout& l, const std::vector<int>& counts) const {
    const place::Problem p = l.factory->problem(names_, counts);
    if (placer_ == place::Method::cmr) return place::place_cmr(p, nullptr);
    place::PlaceOptions po;
    po.search_limit = placer_limit_;
    if (deadline_) po.stop = [d = *deadline_] { return std::chrono::steady_clock::now() > d; };
    try {
        return place::place_stages(p, placer_, po);
    } catch (const Infeasible&) {
        return {};
    } catch (const UsageError&) {  // the exact placer's node limit: placestages' advice does not apply here
        throw UsageError("the " + place::method_name(placer_) + " placer passed its limit of " +
                         std::to_string(placer_limit_) + " search nodes placing a plan of " + std::to_string(p.stages()) +
                         " stages; use --placer cmr or hph");
    }
}

}  // namespace hetsched::alloc
