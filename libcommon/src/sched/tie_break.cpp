#include <hetsched/sched/tie_break.hpp>

#include <tuple>

namespace hetsched::sched {

bool earlier(const Job& a, const Job& b) { return std::tie(a.submit_time_s, a.id) < std::tie(b.submit_time_s, b.id); }

std::vector<double> tie_key(const Job& j) {
    return {static_cast<double>(j.num_gpus), j.priority_weight, j.pinned && j.placement.running() ? 1.0 : 0.0};
}

}  // namespace hetsched::sched
