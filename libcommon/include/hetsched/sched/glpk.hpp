#pragma once
/// The GLPK wrapper every policy solves its programs through: problems freed on every path, and GLPK's
/// terminal output sent to a sink the caller chooses (nothing, by default; never stdout).
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

/// Frees the calling thread's GLPK environment (GLPK keeps one per thread, allocated on first use and
/// never freed by itself): a thread that ran rounds calls it before it ends.
void release_glpk_thread();

/// A GLPK problem freed when it goes out of scope.
using GlpkProblem = std::unique_ptr<glp_prob, void (*)(glp_prob*)>;
GlpkProblem make_glpk_problem();

}  // namespace hetsched::sched
