#include <hetsched/fit/throughput_model.hpp>

#include <algorithm>
#include <array>
#include <cmath>

namespace hetsched::fit {
namespace {

// Scale parameters (seconds, seconds per sample) live on a log axis between these bounds; 1e-9 s is
// "off" for every term here.
constexpr double kTiny = 1e-9;
constexpr double kHuge = 1e5;  // above the longest step a profile may give (86400 s)

ParamInfo scale(const char* name, const char* meaning) { return {name, kTiny, kHuge, kTiny, Axis::log, meaning}; }

/// Every ICEFROG parameter; each ICEFROG kind uses a subset, the rest stay at their neutral values.
enum Ice : size_t {
    alpha_c, beta_c, fwd_share, alpha_r, beta_r, alpha_n, beta_n, gamma, alpha_flop, beta_flop, gamma_flop,
    alpha_sync, beta_sync, alpha_act, beta_act, alpha_pr, beta_pr, alpha_pn, beta_pn, gamma_lm, alpha_para,
    beta_para, kIceCount
};

const std::vector<ParamInfo>& ice_all() {
    static const std::vector<ParamInfo> p = {
        scale("alpha_c", "forward+backward time at batch 0 (s)"),
        scale("beta_c", "forward+backward time per sample (s)"),
        {"fwd_share", 0.05, 0.95, 1.0 / 3, Axis::linear, "forward's share of forward+backward"},
        scale("alpha_r", "all-reduce constant within a node (s)"),
        scale("beta_r", "all-reduce time per replica beyond 2, within a node (s)"),
        scale("alpha_n", "all-reduce constant across nodes (s)"),
        scale("beta_n", "all-reduce time per replica beyond 2, across nodes (s)"),
        {"gamma", 1, 10, 1, Axis::linear, "overlap of backward and sync (1 none, 10 full)"},
        scale("alpha_flop", "backward time that freezing does not remove (s)"),
        {"beta_flop", 0.01, 100, 1, Axis::log, "scale of backward with frozen layers"},
        {"gamma_flop", 0.05, 5, 1, Axis::linear, "exponent of the trained FLOPs share theta"},
        scale("alpha_sync", "sync time that freezing does not remove (s)"),
        {"beta_sync", 0.01, 100, 1, Axis::log, "scale of sync with frozen layers"},
        scale("alpha_act", "activation/gradient transfer between stages at batch 0 (s)"),
        scale("beta_act", "activation/gradient transfer per sample (s)"),
        scale("alpha_pr", "parameter all-gather constant within a node (s)"),
        scale("beta_pr", "parameter all-gather per replica beyond 2, within a node (s)"),
        scale("alpha_pn", "parameter all-gather constant across nodes (s)"),
        scale("beta_pn", "parameter all-gather per replica beyond 2, across nodes (s)"),
        {"gamma_lm", 1, 10, 1, Axis::linear, "overlap of backward compute and all-gather"},
        scale("alpha_para", "all-gather time that freezing does not remove (s)"),
        {"beta_para", 0.01, 100, 1, Axis::log, "scale of all-gather with frozen layers"},
    };
    return p;
}

std::vector<size_t> ice_subset(ModelKind k) {
    std::vector<size_t> base = {alpha_c, beta_c, fwd_share};
    const std::vector<size_t> net = {alpha_r, beta_r, alpha_n, beta_n, gamma};
    const std::vector<size_t> flop = {alpha_flop, beta_flop, gamma_flop};
    const std::vector<size_t> sync = {alpha_sync, beta_sync};
    const std::vector<size_t> act = {alpha_act, beta_act};
    const std::vector<size_t> para = {alpha_pr, beta_pr, alpha_pn, beta_pn, gamma_lm, alpha_para, beta_para};
    auto add = [&](const std::vector<size_t>& v) { base.insert(base.end(), v.begin(), v.end()); };
    switch (k) {
    case ModelKind::icefrog_ddp: add(net); add(flop); add(sync); break;
    case ModelKind::icefrog_sdp: add(net); add(flop); add(sync); add(para); break;
    case ModelKind::icefrog_pp: add(act); add(flop); break;
    case ModelKind::icefrog_hp: add(net); add(act); add(flop); add(sync); break;
    case ModelKind::pollux: break;
    }
    return base;
}

struct KindTable {
    std::vector<ParamInfo> info;
    std::vector<size_t> slot;  ///< ICEFROG: where each parameter goes in the full set
};

const KindTable& table(ModelKind k) {
    static const std::array<KindTable, 5> tables = [] {
        std::array<KindTable, 5> t;
        t[0].info = {scale("alpha_c", "compute time at batch 0 (s)"), scale("beta_c", "compute time per sample (s)"),
                     scale("alpha_r", "network constant within a node (s)"),
                     scale("beta_r", "network time per replica beyond 2, within a node (s)"),
                     scale("alpha_n", "network constant across nodes (s)"),
                     scale("beta_n", "network time per replica beyond 2, across nodes (s)"),
                     {"gamma", 1, 10, 1, Axis::linear, "overlap of compute and network (1 none, 10 full)"}};
        for (ModelKind k : {ModelKind::icefrog_ddp, ModelKind::icefrog_sdp, ModelKind::icefrog_pp,
                            ModelKind::icefrog_hp}) {
            KindTable& kt = t[static_cast<size_t>(k)];
            kt.slot = ice_subset(k);
            for (size_t s : kt.slot) kt.info.push_back(ice_all()[s]);
        }
        return t;
    }();
    return tables[static_cast<size_t>(k)];
}

double norm(double a, double b, double g) {
    if (b <= 0) return a;
    if (a <= 0) return b;
    // (a^g + b^g)^(1/g), scaled by the larger term so that large gammas do not overflow.
    if (g == 1) return a + b;
    const double hi = std::max(a, b), lo = std::min(a, b);
    return hi * std::pow(1 + std::pow(lo / hi, g), 1 / g);
}

/// Link time of `replicas` replicas: 0 alone, else the bottleneck link's constant plus retrogression.
double link_time(double a_intra, double b_intra, double a_inter, double b_inter, int replicas, int nodes) {
    if (replicas <= 1) return 0;
    const double extra = std::max(replicas - 2, 0);
    return nodes > 1 ? a_inter + b_inter * extra : a_intra + b_intra * extra;
}

StepParts pollux_step(const std::vector<double>& p, const Sample& s, Factors f) {
    StepParts out;
    out.compute = (p[0] + p[1] * s.per_gpu_batch) * f.compute;
    out.network = link_time(p[2], p[3], p[4], p[5], s.replicas(), s.num_nodes) * f.network;
    out.step = norm(out.compute, out.network, p[6]);
    return out;
}

/// Frozen layers of stage j of `p` equal stages over `layers` layers, and the stage's size.
std::pair<int, int> stage_frozen(int frozen, int layers, int p, int j) {
    const int start = layers * j / p, end = layers * (j + 1) / p;
    return {std::clamp(frozen - start, 0, end - start), end - start};
}

StepParts icefrog_step(ModelKind k, const std::vector<double>& given, const Sample& s, Factors f) {
    const KindTable& kt = table(k);
    static const std::array<double, kIceCount> neutral = [] {
        std::array<double, kIceCount> n{};
        for (size_t i = 0; i < kIceCount; ++i) n[i] = ice_all()[i].neutral;
        return n;
    }();
    std::array<double, kIceCount> v = neutral;
    for (size_t i = 0; i < kt.slot.size(); ++i) v[kt.slot[i]] = given[i];

    const int p = s.stages, d = s.replicas();
    const double m = s.per_gpu_batch;
    const double c0 = (v[alpha_c] + v[beta_c] * m) * f.compute;
    const double fwd = v[fwd_share] * c0, bwd0 = (1 - v[fwd_share]) * c0;
    const double sync0 = link_time(v[alpha_r], v[beta_r], v[alpha_n], v[beta_n], d, s.num_nodes) * f.network;
    const double act = v[alpha_act] + v[beta_act] * m;

    // Backward (Eq. 6 per stage), sync (Eq. 7 / Eq. 13 per stage) and gradient transfers (Eq. 12).
    double bwd = 0, sync = 0;
    int grad_transfers = 0;
    for (int j = 0; j < p; ++j) {
        double theta = s.unfrozen_flops, omega = s.unfrozen_params;
        // Per-stage shares need the layer count; a pipeline without one freezes nothing (the profile
        // reader refuses pipelined rows that freeze layers without total_layers), so every stage then
        // trains in full and passes its gradient on.
        if (p > 1 && s.total_layers <= 0) {
            if (j + 1 < p) ++grad_transfers;
        } else if (p > 1) {
            const auto [frozen, size] = stage_frozen(s.frozen_layers, s.total_layers, p, j);
            theta = omega = size > 0 ? static_cast<double>(size - frozen) / size : 0;
            if (j + 1 < p && stage_frozen(s.frozen_layers, s.total_layers, p, j + 1).first == 0) ++grad_transfers;
        }
        const double scaled = theta == 1 ? 1 : std::pow(theta, v[gamma_flop]);
        if (theta > 0) bwd += (v[alpha_flop] + v[beta_flop] * scaled * bwd0) / p;
        if (omega > 0 && d > 1) sync += (v[alpha_sync] + v[beta_sync] * omega * sync0) / p;
    }
    if (k == ModelKind::icefrog_sdp && d > 1) {  // Eq. 10: the parameter all-gather overlaps the gradient
        const double para0 = link_time(v[alpha_pr], v[beta_pr], v[alpha_pn], v[beta_pn], d, s.num_nodes) * f.network;
        bwd = norm(bwd, v[alpha_para] + v[beta_para] * s.unfrozen_params * para0, v[gamma_lm]);
    }
    StepParts out;
    out.compute = fwd + bwd;
    out.network = sync;
    out.step = fwd + (p - 1) * act + grad_transfers * act + norm(bwd, sync, v[gamma]);
    return out;
}

}  // namespace

std::string model_name(ModelKind k) {
    switch (k) {
    case ModelKind::pollux: return "pollux";
    case ModelKind::icefrog_ddp: return "icefrog-ddp";
    case ModelKind::icefrog_sdp: return "icefrog-sdp";
    case ModelKind::icefrog_pp: return "icefrog-pp";
    case ModelKind::icefrog_hp: return "icefrog-hp";
    }
    return "?";
}

const std::vector<ModelKind>& all_model_kinds() {
    static const std::vector<ModelKind> k = {ModelKind::pollux, ModelKind::icefrog_ddp, ModelKind::icefrog_sdp,
                                             ModelKind::icefrog_pp, ModelKind::icefrog_hp};
    return k;
}

ModelKind parse_model_kind(const std::string& name) {
    std::string known;
    for (ModelKind k : all_model_kinds()) {
        if (model_name(k) == name) return k;
        known += (known.empty() ? "" : ", ") + model_name(k);
    }
    throw UsageError("unknown model '" + name + "': expected one of " + known);
}

const std::vector<ParamInfo>& param_info(ModelKind k) { return table(k).info; }

int param_index(ModelKind k, const std::string& name) {
    const auto& info = param_info(k);
    for (size_t i = 0; i < info.size(); ++i)
        if (info[i].name == name) return static_cast<int>(i);
    return -1;
}

bool can_price(ModelKind k, const Sample& s) {
    switch (k) {
    case ModelKind::icefrog_pp: return s.replicas() == 1;
    case ModelKind::icefrog_hp: return true;
    default: return s.stages == 1;
    }
}

void require_priceable(ModelKind k, const Sample& s) {
    if (can_price(k, s)) return;
    std::string can;
    for (ModelKind other : all_model_kinds())
        if (can_price(other, s)) can += (can.empty() ? "" : ", ") + model_name(other);
    const std::string what =
        k == ModelKind::icefrog_pp
            ? "a row of " + std::to_string(s.replicas()) + " data-parallel replicas (its form is one pipeline without replicas)"
            : "a row of " + std::to_string(s.stages) + " pipeline stages (its form has no pipeline)";
    throw DataError(model_name(k) + " cannot price " + what + "; the model kinds that can: " + can, s.where);
}

StepParts predict(ModelKind k, const std::vector<double>& params, const Sample& s, Factors f) {
    return k == ModelKind::pollux ? pollux_step(params, s, f) : icefrog_step(k, params, s, f);
}

}  // namespace hetsched::fit
