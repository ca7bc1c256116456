#include <hetsched/alloc/placement_memo.hpp>

#include <sstream>
#include <stdexcept>

#include <hetsched/io/yaml_document.hpp>

namespace hetsched::alloc {

std::optional<place::PlaceResult> PlacementMemo::find(int dp, int pp, const std::vector<int>& counts) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = placed_.find(Key{dp, pp, counts});
    if (it == placed_.end()) return std::nullopt;
    return it->second;
}

void PlacementMemo::store(int dp, int pp, const std::vector<int>& counts, const place::PlaceResult& r) {
    const std::lock_guard<std::mutex> lock(mutex_);
    placed_.emplace(Key{dp, pp, counts}, r);
}

void PlacementMemo::bind(const std::string& context) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (context_.empty()) context_ = context;
    else if (context != context_)
        throw std::logic_error("a placement memo was shared by searches of different jobs or options");
}

size_t PlacementMemo::size() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return placed_.size();
}

std::string placement_context(const model::JobSpec& job, const catalog::GpuCatalog& catalog,
                              const std::vector<std::string>& types, const place::ProblemOptions& problem,
                              place::Method placer, long placer_limit) {
    std::ostringstream out;
    out.precision(17);
    YAML::Node doc(YAML::NodeType::Map);
    doc["model"] = model::model_to_yaml(job.model);
    doc["training"] = model::training_to_yaml(job);
    out << io::emit_yaml(doc) << catalog.name << '\n';
    for (const auto& name : types) {
        const catalog::GpuType& g = catalog.find(name);
        out << g.name << ' ' << g.memory_gib << ' ' << g.tflops << ' ' << g.fp32_tflops << ' ' << g.mem_bw_gb_s << ' ' << g.link_gb_s << ' '
            << g.nic_gb_s << ' ' << g.compute_capability << ' ' << g.gpus_per_node << '\n';
    }
    out << static_cast<int>(problem.measure) << ' ' << problem.usable_fraction << ' ' << problem.efficiency << ' '
        << problem.network.inter_node_gb_s << ' ' << problem.network.intra_node_gb_s << ' ' << problem.profile << ' '
        << (problem.schedule ? static_cast<int>(*problem.schedule) : -1) << ' ' << static_cast<int>(placer) << ' ' << placer_limit;
    return out.str();
}

}  // namespace hetsched::alloc
