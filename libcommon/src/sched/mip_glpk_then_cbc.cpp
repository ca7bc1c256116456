#include <hetsched/sched/mip.hpp>

namespace hetsched::sched {

MipResult solve_glpk_then_cbc(const Mip& m, double time_limit_s) {
    // GLPK gets a budget of nodes, not of seconds: which solver answers, and so which of several equal
    // optima comes back, must not depend on how loaded the machine is (cron runs on one state file
    // have to agree).
    MipResult r = solve_with_glpk(m, time_limit_s, kGlpkFirstNodes);
    // Stopped by its own clock (which counts whole milliseconds and may stop one early), nothing is
    // left for CBC: no bound known, nor a solution kept.
    if (r.status != MipStatus::time_limit || !r.node_limit || r.seconds >= time_limit_s) return r;
    const double spent = r.seconds;
    r = solve_with_cbc(m, time_limit_s - spent);
    r.seconds += spent;
    return r;
}

}  // namespace hetsched::sched
