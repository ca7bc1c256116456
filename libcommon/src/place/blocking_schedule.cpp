#include <hetsched/place/blocking_schedule.hpp>

#include <algorithm>
#include <stdexcept>

namespace hetsched::place {
namespace {

enum class Op { forward, backward, send_activation, receive_activation, send_gradient, receive_gradient };

struct Command {
    Op op;
    long micro_batch;
};

/// Stage j's commands in the order DeepSpeed's TrainSchedule issues them: on step s the stage runs a
/// forward when s and j have the same parity, of micro-batch ⌊s/2⌋ − ⌊j/2⌋, else a backward of
/// micro-batch ⌊s/2⌋ − k + 1 + ⌊j/2⌋ (out of range: no compute that step). Before it, a forward step
/// sends back the gradient of the previous step's backward and receives its own input; a backward
/// step receives its output's gradient and sends on the previous step's forward output.
void commands(int j, int k, long m, std::vector<Command>& out) {
    out.clear();
    const auto valid = [m](long mb) { return mb >= 0 && mb < m; };
    const long steps = 2 * (m + k - 1);
    long prev = -1;
    for (long s = 0; s < steps; ++s) {
        const bool forward = s % 2 == j % 2;
        const long mb = forward ? s / 2 - j / 2 : s / 2 - k + 1 + j / 2;
        if (forward && j > 0) {
            if (valid(prev)) out.push_back({Op::send_gradient, prev});
            if (valid(mb)) out.push_back({Op::receive_activation, mb});
        } else if (!forward && j < k - 1) {
            if (valid(mb)) out.push_back({Op::receive_gradient, mb});
            if (valid(prev)) out.push_back({Op::send_activation, prev});
        }
        if (valid(mb)) out.push_back({forward ? Op::forward : Op::backward, mb});
        prev = mb;
    }
}

/// The command a neighbour must be at for `c` to take place, and which neighbour.
Command partner(const Command& c, int j, int& other) {
    switch (c.op) {
    case Op::send_activation: other = j + 1; return {Op::receive_activation, c.micro_batch};
    case Op::receive_activation: other = j - 1; return {Op::send_activation, c.micro_batch};
    case Op::send_gradient: other = j - 1; return {Op::receive_gradient, c.micro_batch};
    case Op::receive_gradient: other = j + 1; return {Op::send_gradient, c.micro_batch};
    default: other = j; return c;
    }
}

}  // namespace

void simulate_blocking(const std::vector<StageCosts>& stages, long m, Schedule& out,
                       std::vector<TimelineEvent>* timeline) {
    const int k = static_cast<int>(stages.size());
    const size_t uk = static_cast<size_t>(k);
    // The commands depend on k and m only: a search simulates many placements of one layout.
    thread_local std::vector<std::vector<Command>> cmds;
    thread_local int cmds_k = -1;
    thread_local long cmds_m = -1;
    thread_local std::vector<size_t> next;
    thread_local std::vector<double> clock;
    if (k != cmds_k || m != cmds_m) {
        cmds_k = -1;  // not valid until rebuilt (a throw part-way leaves it so)
        cmds.resize(uk);
        for (int j = 0; j < k; ++j) commands(j, k, m, cmds[static_cast<size_t>(j)]);
        cmds_k = k;
        cmds_m = m;
    }
    next.assign(uk, 0);
    clock.assign(uk, 0.0);
    out.backward_end.assign(uk, 0.0);

    // Advances stage j as far as it goes alone: compute runs at once; a transfer runs when the
    // neighbour waits at the matching command, from when both are free, holding both to its end.
    auto run_stage = [&](int j) {
        const size_t sj = static_cast<size_t>(j);
        bool progressed = false;
        while (next[sj] < cmds[sj].size()) {
            const Command c = cmds[sj][next[sj]];
            const StageCosts& cost = stages[sj];
            if (c.op == Op::forward || c.op == Op::backward) {
                const bool fwd = c.op == Op::forward;
                const double start = clock[sj];
                clock[sj] += fwd ? cost.forward : cost.backward;
                if (timeline)
                    timeline->push_back({j, c.micro_batch, fwd ? EventKind::forward : EventKind::backward, start,
                                         clock[sj]});
            } else {
                int o = 0;
                const Command want = partner(c, j, o);
                const size_t so = static_cast<size_t>(o);
                if (next[so] >= cmds[so].size()) break;
                const Command& there = cmds[so][next[so]];
                if (there.op != want.op || there.micro_batch != want.micro_batch) break;
                const bool sends = c.op == Op::send_activation || c.op == Op::send_gradient;
                const size_t sender = sends ? sj : so;
                const bool activation = c.op == Op::send_activation || c.op == Op::receive_activation;
                // The link between stages i and i + 1 is priced on stage i.
                const double length = stages[activation ? sender : sender - 1].to_next;
                const double start = std::max(clock[sj], clock[so]);
                clock[sj] = clock[so] = start + length;
                ++next[so];
                if (timeline)
                    timeline->push_back({static_cast<int>(sender), c.micro_batch,
                                         activation ? EventKind::send_activation : EventKind::send_gradient, start,
                                         start + length});
            }
            ++next[sj];
            progressed = true;
        }
        return progressed;
    };

    for (bool down = true;; down = !down) {
        bool progressed = false, done = true;
        for (int i = 0; i < k; ++i) progressed |= run_stage(down ? i : k - 1 - i);
        for (size_t i = 0; i < uk; ++i) done &= next[i] == cmds[i].size();
        if (done) break;
        if (!progressed) throw std::logic_error("blocking pipeline simulation deadlocked");
    }

    // A stage is done with the pipeline after its last backward and the gradient it sends back.
    for (size_t i = 0; i < uk; ++i) out.backward_end[i] = clock[i];
    finish_stages(stages, out, timeline);
}

}  // namespace hetsched::place
