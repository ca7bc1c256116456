#include <hetsched/sched/glpk.hpp>

#include <glpk.h>


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

void release_glpk_thread() { glp_free_env(); }

GlpkProblem make_glpk_problem() { return GlpkProblem(glp_create_prob(), glp_delete_prob); }

}  // namespace hetsched::sched
