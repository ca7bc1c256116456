#include <hetsched/fit/fitter.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <map>
#include <nlopt.hpp>
#include <set>
#include <thread>
#include <tuple>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/io/comma_list.hpp>
#include <hetsched/io/names.hpp>

namespace hetsched::fit {
namespace {

bool measured(double v) { return std::isfinite(v) && v > 0; }

/// Everything the loss needs, prepared once per fit.
struct Problem {
    ModelKind kind;
    const std::vector<Sample>* samples;
    std::vector<double> base;      ///< full parameter vector; free entries overwritten per evaluation
    std::vector<size_t> free;      ///< indices of the free parameters
    std::vector<double> log_step;  ///< log of each sample's measured step time
    std::vector<Factors> factor;   ///< each sample's factors from the fit's curves
    bool pollux_loss = false;
    long evaluations = 0;
};

double to_axis(const ParamInfo& p, double v) { return p.axis == Axis::log ? std::log(v) : v; }
double from_axis(const ParamInfo& p, double x) { return p.axis == Axis::log ? std::exp(x) : x; }

std::vector<double> full_params(const Problem& pr, const std::vector<double>& x) {
    std::vector<double> p = pr.base;
    const auto& info = param_info(pr.kind);
    for (size_t i = 0; i < pr.free.size(); ++i) p[pr.free[i]] = from_axis(info[pr.free[i]], x[i]);
    return p;
}

/// Pollux's loss (adaptdl's goodput.py): RMSE of log step time, plus RMSE of log compute time where the
/// profile splits it out, plus its two small regularisers (towards gamma = 1, against retrogression).
/// The ICEFROG models' loss: the same root-mean-square form with soft-L1 in place of the square (a
/// robust RMSE of log step time), plus the same for forward and backward times where measured, plus
/// the gamma regulariser. The root matters: adaptdl tuned the regulariser's 1e-3 against an RMSE
/// (about 0.03 at a 3% miss); against a mean of squares (about 1e-3) it outweighed the data, and a
/// fit of exact gamma = 4 data stopped at gamma 1.9 with 9% misses.
constexpr double kRobustScale = 0.05;  ///< soft-L1 turns from squared to linear at a 5% miss
constexpr double kGammaWeight = 1e-3;  ///< adaptdl's pull towards gamma = 1 (no overlap)
constexpr double kCrossNodeFactor = 1.1;  ///< adaptdl's prior: cross-node terms >= 1.1 x within-node ones

double soft_l1(double e) {
    const double z = e / kRobustScale;
    return 2 * kRobustScale * kRobustScale * (std::sqrt(1 + z * z) - 1);
}

double loss(const std::vector<double>& x, std::vector<double>&, void* data) {
    auto& pr = *static_cast<Problem*>(data);
    ++pr.evaluations;
    const std::vector<double> p = full_params(pr, x);
    double step2 = 0, aux2 = 0;
    size_t aux_n = 0;
    const auto& ss = *pr.samples;
    for (size_t i = 0; i < ss.size(); ++i) {
        const Sample& s = ss[i];
        const StepParts t = predict(pr.kind, p, s, pr.factor[i]);
        const double e = std::log(t.step) - pr.log_step[i];
        step2 += pr.pollux_loss ? e * e : soft_l1(e);
        if (pr.pollux_loss) {
            const double compute = s.step_time_s - s.sync_time_s;
            if (measured(compute)) {
                const double c = std::log(t.compute) - std::log(compute);
                aux2 += c * c;
                ++aux_n;
            }
        } else if (measured(s.fwd_time_s) || measured(s.bwd_time_s)) {
            const int fs = param_index(pr.kind, "fwd_share");
            const double c0 = (p[0] + p[1] * s.per_gpu_batch) * pr.factor[i].compute;
            if (measured(s.fwd_time_s)) {
                aux2 += soft_l1(std::log(p[fs] * c0) - std::log(s.fwd_time_s));
                ++aux_n;
            }
            if (measured(s.bwd_time_s)) {
                aux2 += soft_l1(std::log(t.compute - p[fs] * c0) - std::log(s.bwd_time_s));
                ++aux_n;
            }
        }
    }
    const auto root_mean = [](double sum, size_t n) { return std::sqrt(sum / static_cast<double>(n)); };
    double f = root_mean(step2, ss.size());
    if (aux_n > 0) f += root_mean(aux2, aux_n);
    const int g = param_index(pr.kind, "gamma");
    if (g >= 0) f += kGammaWeight * (p[g] - 1) * (p[g] - 1);
    if (pr.pollux_loss) {
        const auto ratio = [&](int a, int b) { return p[b] / p[a]; };
        f += 1e-2 * (std::pow(ratio(4, 5), 2) + std::pow(ratio(2, 3), 2));
    }
    return std::isfinite(f) ? f : 1e30;
}

/// Least-squares line through (x, y); slope 0 when x does not vary.
std::pair<double, double> line(const std::vector<double>& x, const std::vector<double>& y) {
    const double n = static_cast<double>(x.size());
    double mx = 0, my = 0;
    for (size_t i = 0; i < x.size(); ++i) mx += x[i] / n, my += y[i] / n;
    double sxy = 0, sxx = 0;
    for (size_t i = 0; i < x.size(); ++i) sxy += (x[i] - mx) * (y[i] - my), sxx += (x[i] - mx) * (x[i] - mx);
    const double b = sxx > 0 ? sxy / sxx : 0;
    return {my - b * mx, b};
}

/// A sample's compute time where the profile measures it, else NaN: Pollux's step less its sync time;
/// ICEFROG's forward plus backward, on a replica that trains every layer (frozen layers and pipeline
/// stages make the backward depend on more than alpha_c and beta_c).
double measured_compute(ModelKind kind, const Sample& s) {
    if (kind == ModelKind::pollux) return measured(s.sync_time_s) ? s.step_time_s - s.sync_time_s : std::nan("");
    if (measured(s.fwd_time_s) && measured(s.bwd_time_s) && s.stages == 1 && s.unfrozen_flops == 1)
        return s.fwd_time_s + s.bwd_time_s;
    return std::nan("");
}

/// Whether the profile measures compute times at two batch sizes or more: enough to place alpha_c and
/// beta_c before the rest.
bool compute_measured(ModelKind kind, const std::vector<Sample>& ss) {
    std::set<double> batches;
    for (const auto& s : ss)
        if (measured(measured_compute(kind, s))) batches.insert(s.per_gpu_batch);
    return batches.size() > 1;
}

/// A start near the data: compute from the measured compute times where the profile has them at two
/// batch sizes or more, else from the samples with the fewest replicas; network from the rest.
std::vector<double> initial_guess(ModelKind kind, const std::vector<Sample>& ss, const Pins& pins) {
    const auto& info = param_info(kind);
    std::vector<double> p(info.size());
    for (size_t i = 0; i < info.size(); ++i) p[i] = pins.reason[i].empty() ? info[i].neutral : pins.value[i];
    int fewest = ss.front().replicas();
    for (const auto& s : ss) fewest = std::min(fewest, s.replicas());
    std::vector<double> x, y, mx, my;
    double fwd = 0, fwd_bwd = 0;
    for (const auto& s : ss) {
        if (s.replicas() == fewest) x.push_back(s.per_gpu_batch), y.push_back(s.step_time_s);
        if (const double c = measured_compute(kind, s); measured(c)) {
            mx.push_back(s.per_gpu_batch), my.push_back(c);
            if (measured(s.fwd_time_s)) fwd += s.fwd_time_s, fwd_bwd += c;
        }
    }
    auto [a, b] = compute_measured(kind, ss) ? line(mx, my) : line(x, y);
    double mean_y = 0;
    for (double v : y) mean_y += v / static_cast<double>(y.size());
    if (!(b > 0)) b = mean_y / 2 / std::max(1.0, x.front());
    if (!(a > 0)) a = mean_y * 0.1;
    std::vector<double> gaps;
    for (const auto& s : ss)
        if (s.replicas() > 1) {
            const double measured_c = measured_compute(kind, s);
            const double c = measured(measured_c) ? measured_c : a + b * s.per_gpu_batch;
            gaps.push_back(std::max(s.step_time_s - c, 0.05 * s.step_time_s));
        }
    std::sort(gaps.begin(), gaps.end());
    const double net = gaps.empty() ? mean_y * 0.1 : gaps[gaps.size() / 2];
    auto set = [&](const char* name, double v) {
        const int i = param_index(kind, name);
        if (i >= 0 && pins.reason[static_cast<size_t>(i)].empty())
            p[static_cast<size_t>(i)] = std::clamp(v, info[static_cast<size_t>(i)].lower, info[static_cast<size_t>(i)].upper);
    };
    set("alpha_c", a);
    set("beta_c", b);
    for (const char* n : {"alpha_r", "alpha_n", "alpha_pr", "alpha_pn"}) set(n, net);
    for (const char* n : {"beta_r", "beta_n", "beta_pr", "beta_pn"}) set(n, net * 0.02);
    for (const char* n : {"alpha_act"}) set(n, mean_y * 0.02);
    for (const char* n : {"beta_act"}) set(n, b * 0.05);
    for (const char* n : {"alpha_flop", "alpha_sync", "alpha_para"}) set(n, mean_y * 0.01);
    if (fwd_bwd > 0) set("fwd_share", fwd / fwd_bwd);
    return p;
}

double run_local(Problem& pr, std::vector<double>& x, nlopt::algorithm algorithm) {
    const auto& info = param_info(pr.kind);
    std::vector<double> lo, hi, step;
    for (size_t i : pr.free) {
        lo.push_back(to_axis(info[i], info[i].lower));
        hi.push_back(to_axis(info[i], info[i].upper));
        step.push_back(info[i].axis == Axis::log ? 1.0 : 0.1 * (info[i].upper - info[i].lower));
    }
    for (size_t i = 0; i < x.size(); ++i) x[i] = std::clamp(x[i], lo[i], hi[i]);
    nlopt::opt opt(algorithm, static_cast<unsigned>(x.size()));
    opt.set_lower_bounds(lo);
    opt.set_upper_bounds(hi);
    opt.set_initial_step(step);
    opt.set_min_objective(loss, &pr);
    // Tight stops: where parameters trade off (overlap against network time) the loss falls along a
    // narrow valley in small steps, and a looser stop (1e-7, 1e-4) ended runs part-way down it, at a
    // point that depended on the order the samples were summed in.
    opt.set_ftol_rel(1e-10);
    opt.set_xtol_abs(1e-7);  // on log axes: a 1e-5 % change of a scale parameter
    opt.set_maxeval(3000);
    double f = 0;
    try {
        opt.optimize(x, f);
    } catch (const nlopt::roundoff_limited&) {
        f = loss(x, step, &pr);  // the point reached is as good as the arithmetic allows
    }
    return f;
}

/// The free parameters as in pr.base, with the overlap (gamma, where free) that scores best of pr.base's
/// own and a few spread over its range.
std::vector<double> best_start(Problem& pr) {
    const auto& info = param_info(pr.kind);
    const int gi = param_index(pr.kind, "gamma");
    const bool gamma_free = gi >= 0 && std::find(pr.free.begin(), pr.free.end(), static_cast<size_t>(gi)) != pr.free.end();
    std::vector<double> best, dummy;
    double best_f = 1e300;
    for (double gamma0 : {gi >= 0 ? pr.base[static_cast<size_t>(gi)] : 1.0, 1.0, 1.5, 2.5, 4.0, 8.0}) {
        if (gamma_free) pr.base[static_cast<size_t>(gi)] = gamma0;
        std::vector<double> x;
        for (size_t i : pr.free) x.push_back(to_axis(info[i], pr.base[i]));
        const double f = loss(x, dummy, &pr);
        if (f < best_f) best_f = f, best = x;
        if (!gamma_free) break;
    }
    return best;
}

/// BOBYQA from `x`, then Sbplx (Rowan's subplex) from where it stopped, and so on in turn until a run
/// no longer gains (at most 6 runs): BOBYQA's quadratic model can stall far from the optimum when
/// parameters trade off, and where the loss adds two root-mean-square errors (step times, and forward
/// and backward times) it has a crease that no quadratic fits, along which the simplex steps on
/// (exact ICEFROG data with fwd/bwd columns at gamma 1.2-1.4: 4-11% misses with BOBYQA alone, within
/// 0.1% with both, the runs after the factor curves too). Returns the loss reached.
double polish(Problem& pr, std::vector<double>& x) {
    double f = 1e300;
    for (int run = 0; run < 6; ++run) {
        const double before = f;
        std::vector<double> y = x;
        const double g = run_local(pr, y, run % 2 == 0 ? nlopt::LN_BOBYQA : nlopt::LN_SBPLX);
        if (g < f) f = g, x = y;
        if (run > 0 && before - f < 1e-4 * before) break;
    }
    return f;
}

/// A curve through `knots` of `key`: each knot's factor minimises the robust loss of the samples at
/// that knot given the parameters and the other curve, by golden-section search on log factor in
/// [-1.5, 1.5]. `network` says which term the curve scales.
FactorCurve fit_curve(const GroupFit& g, const std::vector<Sample>& ss, const std::vector<double>& knots,
                      double (*key)(const Sample&), bool network) {
    FactorCurve curve{knots, std::vector<double>(knots.size(), 1.0)};
    for (size_t k = 0; k < knots.size(); ++k) {
        std::vector<const Sample*> at;
        for (const auto& s : ss)
            if (key(s) == knots[k]) at.push_back(&s);
        const auto cost = [&](double logf) {
            double c = 0;
            for (const Sample* s : at) {
                Factors f = g.curves.at(*s);
                (network ? f.network : f.compute) = std::exp(logf);
                c += soft_l1(std::log(predict(g.kind, g.params, *s, f).step / s->step_time_s));
            }
            return c;
        };
        double a = -1.5, b = 1.5;
        const double r = (std::sqrt(5.0) - 1) / 2;
        double x1 = b - r * (b - a), x2 = a + r * (b - a), f1 = cost(x1), f2 = cost(x2);
        for (int it = 0; it < 40; ++it) {
            if (f1 < f2) b = x2, x2 = x1, f2 = f1, x1 = b - r * (b - a), f1 = cost(x1);
            else a = x1, x1 = x2, f1 = f2, x2 = a + r * (b - a), f2 = cost(x2);
        }
        curve.factor[k] = std::exp((a + b) / 2);
    }
    // The parameters carry the scale: the curve is normalised to a geometric mean of 1.
    double mean_log = 0;
    for (double f : curve.factor) mean_log += std::log(f) / static_cast<double>(curve.factor.size());
    for (double& f : curve.factor) f /= std::exp(mean_log);
    return curve;
}

/// Whether any sample has replicas on more than one node, so that its all-reduce crosses nodes.
bool spans_nodes(const std::vector<Sample>& ss) {
    return std::any_of(ss.begin(), ss.end(), [](const Sample& s) { return s.num_nodes > 1 && s.replicas() > 1; });
}

/// adaptdl's prior where no sample spans nodes (goodput.py, after its fit): a link across nodes is no
/// faster than one within a node, so each cross-node term is at least 1.1 x its within-node one
/// (alpha_n, beta_n from alpha_r, beta_r; ICEFROG-SDP's all-gather alpha_pn, beta_pn likewise). Left
/// at their pinned 1e-9 s they priced a multi-node all-reduce as free: 8 GPUs on 2 nodes stepped as
/// fast as one GPU.
void cross_node_prior(ModelKind kind, std::vector<double>& p) {
    const auto& info = param_info(kind);
    for (const auto& [across, within] : {std::pair{"alpha_n", "alpha_r"}, {"beta_n", "beta_r"},
                                         {"alpha_pn", "alpha_pr"}, {"beta_pn", "beta_pr"}}) {
        const int a = param_index(kind, across), w = param_index(kind, within);
        if (a < 0 || w < 0) continue;
        const auto i = static_cast<size_t>(a);
        p[i] = std::min(std::max(p[i], kCrossNodeFactor * p[static_cast<size_t>(w)]), info[i].upper);
    }
}

/// "1 sample", "3 samples".
std::string plural(size_t n, const std::string& what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

/// NaN (not measured) sorts before every time.
double time_key(double t) { return std::isnan(t) ? -1 : t; }

}  // namespace

std::vector<Sample> canonical_order(std::vector<Sample> ss) {
    const auto key = [](const Sample& s) {
        return std::make_tuple(s.num_nodes, s.num_gpus, s.stages, s.max_per_node, s.per_gpu_batch, s.frozen_layers,
                               s.total_layers, s.unfrozen_flops, s.unfrozen_params, s.step_time_s,
                               time_key(s.sync_time_s), time_key(s.fwd_time_s), time_key(s.bwd_time_s));
    };
    std::stable_sort(ss.begin(), ss.end(), [&](const Sample& a, const Sample& b) { return key(a) < key(b); });
    return ss;
}

Pins identify(ModelKind kind, const std::vector<Sample>& ss) {
    const auto& info = param_info(kind);
    Pins p{std::vector<std::string>(info.size()), std::vector<double>(info.size())};
    for (size_t i = 0; i < info.size(); ++i) p.value[i] = info[i].neutral;
    auto pin = [&](const char* name, const std::string& why, double value = std::nan("")) {
        const int i = param_index(kind, name);
        if (i < 0 || !p.reason[static_cast<size_t>(i)].empty()) return;
        p.reason[static_cast<size_t>(i)] = why;
        if (!std::isnan(value)) p.value[static_cast<size_t>(i)] = value;
    };
    std::set<double> batches, thetas, omegas, act_batches;
    std::set<int> intra_counts, inter_counts;  // the replica counts of multi-replica samples
    bool intra = false, inter = false, intra3 = false, inter3 = false, fwd = false, piped = false;
    double mean_step = 0;
    for (const auto& s : ss) {
        batches.insert(s.per_gpu_batch);
        thetas.insert(s.unfrozen_flops);
        mean_step += s.step_time_s / static_cast<double>(ss.size());
        const int d = s.replicas();
        if (d > 1) {
            omegas.insert(s.unfrozen_params);
            (s.num_nodes > 1 ? inter : intra) = true;
            (s.num_nodes > 1 ? inter_counts : intra_counts).insert(d);
            if (d > 2) (s.num_nodes > 1 ? inter3 : intra3) = true;
        }
        if (s.stages > 1) piped = true, act_batches.insert(s.per_gpu_batch);
        if (measured(s.fwd_time_s) || measured(s.bwd_time_s)) fwd = true;
    }
    // Pinning mirrors what the samples can tell apart (adaptdl's rules, extended to ICEFROG's terms).
    if (batches.size() == 1) pin("alpha_c", "one batch size only: half the compute time is taken as constant", mean_step / 2);
    if (!intra && !inter) pin("gamma", "no multi-replica samples: nothing overlaps");
    if (!inter) {  // set after the fit by cross_node_prior()
        const std::string prior = "no samples across nodes: 1.1 x ";
        pin("alpha_n", prior + "alpha_r (adaptdl's prior)");
        pin("beta_n", prior + "beta_r (adaptdl's prior)");
        pin("alpha_pn", prior + "alpha_pr (adaptdl's prior)");
        pin("beta_pn", prior + "beta_pr (adaptdl's prior)");
    }
    if (!intra) {
        pin("alpha_r", "no multi-replica samples within one node");
        pin("beta_r", "no multi-replica samples within one node");
        pin("alpha_pr", "no multi-replica samples within one node");
        pin("beta_pr", "no multi-replica samples within one node");
    }
    if (!inter3) pin("beta_n", "no samples with more than 2 replicas across nodes"), pin("beta_pn", "no samples with more than 2 replicas across nodes");
    if (!intra3) pin("beta_r", "no samples with more than 2 replicas within a node"), pin("beta_pr", "no samples with more than 2 replicas within a node");
    // A per-replica term needs two replica counts to tell it from the constant one: with one, the
    // constant (alpha) takes the whole network time at that count.
    if (inter_counts.size() == 1) {
        const std::string why = "one replica count across nodes (" + std::to_string(*inter_counts.begin()) + "): alpha_n takes it all";
        pin("beta_n", why), pin("beta_pn", why);
    }
    if (intra_counts.size() == 1) {
        const std::string why = "one replica count within a node (" + std::to_string(*intra_counts.begin()) + "): alpha_r takes it all";
        pin("beta_r", why), pin("beta_pr", why);
    }
    if (!intra && !inter) pin("gamma_lm", "no multi-replica samples: nothing to gather");
    if (!fwd) pin("fwd_share", "no fwd_time_s/bwd_time_s columns: backward taken as twice the forward");
    for (const char* b : {"beta_flop", "beta_sync", "beta_para"})
        pin(b, "its scale is that of the fitted term it multiplies");
    if (thetas.size() < 2) pin("gamma_flop", "no frozen layers in the samples"), pin("alpha_flop", "no frozen layers in the samples");
    if (thetas.size() == 2) pin("alpha_flop", "only one frozen-layer setting: gamma_flop alone is fitted");
    if (omegas.size() < 2) {
        pin("alpha_sync", "no multi-replica samples with different frozen layers");
        pin("alpha_para", "no multi-replica samples with different frozen layers");
    }
    if (!piped) pin("alpha_act", "no pipelined samples"), pin("beta_act", "no pipelined samples");
    if (act_batches.size() < 2) pin("beta_act", "pipelined samples of one batch size only", 0);
    // beta_act pinned at its neutral value (off) unless set above.
    const int ba = param_index(kind, "beta_act");
    if (ba >= 0 && !p.reason[static_cast<size_t>(ba)].empty()) p.value[static_cast<size_t>(ba)] = info[static_cast<size_t>(ba)].neutral;
    return p;
}

FitQuality score(const std::vector<double>& predicted, const std::vector<Sample>& ss) {
    FitQuality q;
    q.samples = ss.size();
    if (ss.empty()) return q;
    const double n = static_cast<double>(ss.size());
    double mean = 0;
    for (const auto& s : ss) mean += s.step_time_s / n;
    double res = 0, tot = 0, log2 = 0;
    for (size_t i = 0; i < ss.size(); ++i) {
        const double m = ss[i].step_time_s, p = predicted[i];
        const double ape = 100 * std::abs(p - m) / m;
        q.mean_ape_pct += ape / n;
        q.max_ape_pct = std::max(q.max_ape_pct, ape);
        res += (p - m) * (p - m);
        tot += (m - mean) * (m - mean);
        log2 += std::pow(std::log(p / m), 2);
    }
    q.r2 = tot > 0 ? 1 - res / tot : (res == 0 ? 1 : 0);
    q.rmse_log = std::sqrt(log2 / n);
    return q;
}

Factors FitCurves::at(const Sample& s) const {
    return {compute_by_batch.at(s.per_gpu_batch), s.num_nodes > 1 ? network_by_nodes.at(s.num_nodes) : 1.0};
}

double step_time(const GroupFit& fit, const Sample& s) {
    return predict(fit.kind, fit.params, s, fit.curves.at(s)).step;
}

FitQuality measure_quality(const GroupFit& fit, const std::vector<Sample>& ss) {
    std::vector<double> predicted;
    for (const auto& s : ss) predicted.push_back(step_time(fit, s));
    return score(predicted, ss);
}

GroupFit fit_group(ModelKind kind, const std::vector<Sample>& rows, const FitOptions& options) {
    if (rows.empty()) throw DataError("no samples to fit");
    for (const auto& s : rows) require_priceable(kind, s);
    const std::vector<Sample> ss = canonical_order(rows);
    GroupFit g;
    g.app = rows.front().app;
    g.gpu = rows.front().gpu;
    g.kind = kind;
    const auto& info = param_info(kind);
    const Pins pins = identify(kind, ss);
    g.pinned = pins.reason;

    std::set<std::tuple<int, int, int, double, double, double>> configs;
    for (const auto& s : ss) {
        configs.insert({s.num_nodes, s.num_gpus, s.stages, s.per_gpu_batch, s.unfrozen_flops, s.unfrozen_params});
        g.range.min_batch = g.range.min_batch == 0 ? s.per_gpu_batch : std::min(g.range.min_batch, s.per_gpu_batch);
        g.range.max_batch = std::max(g.range.max_batch, s.per_gpu_batch);
        g.range.max_gpus = std::max(g.range.max_gpus, s.num_gpus);
        g.range.max_nodes = std::max(g.range.max_nodes, s.num_nodes);
        g.range.max_per_node = std::max(g.range.max_per_node, s.max_per_node);
        g.range.max_stages = std::max(g.range.max_stages, s.stages);
        g.range.max_frozen = std::max(g.range.max_frozen, s.frozen_layers);
        g.range.total_layers = std::max(g.range.total_layers, s.total_layers);
    }
    Problem pr{kind, &ss, initial_guess(kind, ss, pins), {}, {}, {}, kind == ModelKind::pollux};
    std::vector<std::string> free_names;
    for (size_t i = 0; i < info.size(); ++i)
        if (pins.reason[i].empty()) pr.free.push_back(i), free_names.push_back(info[i].name);
    // One rule for every sample count: the free parameters plus one distinct configuration, so that at
    // least one residual is left to judge the fit by (a fit through exactly as many points as it has
    // parameters reports R^2 = 1 whatever the model).
    const size_t needed = pr.free.size() + 1;
    if (configs.size() < needed)
        throw DataError(g.app + " on " + g.gpu + ": " + plural(configs.size(), "distinct configuration") +
                            " cannot identify the " + plural(pr.free.size(), "free parameter") + " of " +
                            model_name(kind) + " (" + io::join(free_names) + ") and leave one to check the fit by; " +
                            "profile at least " + std::to_string(needed) +
                            " distinct configurations (more batch sizes and GPU counts)",
                        rows.front().where);
    for (const auto& s : ss) pr.log_step.push_back(std::log(s.step_time_s));
    pr.factor.assign(ss.size(), Factors{});

    // Every free parameter polished from the overlap (gamma) whose start scores best.
    const std::vector<double> guess = pr.base;
    std::vector<double> best = best_start(pr);
    double best_f = best.empty() ? 0 : polish(pr, best);
    // Where the profile measures compute times, the start's compute terms come from them, and the
    // network terms and overlap are fitted first with those held: the loss adds two root-mean-square
    // errors, and with the compute error at its minimum (0 on exact data) it has a kink along the
    // compute parameters, where BOBYQA's quadratic model stalled (exact Pollux data with sync times
    // stopped at a 12% miss from the direct start). That staged start can lead into a valley the
    // direct one avoids too (exact ICEFROG data with fwd/bwd columns at gamma 1.3 stopped at an 11%
    // miss, gamma 1.76): both are polished, and the lower loss kept.
    if (compute_measured(kind, ss)) {
        Problem network = pr;
        network.free.clear();
        for (size_t i : pr.free)
            if (info[i].name != "alpha_c" && info[i].name != "beta_c" && info[i].name != "fwd_share") network.free.push_back(i);
        if (!network.free.empty()) {
            std::vector<double> x = best_start(network);
            polish(network, x);
            pr.base = full_params(network, x);
            std::vector<double> staged = best_start(pr);
            const double staged_f = polish(pr, staged);
            if (staged_f <= best_f) best = staged, best_f = staged_f;
            else pr.base = guess;
        }
    }
    g.params = full_params(pr, best);

    // The factor curves, alternating with the parameters: each knot's factor is the one that best fits
    // the samples there given the parameters, then the parameters are refitted given the factors.
    if (kind != ModelKind::pollux && options.curves) {
        const std::vector<double> batch_knots = curve_knots(ss, batch_key, 3, 4);
        const std::vector<double> node_knots = curve_knots(ss, nodes_key, 3, 2);
        for (int round = 0; round < 2 && !(batch_knots.empty() && node_knots.empty()); ++round) {
            if (!batch_knots.empty()) g.curves.compute_by_batch = fit_curve(g, ss, batch_knots, batch_key, false);
            if (!node_knots.empty()) g.curves.network_by_nodes = fit_curve(g, ss, node_knots, nodes_key, true);
            for (size_t i = 0; i < ss.size(); ++i) pr.factor[i] = g.curves.at(ss[i]);
            if (!best.empty()) polish(pr, best);
            g.params = full_params(pr, best);
        }
    }
    if (!spans_nodes(ss)) cross_node_prior(kind, g.params);
    // Every sample on several replicas, no compute time measured: compute and network time add up to
    // each step, and nothing says how much of it is which (the overlap's curvature alone, in noise).
    int fewest = ss.front().replicas();
    for (const auto& s : ss) fewest = std::min(fewest, s.replicas());
    if (fewest > 1 && !compute_measured(kind, ss))
        g.unsplit = g.app + " on " + g.gpu + ": every sample runs " + std::to_string(fewest) +
                    " replicas or more and none measures its compute time (sync_time_s for pollux, "
                    "fwd_time_s and bwd_time_s for the icefrog models), so compute and network time are not "
                    "told apart: predictions for fewer replicas are extrapolated (profile one GPU too)";
    g.quality = measure_quality(g, ss);
    if (!std::isfinite(g.quality.r2) || !std::isfinite(g.quality.mean_ape_pct) || !std::isfinite(g.quality.max_ape_pct))
        throw DataError(g.app + " on " + g.gpu + ": the fitted model does not give finite step times for the "
                        "samples; check the profile's times and counts", rows.front().where);
    return g;
}

std::vector<std::vector<Sample>> group_samples(const std::vector<Sample>& samples) {
    // GPU type names match with ASCII case ignored (hetsched-formats(5)); a group keeps its first spelling.
    std::map<std::pair<std::string, std::string>, std::vector<Sample>> groups;
    for (const auto& s : samples) groups[{s.app, io::folded_name(s.gpu)}].push_back(s);
    std::vector<std::vector<Sample>> out;
    for (auto& [key, v] : groups) out.push_back(std::move(v));
    return out;
}

std::vector<GroupFit> fit_groups(ModelKind kind, const std::vector<std::vector<Sample>>& groups,
                                 const FitOptions& options) {
    std::vector<GroupFit> out(groups.size());
    std::vector<std::exception_ptr> errors(groups.size());
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t i; (i = next++) < groups.size();) {
            try {
                out[i] = fit_group(kind, groups[i], options);
            } catch (...) {
                errors[i] = std::current_exception();
            }
        }
    };
    const size_t n = std::min<size_t>(groups.size(), std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    for (size_t t = 1; t < n; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
    return out;
}

}  // namespace hetsched::fit
