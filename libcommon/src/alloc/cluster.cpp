#include <hetsched/alloc/cluster.hpp>

#include <set>

#include <hetsched/catalog/known_keys.hpp>
#include <hetsched/io/csv_table.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/model/training.hpp>

namespace hetsched::alloc {
namespace {

/// A node's columns (CSV) and keys (YAML, which may also say `down`, as replay's and schedround's
/// nodes do): a misspelt `free` would leave every GPU free.
const std::vector<std::string> kNodeColumns{"name", "gpu", "gpus", "free", "memory_gib"};
const std::vector<std::string> kNodeKeys{"name", "gpu", "gpus", "free", "memory_gib", "down"};

/// Checks one node's numbers and fills its memory from the catalog unless given; a typed node may
/// give less memory than its type has (a partition, memory held back), never more: plans would be
/// placed on memory its GPUs do not have. `free_pos` and `memory_pos` are where free and memory_gib
/// were given.
void complete(ClusterNode& n, const SourcePos& free_pos, const catalog::GpuCatalog& catalog, const SourcePos& gpu_pos,
              const SourcePos& memory_pos) {
    if (n.free < 0 || n.free > n.gpus)
        throw DataError("node '" + n.name + "' has " + std::to_string(n.free) + " free of " + std::to_string(n.gpus) +
                            " GPUs (expected 0 to " + std::to_string(n.gpus) + ")",
                        free_pos);
    if (n.memory_gib > 0 && n.gpu.empty()) return;
    try {
        const catalog::GpuType& g = catalog.find(n.gpu);
        n.gpu = g.name;
        if (n.memory_gib > g.memory_gib)
            throw DataError("node '" + n.name + "' gives memory_gib " + io::format_number(n.memory_gib) + ", more than a " +
                                g.name + " has (" + io::format_number(g.memory_gib) + " GiB in catalog '" + catalog.name + "')",
                            memory_pos);
        if (n.memory_gib <= 0) n.memory_gib = g.memory_gib;
    } catch (const UsageError& e) {
        throw DataError(e.what(), gpu_pos);
    }
}

/// `where[i]` is the position of `nodes[i]`.
void check_unique(const std::vector<ClusterNode>& nodes, const std::vector<SourcePos>& where) {
    std::set<std::string> seen;
    for (size_t i = 0; i < nodes.size(); ++i)
        if (!seen.insert(nodes[i].name).second)
            throw DataError("node '" + nodes[i].name + "' is listed twice", where[i]);
    if (nodes.empty()) throw DataError("the cluster has no nodes");
}

std::vector<ClusterNode> from_csv(const io::TextInput& in, const catalog::GpuCatalog& catalog) {
    const io::CsvTable t = io::CsvTable::parse(in);
    catalog::check_known_columns(t, kNodeColumns);
    const int name = t.require("name"), gpus = t.require("gpus");
    const int gpu = t.find("gpu"), free = t.find("free"), memory = t.find("memory_gib");
    if (gpu < 0 && memory < 0) t.require("gpu");  // says which columns are there
    std::vector<ClusterNode> out;
    std::vector<SourcePos> where;
    for (size_t r = 0; r < t.rows(); ++r) {
        ClusterNode n;
        n.name = t.cell(r, name).text;
        where.push_back(t.where(r, 0));
        n.gpus = static_cast<int>(t.integer(r, gpus, 1, kMaxGpusPerNode));
        n.free = free >= 0 ? static_cast<int>(t.integer(r, free, 0, kMaxGpusPerNode)) : n.gpus;
        if (memory >= 0 && !t.cell(r, memory).text.empty())
            n.memory_gib = t.number(r, memory, 0.01, model::limits::max_memory_gib);
        if (gpu >= 0) n.gpu = t.cell(r, gpu).text;
        if (n.name.empty()) throw DataError("expected a node name", t.where(r, name));
        complete(n, free >= 0 ? t.where(r, free) : where.back(), catalog, gpu >= 0 ? t.where(r, gpu) : where.back(),
                 memory >= 0 ? t.where(r, memory) : where.back());
        out.push_back(n);
    }
    check_unique(out, where);
    return out;
}

}  // namespace

std::vector<ClusterNode> read_cluster(const io::YamlDocument& doc, const YAML::Node& section,
                                      const catalog::GpuCatalog& catalog) {
    const YAML::Node nodes = io::required_child(doc, section, "nodes");
    if (!nodes.IsSequence() || nodes.size() == 0)
        throw DataError("expected a list of nodes under 'nodes'", doc.where(nodes));
    std::vector<ClusterNode> out;
    std::vector<SourcePos> where;
    for (const auto& item : nodes) {
        if (!item.IsMap()) throw DataError("expected a node as a map {name, gpu, gpus, free}", doc.where(item));
        catalog::check_known_keys(doc, item, "nodes", kNodeKeys);
        ClusterNode n;
        where.push_back(doc.where(item));
        n.name = io::yaml_string(doc, io::required_child(doc, item, "name"), "name");
        n.gpus = static_cast<int>(io::yaml_integer(doc, io::required_child(doc, item, "gpus"), "gpus", 1, kMaxGpusPerNode));
        const YAML::Node free = io::optional_child(doc, item, "free");
        n.free = free.IsDefined() ? static_cast<int>(io::yaml_integer(doc, free, "free", 0, kMaxGpusPerNode)) : n.gpus;
        const YAML::Node memory = io::optional_child(doc, item, "memory_gib");
        if (memory.IsDefined())
            n.memory_gib = io::yaml_number(doc, memory, "memory_gib", 0.01, model::limits::max_memory_gib);
        const YAML::Node gpu = memory.IsDefined() ? io::optional_child(doc, item, "gpu") : io::required_child(doc, item, "gpu");
        if (gpu.IsDefined()) n.gpu = io::yaml_string(doc, gpu, "gpu");
        if (const YAML::Node d = io::optional_child(doc, item, "down"); d.IsDefined() && io::yaml_bool(doc, d, "down"))
            n.free = 0;  // a node that is down holds nothing
        complete(n, doc.where(free.IsDefined() ? free : item), catalog, doc.where(gpu.IsDefined() ? gpu : item),
                 doc.where(memory.IsDefined() ? memory : item));
        out.push_back(n);
    }
    check_unique(out, where);
    return out;
}

std::vector<ClusterNode> parse_cluster(const io::TextInput& in, const catalog::GpuCatalog& catalog) {
    const std::string& path = in.name;
    const bool csv = path.size() > 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
    try {
        if (csv) return from_csv(in, catalog);
        const io::YamlDocument doc = io::parse_yaml(in);
        io::require_kind(doc, "cluster");
        catalog::check_known_keys(doc, doc.root, "cluster", {"kind", "version", "nodes", "gpu_types"});
        return read_cluster(doc, doc.root, catalog);
    } catch (const DataError& e) {
        if (e.pos().file.empty()) throw DataError(e.what(), SourcePos{in.name, 0, 0});
        throw;
    }
}

}  // namespace hetsched::alloc
