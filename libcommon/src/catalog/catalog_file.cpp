/// User catalog files: YAML (kind: gpu-catalog) or CSV with the same field names.
#include <hetsched/catalog/gpu_catalog.hpp>

#include <functional>
#include <optional>


#include <hetsched/catalog/known_keys.hpp>
#include <hetsched/cli/error.hpp>
#include <hetsched/io/csv_table.hpp>
#include <hetsched/io/names.hpp>
#include <hetsched/io/number_range.hpp>
#include <hetsched/io/yaml_document.hpp>

namespace hetsched::catalog {
namespace {

/// The documented range of each catalog field (hetsched-formats(5)).
struct Field {
    const char* key;
    double lo, hi;
    bool whole;
};
constexpr Field kMemory{"memory_gib", 0.01, 1e5, false};
constexpr Field kTflops{"tflops", 0.001, 1e6, false};
constexpr Field kFp32Tflops{"fp32_tflops", 0, 1e6, false};
constexpr Field kMemBw{"mem_bw_gb_s", 0, 1e6, false};
constexpr Field kLink{"link_gb_s", 0, 1e6, false};
constexpr Field kNic{"nic_gb_s", 0, 1e6, false};
constexpr Field kComputeCapability{"compute_capability", 0, 20, false};
constexpr Field kPerNode{"gpus_per_node", 1, 1024, true};
constexpr Field kFp8{"fp8", 0, 1, true};
constexpr Field kPrice{"price_per_hour", 0, 1e6, false};
constexpr Field kQuota{"quota", 0, 1e6, true};
constexpr Field kNetwork{"inter_node_gb_s", 0.001, 1e6, false};

/// A GPU's keys (YAML) or columns (CSV); a CSV catalog has the catalog's currency and network
/// (inter_node_gb_s) on every row, and tflops_kind as --list-gpus writes it.
const std::vector<std::string> kGpuKeys = {"name", "memory_gib", "tflops", "tflops_kind", "mem_bw_gb_s", "link_gb_s",
                                           "nic_gb_s", "compute_capability", "fp8", "gpus_per_node", "price_per_hour",
                                           "quota", "fp32_tflops"};

/// tensor (a tensor-core peak) or fp32 (the FP32 peak, where no tensor figure is known).
bool fp32_kind(const std::string& kind, const std::function<SourcePos()>& where) {
    if (kind == "tensor") return false;
    if (kind == "fp32") return true;
    throw DataError("expected tflops_kind tensor or fp32, got '" + io::shown_value(kind) + "'", where());
}

double read(const io::YamlDocument& doc, const YAML::Node& node, const Field& f) {
    if (f.whole) return static_cast<double>(io::yaml_integer(doc, node, f.key, static_cast<long>(f.lo), static_cast<long>(f.hi)));
    return io::yaml_number(doc, node, f.key, f.lo, f.hi);
}

double read(const io::CsvTable& t, size_t row, int col, const Field& f) {
    if (f.whole) return static_cast<double>(t.integer(row, col, static_cast<long>(f.lo), static_cast<long>(f.hi)));
    return t.number(row, col, f.lo, f.hi);
}

void add_gpu(GpuCatalog& c, GpuType g, const SourcePos& pos) {
    if (g.name.empty()) throw ConfigError("empty GPU name", pos);
    if (g.tflops_from_fp32 && g.fp32_tflops == 0) g.fp32_tflops = g.tflops;  // tflops is that peak
    for (const auto& other : c.gpus)
        if (io::same_name(other.name, g.name))
            throw ConfigError("GPU '" + g.name + "' is listed twice (names must be unique, ignoring case)", pos);
    c.gpus.push_back(std::move(g));
}

GpuCatalog from_yaml(const io::TextInput& in) {
    auto doc = io::parse_yaml(in);
    io::require_kind(doc, "gpu-catalog");
    check_known_keys(doc, doc.root, "catalog", {"kind", "version", "currency", "inter_node_gb_s", "gpus"});
    GpuCatalog c{in.name, "USD", {}};
    if (auto cur = io::optional_child(doc, doc.root, "currency"); cur.IsDefined())
        c.currency = io::yaml_string(doc, cur, "currency");
    if (auto net = io::optional_child(doc, doc.root, "inter_node_gb_s"); net.IsDefined())
        c.inter_node_gb_s = read(doc, net, kNetwork);
    read_gpu_list(doc, io::required_child(doc, doc.root, "gpus"), c);
    return c;
}

GpuCatalog from_csv(const io::TextInput& in) {
    auto t = io::CsvTable::parse(in);
    std::vector<std::string> columns = kGpuKeys;
    columns.push_back("currency");
    columns.push_back(kNetwork.key);
    check_known_columns(t, columns);
    int name = t.require("name"), mem = t.require("memory_gib"), tf = t.require("tflops");
    int bw = t.find("mem_bw_gb_s"), link = t.find("link_gb_s"), nic = t.find("nic_gb_s"), cc = t.find("compute_capability"),
        per = t.find("gpus_per_node"), fp8 = t.find("fp8"),
        price = t.find("price_per_hour"), quota = t.find("quota"), currency = t.find("currency"),
        kind = t.find("tflops_kind"), fp32 = t.find("fp32_tflops"), network = t.find(kNetwork.key);
    GpuCatalog c{in.name, "USD", {}};
    // One currency and one network for the whole catalog (--list-gpus writes them on every row): the
    // first row's that gives it, which every other row giving it must repeat (the network exactly).
    std::optional<size_t> currency_row, network_row;
    auto once = [&](size_t r, int col, const char* what, std::optional<size_t>& first, bool same) {
        if (!first) {
            first = r;
            return true;
        }
        if (!same)
            throw DataError("expected the catalog's one " + std::string(what) + " '" + t.cell(*first, col).text +
                                "' in column '" + t.header()[static_cast<size_t>(col)].text + "', got '" +
                                io::shown_value(t.cell(r, col).text) + "'",
                            t.where(r, col));
        return false;
    };
    for (size_t r = 0; r < t.rows(); ++r) {
        if (currency >= 0 && !t.cell(r, currency).text.empty() &&
            once(r, currency, "currency", currency_row,
                 currency_row && t.cell(r, currency).text == t.cell(*currency_row, currency).text))
            c.currency = t.cell(r, currency).text;
        if (network >= 0 && !t.cell(r, network).text.empty()) {
            const double gb_s = read(t, r, network, kNetwork);
            if (once(r, network, "network", network_row, network_row && gb_s == c.inter_node_gb_s)) c.inter_node_gb_s = gb_s;
        }
        auto value = [&](const Field& f, int col, double fallback) {
            return col < 0 || t.cell(r, col).text.empty() ? fallback : read(t, r, col, f);
        };
        GpuType g;
        g.name = t.cell(r, name).text;
        g.memory_gib = read(t, r, mem, kMemory);
        g.tflops = read(t, r, tf, kTflops);
        g.fp32_tflops = value(kFp32Tflops, fp32, 0);
        g.mem_bw_gb_s = value(kMemBw, bw, 0);
        g.link_gb_s = value(kLink, link, 0);
        g.nic_gb_s = value(kNic, nic, 0);
        g.compute_capability = value(kComputeCapability, cc, 0);
        if (!valid_compute_capability(g.compute_capability))
            throw DataError(expected_compute_capability(t.cell(r, cc).text), t.where(r, cc));
        g.fp8 = static_cast<int>(value(kFp8, fp8, -1));
        g.gpus_per_node = static_cast<int>(value(kPerNode, per, 8));
        g.price_per_hour = value(kPrice, price, -1);
        g.quota = static_cast<int>(value(kQuota, quota, -1));
        if (kind >= 0 && !t.cell(r, kind).text.empty())
            g.tflops_from_fp32 = fp32_kind(t.cell(r, kind).text, [&] { return t.where(r, kind); });
        add_gpu(c, std::move(g), t.where(r, name));
    }
    return c;
}

}  // namespace

void read_gpu_list(const io::YamlDocument& doc, const YAML::Node& list, GpuCatalog& c) {
    if (!list.IsSequence()) throw DataError("expected a list under 'gpus'", doc.where(list));
    for (const auto& n : list) {
        check_known_keys(doc, n, "gpus", kGpuKeys);
        auto value = [&](const Field& f, double fallback, bool required = false) {
            auto v = required ? io::required_child(doc, n, f.key) : io::optional_child(doc, n, f.key);
            return v.IsDefined() ? read(doc, v, f) : fallback;
        };
        GpuType g;
        g.name = io::yaml_string(doc, io::required_child(doc, n, "name"), "name");
        g.memory_gib = value(kMemory, 0, true);
        g.tflops = value(kTflops, 0, true);
        g.fp32_tflops = value(kFp32Tflops, 0);
        g.mem_bw_gb_s = value(kMemBw, 0);
        g.link_gb_s = value(kLink, 0);
        g.nic_gb_s = value(kNic, 0);
        g.compute_capability = value(kComputeCapability, 0);
        if (!valid_compute_capability(g.compute_capability)) {
            const YAML::Node v = io::optional_child(doc, n, kComputeCapability.key);
            throw DataError(expected_compute_capability(v.Scalar()), doc.where(v));
        }
        g.fp8 = static_cast<int>(value(kFp8, -1));
        g.gpus_per_node = static_cast<int>(value(kPerNode, 8));
        g.price_per_hour = value(kPrice, -1);
        g.quota = static_cast<int>(value(kQuota, -1));
        if (const YAML::Node k = io::optional_child(doc, n, "tflops_kind"); k.IsDefined())
            g.tflops_from_fp32 = fp32_kind(io::yaml_string(doc, k, "tflops_kind"), [&] { return doc.where(k); });
        add_gpu(c, std::move(g), doc.where(n));
    }
}

bool is_catalog_file(const std::string& name_or_path) {
    return name_or_path.find_first_of("/.") != std::string::npos;
}

GpuCatalog parse_catalog(const io::TextInput& in) {
    GpuCatalog c;
    try {
        const bool csv = in.name.size() > 4 && in.name.compare(in.name.size() - 4, 4, ".csv") == 0;
        c = csv ? from_csv(in) : from_yaml(in);
    } catch (const DataError& e) {
        throw ConfigError(std::string("bad catalog: ") + e.what(), e.pos());
    }
    if (c.gpus.empty()) throw ConfigError("catalog lists no GPU types", {in.name, 1, 1});
    return c;
}

}  // namespace hetsched::catalog
