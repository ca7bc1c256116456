/// User catalog files: YAML (kind: gpu-catalog) or CSV with the same field names.
#include <hetsched/catalog/gpu_catalog.hpp>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/csv_table.hpp>
#include <hetsched/io/yaml_document.hpp>

namespace hetsched::catalog {
namespace {

void check_gpu(const GpuType& g, const SourcePos& pos) {
    if (g.name.empty()) throw ConfigError("empty GPU name", pos);
    if (!(g.memory_gib > 0)) throw ConfigError("GPU '" + g.name + "': memory_gib must be positive", pos);
    if (!(g.tflops > 0)) throw ConfigError("GPU '" + g.name + "': tflops must be positive", pos);
    if (g.gpus_per_node < 1) throw ConfigError("GPU '" + g.name + "': gpus_per_node must be at least 1", pos);
    if (g.mem_bw_gb_s < 0 || g.link_gb_s < 0)
        throw ConfigError("GPU '" + g.name + "': bandwidths cannot be negative", pos);
}

GpuCatalog from_yaml(const io::TextInput& in) {
    auto doc = io::parse_yaml(in);
    io::require_kind(doc, "gpu-catalog");
    GpuCatalog c{in.name, "USD", {}};
    if (auto cur = io::optional_child(doc, doc.root, "currency"); cur.IsDefined())
        c.currency = io::yaml_string(doc, cur, "currency");
    if (auto net = io::optional_child(doc, doc.root, "inter_node_gb_s"); net.IsDefined()) {
        c.inter_node_gb_s = io::yaml_number(doc, net, "inter_node_gb_s");
        if (!(c.inter_node_gb_s > 0)) throw ConfigError("inter_node_gb_s must be positive", doc.where(net));
    }
    auto list = io::required_child(doc, doc.root, "gpus");
    if (!list.IsSequence()) throw DataError("expected a list under 'gpus'", doc.where(list));
    for (const auto& n : list) {
        GpuType g;
        g.name = io::yaml_string(doc, io::required_child(doc, n, "name"), "name");
        g.memory_gib = io::yaml_number(doc, io::required_child(doc, n, "memory_gib"), "memory_gib");
        g.tflops = io::yaml_number(doc, io::required_child(doc, n, "tflops"), "tflops");
        auto opt = [&](const char* key, double fallback) {
            auto v = io::optional_child(doc, n, key);
            return v.IsDefined() ? io::yaml_number(doc, v, key) : fallback;
        };
        g.mem_bw_gb_s = opt("mem_bw_gb_s", 0);
        g.link_gb_s = opt("link_gb_s", 0);
        g.gpus_per_node = static_cast<int>(opt("gpus_per_node", 8));
        g.price_per_hour = opt("price_per_hour", -1);
        g.quota = static_cast<int>(opt("quota", -1));
        check_gpu(g, doc.where(n));
        c.gpus.push_back(g);
    }
    return c;
}

GpuCatalog from_csv(const io::TextInput& in) {
    auto t = io::CsvTable::parse(in);
    int name = t.require("name"), mem = t.require("memory_gib"), tf = t.require("tflops");
    int bw = t.find("mem_bw_gb_s"), link = t.find("link_gb_s"), per = t.find("gpus_per_node"),
        price = t.find("price_per_hour"), quota = t.find("quota");
    GpuCatalog c{in.name, "USD", {}};
    for (size_t r = 0; r < t.rows(); ++r) {
        auto opt = [&](int col, double fallback) {
            return col < 0 || t.cell(r, col).text.empty() ? fallback : t.number(r, col);
        };
        GpuType g;
        g.name = t.cell(r, name).text;
        g.memory_gib = t.number(r, mem);
        g.tflops = t.number(r, tf);
        g.mem_bw_gb_s = opt(bw, 0);
        g.link_gb_s = opt(link, 0);
        g.gpus_per_node = static_cast<int>(opt(per, 8));
        g.price_per_hour = opt(price, -1);
        g.quota = static_cast<int>(opt(quota, -1));
        check_gpu(g, t.where(r, name));
        c.gpus.push_back(g);
    }
    return c;
}

}  // namespace

GpuCatalog load_catalog(const std::string& name_or_path) {
    if (name_or_path.find_first_of("/.") == std::string::npos) return named_catalog(name_or_path);
    auto in = io::read_input(name_or_path);
    GpuCatalog c;
    try {
        const bool csv = name_or_path.size() > 4 && name_or_path.compare(name_or_path.size() - 4, 4, ".csv") == 0;
        c = csv ? from_csv(in) : from_yaml(in);
    } catch (const DataError& e) {
        throw ConfigError(std::string("bad catalog: ") + e.what(), e.pos());
    }
    if (c.gpus.empty()) throw ConfigError("catalog lists no GPU types", {in.name, 1, 1});
    return c;
}

}  // namespace hetsched::catalog
