#pragma once
/// The best plans a search has found so far, for its pruning threshold and its answer.
#include <algorithm>
#include <limits>
#include <tuple>
#include <vector>

#include <hetsched/alloc/cost_search.hpp>

namespace hetsched::alloc {

/// The best `top` plans so far: a heap with the worst on top, sorted best first at the end.
class Incumbents {
public:
    Incumbents(size_t top, Objective obj) : top_(top), objective_(obj) {}
    double value(const PlanRecord& r) const { return objective_ == Objective::cost ? r.cost : r.total_s; }
    /// Better first; ties broken by fewer GPUs, smaller dp, then the stage counts, for determinism.
    bool less(const PlanRecord& a, const PlanRecord& b) const {
        return std::make_tuple(value(a), a.gpus(), a.dp, a.stages) < std::make_tuple(value(b), b.gpus(), b.dp, b.stages);
    }
    /// What a plan must beat to enter the list.
    double threshold() const { return heap_.size() < top_ ? std::numeric_limits<double>::infinity() : value(heap_.front()); }
    void offer(PlanRecord r) {
        if (heap_.size() >= top_ && !less(r, heap_.front())) return;
        heap_.push_back(std::move(r));
        std::push_heap(heap_.begin(), heap_.end(), cmp());
        if (heap_.size() > top_) {
            std::pop_heap(heap_.begin(), heap_.end(), cmp());
            heap_.pop_back();
        }
    }
    std::vector<PlanRecord> take() {
        std::sort_heap(heap_.begin(), heap_.end(), cmp());
        return std::move(heap_);
    }

private:
    size_t top_;
    Objective objective_;
    std::vector<PlanRecord> heap_;

    struct Cmp {
        const Incumbents* self;
        bool operator()(const PlanRecord& a, const PlanRecord& b) const { return self->less(a, b); }
    };
    Cmp cmp() const { return Cmp{this}; }
};

}  // namespace hetsched::alloc
