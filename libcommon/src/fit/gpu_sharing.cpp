#include <hetsched/fit/gpu_sharing.hpp>

#include <Eigen/Dense>
#include <cmath>
#include <map>
#include <set>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/catalog/known_keys.hpp>
#include <hetsched/fit/limits.hpp>
#include <hetsched/io/csv_table.hpp>
#include <hetsched/io/names.hpp>
#include <hetsched/io/number_format.hpp>

namespace hetsched::fit {
namespace {

LinearUsage least_squares(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, const std::vector<int>& cols) {
    Eigen::MatrixXd a(x.rows(), static_cast<Eigen::Index>(cols.size()));
    for (size_t j = 0; j < cols.size(); ++j) a.col(static_cast<Eigen::Index>(j)) = x.col(cols[j]);
    const Eigen::VectorXd b = a.colPivHouseholderQr().solve(y);
    LinearUsage u;
    for (size_t j = 0; j < cols.size(); ++j) u.coef[static_cast<size_t>(cols[j])] = b(static_cast<Eigen::Index>(j));
    const Eigen::VectorXd res = y - a * b;
    const double tot = (y.array() - y.mean()).square().sum();
    u.r2 = tot > 0 ? 1 - res.squaredNorm() / tot : 1;
    return u;
}

}  // namespace

std::vector<UsageSample> read_usage(const io::TextInput& in) {
    const io::CsvTable t = io::CsvTable::parse(in);
    catalog::check_known_columns(t, {"app", "gpu", "per_gpu_batch", "gpu_util_pct", "memory_gib", "frozen_layers",
                                     "total_layers"});
    const int app = t.require("app"), gpu = t.require("gpu"), batch = t.require("per_gpu_batch");
    const int util = t.require("gpu_util_pct"), mem = t.require("memory_gib");
    const int frozen = t.find("frozen_layers"), layers = t.find("total_layers");
    if (frozen >= 0 && layers < 0) {
        const io::CsvCell& h = t.header()[static_cast<size_t>(frozen)];
        throw DataError("frozen_layers needs total_layers to say what share still trains", {t.name(), h.line, h.col});
    }
    std::vector<UsageSample> out;
    for (size_t r = 0; r < t.rows(); ++r) {
        UsageSample s;
        s.app = t.cell(r, app).text;
        s.gpu = t.cell(r, gpu).text;
        s.where = t.where(r, 0);
        s.per_gpu_batch = t.positive(r, batch, limits::max_batch);
        s.util_pct = t.number(r, util, 0, 100);
        s.memory_gib = t.positive(r, mem, limits::max_memory_gib);
        if (frozen >= 0 && layers >= 0) {
            // frozen_layers lies in [0, total_layers): at least one layer trains.
            const long l = t.integer(r, layers, 1, limits::max_layers), f = t.integer(r, frozen, 0, l - 1);
            s.theta = s.omega = static_cast<double>(l - f) / static_cast<double>(l);
        }
        out.push_back(s);
    }
    return out;
}

std::vector<UsageModel> fit_usage(const std::vector<UsageSample>& samples) {
    std::map<std::pair<std::string, std::string>, std::vector<const UsageSample*>> groups;
    for (const auto& s : samples) groups[{s.app, io::folded_name(s.gpu)}].push_back(&s);
    std::vector<UsageModel> out;
    for (const auto& [key, g] : groups) {
        const Eigen::Index n = static_cast<Eigen::Index>(g.size());
        Eigen::MatrixXd x(n, 4);
        Eigen::VectorXd util(n), mem(n);
        std::set<double> batches, thetas;
        for (Eigen::Index i = 0; i < n; ++i) {
            const UsageSample& s = *g[static_cast<size_t>(i)];
            x.row(i) << 1, s.per_gpu_batch, s.theta, s.omega;
            util(i) = s.util_pct;
            mem(i) = s.memory_gib;
            batches.insert(s.per_gpu_batch);
            thetas.insert(s.theta);
        }
        // theta and omega move together when only layer counts are known: one feature for both.
        std::vector<int> cols = {0};
        if (batches.size() > 1) cols.push_back(1);
        if (thetas.size() > 1) cols.push_back(2);
        if (static_cast<size_t>(n) < cols.size() + 1)
            throw DataError(key.first + " on " + g.front()->gpu + ": " + io::counted(n, "usage sample") +
                                " cannot fit a linear model in " + io::counted(static_cast<long>(cols.size()), "term") +
                                "; profile at least " + std::to_string(cols.size() + 1),
                            g.front()->where);
        out.push_back({key.first, g.front()->gpu, g.size(), least_squares(x, util, cols), least_squares(x, mem, cols),
                       batches.size() == 1 ? *batches.begin() : -1, thetas.size() == 1 ? *thetas.begin() : -1,
                       *batches.begin(), *batches.rbegin()});
    }
    return out;
}

SharingVerdict judge_sharing(const std::vector<UsageModel>& models, const std::string& gpu,
                             const std::vector<SharingJob>& jobs, double capacity_gib) {
    SharingVerdict v;
    v.capacity_gib = capacity_gib;
    for (const auto& j : jobs) {
        const UsageModel* m = nullptr;
        for (const auto& u : models)
            if (u.app == j.app && io::same_name(u.gpu, gpu)) m = &u;
        if (!m) throw UsageError("no usage model for " + j.app + " on " + gpu + " in the sharing profile");
        const double share = j.total_layers > 0 ? static_cast<double>(j.total_layers - j.frozen_layers) / j.total_layers : 1.0;
        // A term the samples never varied was not fitted: no answer away from the one value measured.
        if (m->only_batch > 0 && j.per_gpu_batch != m->only_batch)
            throw UsageError("the sharing profile measured " + j.app + " on " + gpu + " at per_gpu_batch " +
                             io::format_number(m->only_batch) + " only, so its usage at " + io::format_number(j.per_gpu_batch) +
                             " is unknown: profile at two batch sizes at least");
        if (m->only_share >= 0 && std::abs(share - m->only_share) > 1e-12)
            throw UsageError("the sharing profile measured " + j.app + " on " + gpu + " with " +
                             io::format_number(100 * m->only_share) + "% of its layers training only, so its usage at " +
                             io::format_number(100 * share) + "% is unknown: profile with two frozen_layers counts at least");
        // A linear model away from the batches it was fitted on: an answer, but one to be told of.
        if (m->max_batch > 0 && (j.per_gpu_batch < m->min_batch || j.per_gpu_batch > m->max_batch))
            v.beyond.push_back(j.app + " at per-GPU batch " + io::format_number(j.per_gpu_batch) + " (profiled " +
                               io::format_number(m->min_batch) + "-" + io::format_number(m->max_batch) + ")");
        v.util_pct += std::clamp(m->util.at(j.per_gpu_batch, share, share), 0.0, 100.0);
        v.memory_gib += kMemoryMargin * std::max(0.0, m->memory.at(j.per_gpu_batch, share, share));
    }
    const bool util_ok = v.util_pct <= 100, mem_ok = v.memory_gib <= capacity_gib;
    v.share = util_ok && mem_ok;
    v.reason = v.share ? "utilisation and memory (x1.1) fit"
                       : std::string(!util_ok ? "utilisation " + io::format_fixed(v.util_pct, 1) + "% exceeds 100%" : "") +
                             (!util_ok && !mem_ok ? "; " : "") +
                             (!mem_ok ? "memory x1.1 " + io::format_fixed(v.memory_gib, 3) + " GiB exceeds " +
                                            io::format_fixed(capacity_gib, 3) + " GiB"
                                      : "");
    return v;
}

}  // namespace hetsched::fit
