#include <hetsched/sched/mip.hpp>

#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>

#include <coin/Cbc_C_Interface.h>

#include <hetsched/cli/error.hpp>

namespace hetsched::sched {
namespace {

/// Bounds this large are CBC's placeholders for "none": its own infinity is 1e50.
constexpr double kNoBound = 1e30;

}  // namespace

MipResult solve_with_cbc(const Mip& m, double time_limit_s) {
    MipResult out;
    if (m.cost.empty()) {  // nothing to choose: feasible when every row holds at zero
        for (size_t r = 0; r < m.row_lo.size(); ++r)
            if (m.row_lo[r] > 0 || m.row_hi[r] < 0) return out;
        out.status = MipStatus::optimal;
        out.bound = 0;
        return out;
    }
    // CBC keeps state shared between models: two solves at once in replay's policy threads end
    // without an answer. One at a time.
    static std::mutex one_at_a_time;
    const std::lock_guard<std::mutex> hold(one_at_a_time);
    std::unique_ptr<Cbc_Model, void (*)(Cbc_Model*)> model(Cbc_newModel(), Cbc_deleteModel);
    std::vector<CoinBigIndex> start{0};
    std::vector<int> index;
    std::vector<double> value, lo(m.cost.size(), 0), hi(m.cost.size(), 1), row_lo(m.row_lo), row_hi(m.row_hi);
    for (const auto& c : m.col) {
        for (const auto& [r, v] : c) index.push_back(r), value.push_back(v);
        start.push_back(static_cast<CoinBigIndex>(index.size()));
    }
    const double inf = std::numeric_limits<double>::max();
    for (double& v : row_lo) v = std::isinf(v) ? -inf : v;
    for (double& v : row_hi) v = std::isinf(v) ? inf : v;
    Cbc_loadProblem(model.get(), static_cast<int>(m.cost.size()), static_cast<int>(m.row_lo.size()), start.data(),
                    index.data(), value.data(), lo.data(), hi.data(), m.cost.data(), row_lo.data(), row_hi.data());
    Cbc_setObjSense(model.get(), m.maximise ? -1 : 1);
    for (int c = 0; c < static_cast<int>(m.cost.size()); ++c) Cbc_setInteger(model.get(), c);
    Cbc_setLogLevel(model.get(), 0);
    // CBC's preprocessing turns some of a round's rests (all GPUs to fill with 1-8-GPU jobs) from a
    // tenth of a second into minutes; without it the same rest took 0.06 s (measured on dumped rounds).
    Cbc_setParameter(model.get(), "preprocess", "off");
    Cbc_setMaximumSeconds(model.get(), time_limit_s);
    Cbc_setAllowableGap(model.get(), 0);
    Cbc_setAllowableFractionGap(model.get(), 0);
    const auto began = std::chrono::steady_clock::now();
    Cbc_solve(model.get());
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    if (Cbc_isProvenInfeasible(model.get())) return out;
    if (Cbc_isSecondsLimitReached(model.get())) {
        out.status = MipStatus::time_limit;
        if (const double* best = Cbc_bestSolution(model.get())) out.x.assign(best, best + m.cost.size());
        // CBC's best possible objective, in the program's sense; it says "none yet" with a huge value
        // (COIN's infinity, or its 1e50 for no solution), on the wrong side of any real bound.
        const double b = Cbc_getBestPossibleObjValue(model.get());
        const bool known = std::isfinite(b) && std::abs(b) < kNoBound;
        out.bound = known ? b : m.maximise ? HUGE_VAL : -HUGE_VAL;
        return out;
    }
    if (!Cbc_isProvenOptimal(model.get())) throw Error(Exit::internal, "CBC stopped without a proven optimum");
    const double* x = Cbc_getColSolution(model.get());
    out.status = MipStatus::optimal;
    out.x.assign(x, x + m.cost.size());
    out.bound = Cbc_getObjValue(model.get());
    return out;
}

}  // namespace hetsched::sched
