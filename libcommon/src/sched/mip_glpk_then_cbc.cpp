#include <hetsched/sched/mip.hpp>

#include <cmath>

namespace hetsched::sched {

MipResult solve_glpk_then_cbc(const Mip& m, double time_limit_s) {
    // GLPK gets a budget of nodes, not of seconds: which solver answers, and so which of several equal
    // optima comes back, must not depend on how loaded the machine is (cron runs on one state file
    // have to agree).
    MipResult r = solve_with_glpk(m, time_limit_s, kGlpkFirstNodes);
    if (r.status != MipStatus::time_limit) return r;
    const double spent = r.seconds;
    if (spent >= time_limit_s) {  // GLPK's own clock stopped it: no bound known, nor a solution kept
        r.bound = m.maximise ? HUGE_VAL : -HUGE_VAL;
        return r;
    }
    r = solve_with_cbc(m, time_limit_s - spent);
    r.seconds += spent;
    return r;
}

}  // namespace hetsched::sched
