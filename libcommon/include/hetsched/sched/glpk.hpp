#pragma once
/// The GLPK wrapper every policy solves its programs through: problems freed on every path, GLPK's
/// terminal output sent to a sink the caller chooses (nothing, by default; never stdout), and the
/// solver's status turned into values or typed errors.
#include <functional>
#include <memory>
#include <string>

struct glp_prob;

namespace hetsched::sched {

/// Where GLPK's own messages go; empty = dropped. The tools pass a stderr writer under -v.
using SolverLog = std::function<void(const std::string&)>;

/// Routes GLPK's terminal output to `log` for the lifetime of this object (per thread).
class GlpkOutput {
public:
    explicit GlpkOutput(SolverLog log);
    ~GlpkOutput();
    GlpkOutput(const GlpkOutput&) = delete;
    GlpkOutput& operator=(const GlpkOutput&) = delete;

private:
    SolverLog log_;
};

/// A GLPK problem freed when it goes out of scope.
using GlpkProblem = std::unique_ptr<glp_prob, void (*)(glp_prob*)>;
GlpkProblem make_glpk_problem();

/// How a MIP solve ended.
enum class MipStatus { optimal, infeasible, time_limit };

/// Solves `p` as a MIP with GLPK's branch and cut (presolver on, no other help) within `time_limit_s`
/// seconds. InternalError-style Error (70) when GLPK fails for another reason.
MipStatus solve_mip(glp_prob* p, double time_limit_s);

}  // namespace hetsched::sched
