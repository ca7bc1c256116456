#include <hetsched/cli/model_flags.hpp>

#include <hetsched/cli/validators.hpp>

namespace hetsched::cli {

place::ProblemOptions ModelFlags::problem(const CLI::App& app) const {
    place::ProblemOptions po;
    po.measure = model::parse_measure(measure);
    po.usable_fraction = usable_fraction;
    po.efficiency = efficiency;
    po.given = {app.count("--measure") > 0, app.count("--usable-fraction") > 0, app.count("--efficiency") > 0};
    if (!schedule.empty()) po.schedule = place::parse_schedule_kind(schedule);
    return po;
}

void add_model_flags(CLI::App& app, ModelFlags& f, const char* group, const std::string& schedule_default) {
    const std::string g = group ? group : "Options";
    app.add_option("--efficiency", f.efficiency, "Achieved share of peak TFLOPS for the compute model")
        ->group(g)->check(number_in(0.01, 1.0))->capture_default_str();
    app.add_option("--inter-node-gb-s", f.inter_node_gb_s,
                   "Network between nodes in GB/s, for GPU types without their own nic_gb_s (default: the catalog's)")
        ->group(g)->check(number_in(model::limits::min_link_gb_s, model::limits::max_link_gb_s));
    app.add_option("--measure", f.measure, "Memory that must fit: allocated, reserved or device")
        ->group(g)->check(CLI::IsMember({"allocated", "reserved", "device"}))->capture_default_str();
    app.add_option("--schedule", f.schedule,
                   "How stages exchange tensors: overlapped (Megatron-LM, torchtitan) or blocking (DeepSpeed's "
                   "pipeline engine); default: " + schedule_default)
        ->group(g)->check(CLI::IsMember({"overlapped", "blocking"}));
    app.add_option("--usable-fraction", f.usable_fraction, "Share of a GPU's memory a stage may fill")
        ->group(g)->check(number_in(0.1, 1.0))->capture_default_str();
}

}  // namespace hetsched::cli
