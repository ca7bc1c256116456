#include <hetsched/sched/glpk.hpp>

#include <glpk.h>

#include <hetsched/cli/error.hpp>

namespace hetsched::sched {
namespace {

int to_log(void* info, const char* s) {
    const auto* log = static_cast<const SolverLog*>(info);
    if (log && *log) (*log)(s);
    return 1;  // non-zero: GLPK writes nothing itself
}

}  // namespace

GlpkOutput::GlpkOutput(SolverLog log) : log_(std::move(log)) { glp_term_hook(to_log, &log_); }

GlpkOutput::~GlpkOutput() { glp_term_hook(to_log, nullptr); }

GlpkProblem make_glpk_problem() { return GlpkProblem(glp_create_prob(), glp_delete_prob); }

MipStatus solve_mip(glp_prob* p, double time_limit_s) {
    glp_iocp io;
    glp_init_iocp(&io);
    io.presolve = GLP_ON;
    io.msg_lev = GLP_MSG_ERR;
    io.tm_lim = time_limit_s >= 2e6 ? 2000000000 : static_cast<int>(time_limit_s * 1000);
    const int rc = glp_intopt(p, &io);
    if (rc == GLP_ETMLIM) return MipStatus::time_limit;
    if (rc == GLP_ENOPFS || rc == GLP_ENODFS) return MipStatus::infeasible;
    if (rc != 0) throw Error(Exit::internal, "GLPK's MIP solver failed (code " + std::to_string(rc) + ")");
    const int st = glp_mip_status(p);
    if (st == GLP_OPT) return MipStatus::optimal;
    if (st == GLP_NOFEAS) return MipStatus::infeasible;
    throw Error(Exit::internal, "GLPK's MIP solver stopped without a proven optimum (status " + std::to_string(st) + ")");
}

}  // namespace hetsched::sched
