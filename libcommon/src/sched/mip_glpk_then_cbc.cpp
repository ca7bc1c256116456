#include <hetsched/sched/mip.hpp>

namespace hetsched::sched {

MipResult solve_glpk_then_cbc(const Mip& m, double time_limit_s) {
    // GLPK gets budgets of nodes, not of seconds: which solver answers, and so which of several equal
    // optima comes back, must not depend on how loaded the machine is (cron runs on one state file
    // have to agree). A program that branching alone does not settle quickly is mostly a knapsack (the
    // GPUs each job asks for against a type's capacity), whose relaxation the cuts tighten. Rounding cuts
    // alone settled most of the programs of a lightly contended cluster and few of a heavily contended
    // one, Gomory cuts with pseudocost branching the reverse; together they settle both.
    double spent = 0;
    MipResult r;
    for (const auto& [nodes, cuts] : {std::pair{kGlpkPlainNodes, false}, std::pair{kGlpkCutNodes, true}}) {
        r = solve_with_glpk(m, time_limit_s - spent, nodes, cuts);
        r.seconds += spent;
        spent = r.seconds;
        // Stopped by its own clock (which counts whole milliseconds and may stop one early), nothing is
        // left for another solve: no bound known, nor a solution kept.
        if (r.status != MipStatus::time_limit || !r.node_limit || spent >= time_limit_s) return r;
    }
    r = solve_with_cbc(m, time_limit_s - spent);
    r.seconds += spent;
    return r;
}

}  // namespace hetsched::sched
