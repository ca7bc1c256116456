#include <hetsched/sched/type_fill.hpp>

#include <algorithm>
#include <numeric>
#include <tuple>

namespace hetsched::sched {

TypeFill::TypeFill(const ClusterState& s) : s_(s), free_(s.capacity()), type_(s.jobs.size(), -1) {}

bool TypeFill::fits(size_t k, int t) const {
    const Job& j = s_.jobs[k];
    return type_[k] < 0 && j.remaining() > 0 && s_.can_run(j, t) && free_[static_cast<size_t>(t)] >= j.num_gpus;
}

void TypeFill::take(size_t k, int t) {
    type_[k] = t;
    free_[static_cast<size_t>(t)] -= s_.jobs[k].num_gpus;
}

bool TypeFill::take_first(size_t k, const std::vector<int>& order) {
    for (int t : order)
        if (fits(k, t)) {
            take(k, t);
            return true;
        }
    return false;
}

TypeDecision TypeFill::decision(const std::string& method) const {
    TypeDecision d;
    d.type = type_;
    d.stats.method = method;
    for (size_t k = 0; k < type_.size(); ++k)
        if (type_[k] >= 0) d.min_busy += s_.jobs[k].num_gpus;
    return d;
}

std::vector<size_t> arrival_order(const ClusterState& s) {
    std::vector<size_t> order;
    for (size_t k = 0; k < s.jobs.size(); ++k)
        if (s.jobs[k].remaining() > 0) order.push_back(k);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return std::tie(s.jobs[a].submit_time_s, s.jobs[a].id) < std::tie(s.jobs[b].submit_time_s, s.jobs[b].id);
    });
    return order;
}

std::vector<int> fastest_types(const ClusterState& s, const Job& j) {
    std::vector<int> out;
    for (int t = 0; t < static_cast<int>(s.types.size()); ++t)
        if (s.can_run(j, t)) out.push_back(t);
    std::stable_sort(out.begin(), out.end(), [&](int a, int b) {
        return j.throughput[static_cast<size_t>(a)] > j.throughput[static_cast<size_t>(b)];
    });
    return out;
}

double best_throughput(const ClusterState& s, const Job& j, const std::vector<int>& up) {
    double best = 0;  // no list to build: FFT asks this of every job, twice a round
    for (size_t t = 0; t < s.types.size(); ++t)
        if (up[t] >= j.num_gpus && s.can_run(j, static_cast<int>(t))) best = std::max(best, j.throughput[t]);
    return best;
}

}  // namespace hetsched::sched
