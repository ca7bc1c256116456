#include <hetsched/sched/policy.hpp>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/cli/error.hpp>

namespace hetsched::sched {

std::vector<std::string> policy_names() { return {"fft"}; }

PolicyKind parse_policy(const std::string& name) {
    if (name == "fft") return PolicyKind::fft;
    throw UsageError("unknown policy '" + name + "'" + catalog::did_you_mean(name, policy_names()) +
                     " (policies: fft)");
}

std::string policy_name(PolicyKind p) {
    switch (p) {
    case PolicyKind::fft: return "fft";
    }
    return "fft";
}

double migration_seconds(const Job& j, const RoundOptions& o) {
    constexpr double kGbPerGib = 1.073741824;
    return j.checkpoint_gib * kGbPerGib / o.migration_gb_s + o.migration_restart_s;
}

}  // namespace hetsched::sched
