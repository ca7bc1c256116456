#include <hetsched/sched/policy.hpp>

#include <algorithm>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/cli/error.hpp>
#include <hetsched/io/names.hpp>

namespace hetsched::sched {

namespace {

const std::vector<std::pair<PolicyKind, std::string>>& names() {
    static const std::vector<std::pair<PolicyKind, std::string>> n = {
        {PolicyKind::fft, "fft"},       {PolicyKind::gavel, "gavel"}, {PolicyKind::gavel_agnostic, "gavel-agnostic"},
        {PolicyKind::tiresias, "tiresias"}, {PolicyKind::srtf, "srtf"},  {PolicyKind::fifo, "fifo"},
        {PolicyKind::opportunistic, "opportunistic"}, {PolicyKind::allox, "allox"}, {PolicyKind::has, "has"},
        {PolicyKind::sia, "sia"}, {PolicyKind::iceshare, "iceshare"}};
    return n;
}

}  // namespace

bool preempts(PolicyKind p) {
    return p != PolicyKind::fifo && p != PolicyKind::opportunistic && p != PolicyKind::has && p != PolicyKind::allox;
}

std::vector<std::string> policy_names() {
    std::vector<std::string> out;
    for (const auto& [kind, name] : names()) out.push_back(name);
    return out;
}

PolicyKind parse_policy(const std::string& name) {
    for (const auto& [kind, n] : names())
        if (n == name) return kind;
    std::string all;
    for (const auto& n : policy_names()) all += (all.empty() ? "" : ", ") + n;
    throw UsageError("unknown policy '" + name + "'" + io::did_you_mean(name, policy_names()) + " (policies: " +
                     all + ")");
}

std::vector<PolicyKind> parse_policy_list(const std::string& names) {
    std::vector<PolicyKind> out;
    std::string name;
    for (size_t i = 0; i <= names.size(); ++i) {
        if (i < names.size() && names[i] != ',') {
            name += names[i];
            continue;
        }
        const PolicyKind k = parse_policy(name);
        if (std::find(out.begin(), out.end(), k) != out.end()) throw UsageError("policy '" + name + "' is given twice");
        out.push_back(k);
        name.clear();
    }
    return out;
}

std::string policy_name(PolicyKind p) {
    for (const auto& [kind, name] : names())
        if (kind == p) return name;
    return "fft";
}

double migration_seconds(const Job& j, const RoundOptions& o) {
    constexpr double kGbPerGib = 1.073741824;
    return j.checkpoint_gib * kGbPerGib / o.migration_gb_s + o.migration_restart_s;
}

}  // namespace hetsched::sched
