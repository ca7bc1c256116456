#include <hetsched/place/pipeline_schedule.hpp>

#include <algorithm>
#include <stdexcept>

namespace hetsched::place {

const char* event_kind_name(EventKind k) {
    switch (k) {
    case EventKind::forward: return "forward";
    case EventKind::backward: return "backward";
    case EventKind::send_activation: return "send_activation";
    case EventKind::send_gradient: return "send_gradient";
    case EventKind::allreduce: return "allreduce";
    }
    return "?";
}

namespace {

/// The q-th operation of a stage with `warm` warm-up forwards: forward (true) or backward, and which
/// micro-batch.
inline bool op_at(long q, long warm, long m, long& mb) {
    if (q < warm) return mb = q, true;
    const long r = q - warm, steady = 2 * (m - warm);
    if (r < steady) return mb = (r % 2 == 0 ? warm + r / 2 : r / 2), r % 2 == 0;
    mb = m - warm + (r - steady);
    return false;
}

}  // namespace

void simulate_1f1b(const std::vector<StageCosts>& stages, long m, Schedule& out, std::vector<TimelineEvent>* timeline) {
    const int k = static_cast<int>(stages.size());
    thread_local std::vector<double> fwd_end, bwd_end, free_at;
    thread_local std::vector<long> next;
    const size_t cells = static_cast<size_t>(k) * static_cast<size_t>(m);
    fwd_end.assign(cells, -1.0);
    bwd_end.assign(cells, -1.0);
    free_at.assign(static_cast<size_t>(k), 0.0);
    next.assign(static_cast<size_t>(k), 0);
    out.backward_end.assign(static_cast<size_t>(k), 0.0);

    auto run_stage = [&](int i) {
        const StageCosts& c = stages[static_cast<size_t>(i)];
        const long warm = std::min<long>(k - 1 - i, m);
        const size_t row = static_cast<size_t>(i) * static_cast<size_t>(m);
        bool progressed = false;
        while (next[static_cast<size_t>(i)] < 2 * m) {
            long mb = 0;
            const bool forward = op_at(next[static_cast<size_t>(i)], warm, m, mb);
            double ready;
            if (forward) {
                if (i == 0) ready = 0;
                else {
                    const double prev = fwd_end[row - static_cast<size_t>(m) + static_cast<size_t>(mb)];
                    if (prev < 0) break;
                    ready = prev + stages[static_cast<size_t>(i - 1)].to_next;
                }
            } else if (i == k - 1) {
                ready = fwd_end[row + static_cast<size_t>(mb)];
            } else {
                const double after = bwd_end[row + static_cast<size_t>(m) + static_cast<size_t>(mb)];
                if (after < 0) break;
                ready = after + c.to_next;
            }
            const double start = std::max(ready, free_at[static_cast<size_t>(i)]);
            const double end = start + (forward ? c.forward : c.backward);
            (forward ? fwd_end : bwd_end)[row + static_cast<size_t>(mb)] = end;
            free_at[static_cast<size_t>(i)] = end;
            ++next[static_cast<size_t>(i)];
            progressed = true;
            if (timeline) {
                timeline->push_back({i, mb, forward ? EventKind::forward : EventKind::backward, start, end});
                if (forward && i < k - 1) timeline->push_back({i, mb, EventKind::send_activation, end, end + c.to_next});
                if (!forward && i > 0)
                    timeline->push_back(
                        {i, mb, EventKind::send_gradient, end, end + stages[static_cast<size_t>(i - 1)].to_next});
            }
        }
        return progressed;
    };

    long done = 0;
    const long total = 2 * m * k;
    for (bool down = true; done < total; down = !down) {
        bool progressed = false;
        for (int j = 0; j < k; ++j) progressed |= run_stage(down ? j : k - 1 - j);
        done = 0;
        for (long n : next) done += n;
        if (!progressed && done < total) throw std::logic_error("1F1B simulation made no progress");
    }

    out.pipeline_s = 0;
    out.iteration_s = 0;
    for (int i = 0; i < k; ++i) {
        const double end = free_at[static_cast<size_t>(i)];
        const double ar = stages[static_cast<size_t>(i)].allreduce;
        out.backward_end[static_cast<size_t>(i)] = end;
        out.pipeline_s = std::max(out.pipeline_s, end);
        out.iteration_s = std::max(out.iteration_s, end + ar);
        if (timeline && ar > 0) timeline->push_back({i, -1, EventKind::allreduce, end, end + ar});
    }
}

}  // namespace hetsched::place
