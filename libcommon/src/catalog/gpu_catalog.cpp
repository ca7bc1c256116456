#include <hetsched/catalog/gpu_catalog.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/comma_list.hpp>
#include <hetsched/io/csv_table.hpp>
#include <hetsched/io/names.hpp>

namespace hetsched::embedded {
extern const char* const gpus_csv;
extern const char* const prices_csv;
extern const char* const prices_cny_csv;
extern const char* const price_gpu_map_csv;
extern const char* const compute_capabilities_csv;
}  // namespace hetsched::embedded

namespace hetsched::catalog {
namespace {

io::CsvTable embedded_table(const char* name, const char* text) {
    return io::CsvTable::parse({std::string("<embedded ") + name + ">", text});
}

/// The embedded tables hold published specs and prices; the ranges only guard against a bad edit.
double optional_number(const io::CsvTable& t, size_t row, int col) {
    return t.cell(row, col).text.empty() ? 0.0 : t.number(row, col, 0, 1e6);
}

std::vector<GpuType> parse_spec_rows() {
    auto t = embedded_table("gpus.csv", embedded::gpus_csv);
    int name = t.require("name"), mem = t.require("memory_gib"), bf16 = t.require("bf16_tflops"),
        fp32 = t.require("fp32_tflops"), bw = t.require("mem_bw_gbs"), link = t.require("link_gbs"),
        cc = t.require("compute_capability");
    const int per_node = t.require("gpus_per_node"), fp8 = t.require("fp8");  // empty: GpuType's 8, -1
    std::vector<GpuType> out;
    for (size_t r = 0; r < t.rows(); ++r) {
        GpuType g;
        g.name = t.cell(r, name).text;
        g.memory_gib = t.number(r, mem, 0.01, 1e5);
        g.tflops = optional_number(t, r, bf16);
        g.fp32_tflops = optional_number(t, r, fp32);
        if (g.tflops == 0) {
            g.tflops = g.fp32_tflops;
            g.tflops_from_fp32 = true;
        }
        g.mem_bw_gb_s = optional_number(t, r, bw);
        g.link_gb_s = optional_number(t, r, link);
        g.compute_capability = optional_number(t, r, cc);
        if (!t.cell(r, per_node).text.empty()) g.gpus_per_node = static_cast<int>(t.integer(r, per_node, 1, 1024));
        if (!t.cell(r, fp8).text.empty()) g.fp8 = static_cast<int>(t.integer(r, fp8, 0, 1));
        out.push_back(g);
    }
    return out;
}

/// Every row of gpus.csv, without prices (parsed once).
const std::vector<GpuType>& spec_rows() {
    static const std::vector<GpuType> rows = parse_spec_rows();
    return rows;
}

GpuType spec(const std::string& name) {
    for (const auto& g : spec_rows())
        if (g.name == name) return g;
    throw std::logic_error("embedded gpus.csv lacks '" + name + "'");
}

/// Lowest on-demand USD price per GPU-hour for each gpus.csv name, through price_gpu_map.csv: a price
/// row's GPU label names the part, and where one label covers two form factors (A100 80GB: SXM4 in
/// p4de and ND A100 v4, PCIe in Azure's NC A100 v4) a map row with an instance prefix takes the
/// instances it starts, before the label's own row.
std::map<std::string, double> lowest_prices() {
    auto map = embedded_table("price_gpu_map.csv", embedded::price_gpu_map_csv);
    struct Rule {
        std::string label, prefix, gpu;
    };
    std::vector<Rule> rules;
    int ml = map.require("price_label"), mp = map.require("instance_prefix"), mg = map.require("gpu");
    for (size_t r = 0; r < map.rows(); ++r) rules.push_back({map.cell(r, ml).text, map.cell(r, mp).text, map.cell(r, mg).text});
    std::stable_sort(rules.begin(), rules.end(), [](const Rule& a, const Rule& b) { return a.prefix.size() > b.prefix.size(); });
    auto t = embedded_table("prices.csv", embedded::prices_csv);
    int gpu = t.require("gpu"), instance = t.require("instance"), price = t.require("usd_per_gpu_hour");
    std::map<std::string, double> out;
    for (size_t r = 0; r < t.rows(); ++r) {
        const std::string& label = t.cell(r, gpu).text;
        const std::string& name = t.cell(r, instance).text;
        auto it = std::find_if(rules.begin(), rules.end(), [&](const Rule& u) {
            return u.label == label && name.compare(0, u.prefix.size(), u.prefix) == 0;
        });
        if (it == rules.end()) continue;
        double p = t.number(r, price, 0, 1e6);
        auto [pos, fresh] = out.emplace(it->gpu, p);
        if (!fresh && p < pos->second) pos->second = p;
    }
    return out;
}

GpuCatalog default_catalog() {
    GpuCatalog c{"default", "USD", spec_rows()};
    auto prices = lowest_prices();
    for (auto& g : c.gpus) {
        auto it = prices.find(g.name);
        if (it != prices.end()) g.price_per_hour = it->second;
    }
    return c;
}

/// The Espresso paper's Table I: four JuChi Cloud types with yuan prices and per-user quotas.
GpuCatalog juchi_catalog() {
    auto t = embedded_table("prices_cny.csv", embedded::prices_cny_csv);
    int gpu = t.require("gpu"), price = t.require("cny_per_gpu_hour");
    const std::pair<const char*, int> quotas[] = {{"RTX-A6000", 8}, {"A30", 16}, {"RTX-3090", 16}, {"RTX-A4000", 16}};
    GpuCatalog c{"juchi", "CNY", {}};
    c.inter_node_gb_s = 2.5 / 8;  // Espresso §V-A: 2.5 Gbps between instances
    for (auto [name, quota] : quotas) {
        GpuType g = spec(name);
        g.quota = quota;
        for (size_t r = 0; r < t.rows(); ++r)
            if (t.cell(r, gpu).text == name) g.price_per_hour = t.number(r, price, 0, 1e6);
        c.gpus.push_back(g);
    }
    return c;
}

/// The Sia/Frenzy simulator cluster: 3 nodes of 8 RTX 2080Ti, 2 of 8 A100-40GB, 1 of 4 RTX 6000.
GpuCatalog sia_catalog() {
    const struct { const char* name; int per_node; int nodes; } rows[] = {
        {"RTX-2080Ti", 8, 3}, {"A100-40GB-SXM", 8, 2}, {"RTX-6000-Turing", 4, 1}};
    GpuCatalog c = default_catalog();
    GpuCatalog out{"sia", "USD", {}};
    for (const auto& r : rows) {
        GpuType g = c.find(r.name);
        g.gpus_per_node = r.per_node;
        g.quota = r.per_node * r.nodes;
        out.gpus.push_back(g);
    }
    return out;
}

std::vector<std::string> names_of(const GpuCatalog& c) {
    std::vector<std::string> out;
    for (const auto& g : c.gpus) out.push_back(g.name);
    return out;
}

}  // namespace

namespace {
/// A GPU name's words (io::name_words) less the vendor's and product line's words torch's device
/// names start with ("NVIDIA GeForce RTX 3090", "Tesla V100-SXM2-32GB", "AMD Instinct MI300X"), so
/// that a name as torch.cuda.get_device_name() gives it finds its family.
std::vector<std::string> model_words(const std::string& name) {
    const std::vector<std::string> words = io::name_words(name);
    static const std::vector<std::string> brands = {"nvidia", "tesla", "geforce", "quadro", "amd", "instinct", "radeon"};
    auto first = words.begin();
    while (first != words.end() && std::find(brands.begin(), brands.end(), *first) != brands.end()) ++first;
    return {first, words.end()};
}

/// The words run together: "rtx2080ti" for both "RTX 2080 Ti" and RTX-2080Ti.
std::string joined(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words) out += w;
    return out;
}

/// The catalog's types of `gpu`'s family: those whose first word is its first; where these do not
/// share a compute capability (the RTX cards), those whose words run together start its own, or
/// its own start theirs ("RTX 3090" finds RTX-3090).
std::vector<const GpuType*> family_members(const GpuCatalog& c, const std::string& gpu) {
    const std::vector<std::string> wanted = model_words(gpu);
    std::vector<const GpuType*> members, narrower;
    if (wanted.empty()) return members;
    const std::string whole = joined(wanted);
    for (const auto& g : c.gpus) {
        const std::vector<std::string> words = model_words(g.name);
        if (words.empty() || words[0] != wanted[0]) continue;
        members.push_back(&g);
        // Narrower: one name runs on into the other ("RTX 3090 Ti" and RTX-3090, "Quadro RTX 6000" and
        // RTX-6000-Turing), not two that part ("RTX 6000 Ada Generation" is not RTX-6000-Turing).
        const std::string type = joined(words);
        if (wanted.size() > 1 && (whole.rfind(type, 0) == 0 || type.rfind(whole, 0) == 0)) narrower.push_back(&g);
    }
    const bool alike = std::all_of(members.begin(), members.end(), [&](const GpuType* g) {
        return g->compute_capability == members.front()->compute_capability;
    });
    return alike || narrower.empty() ? members : narrower;
}
}  // namespace

const GpuType* GpuCatalog::lookup(const std::string& wanted) const {
    for (const auto& g : gpus)
        if (io::same_name(g.name, wanted)) return &g;
    return nullptr;
}

const GpuType& GpuCatalog::find(const std::string& wanted) const {
    if (const GpuType* g = lookup(wanted)) return *g;
    // The close names of its family where it names one ("a100-sxm4-80gb" is no V100), else the
    // family's types (a name as torch gives it, "NVIDIA A100-SXM4-80GB"), else the close names.
    std::vector<std::string> family, near_in_family;
    for (const GpuType* g : family_members(*this, wanted)) family.push_back(g->name);
    for (const auto& n : io::close_names(wanted, names_of(*this)))
        if (std::find(family.begin(), family.end(), n) != family.end()) near_in_family.push_back(n);
    std::string hint;
    if (!near_in_family.empty() || family.empty()) {
        hint = io::did_you_mean(wanted, family.empty() ? names_of(*this) : near_in_family);
    } else {
        for (auto& n : family) n = "'" + n + "'";
        hint = ", did you mean one of its family: " + io::join(family) + "?";
    }
    throw UsageError("unknown GPU type '" + wanted + "' in catalog '" + name + "'" + hint + " (see --list-gpus)");
}

double family_compute_capability(const GpuCatalog& c, const std::string& gpu) {
    double found = -1;
    for (const GpuType* g : family_members(c, gpu)) {
        if (found >= 0 && g->compute_capability != found) return 0;
        found = g->compute_capability;
    }
    return found > 0 ? found : 0;
}

bool family_known(const GpuCatalog& c, const std::string& gpu) {
    const std::vector<const GpuType*> members = family_members(c, gpu);
    return !members.empty() && std::all_of(members.begin(), members.end(), [&](const GpuType* g) {
        return g->compute_capability == members.front()->compute_capability;
    });
}

namespace {
const GpuCatalog& default_types() {
    static const GpuCatalog known = named_catalog("default");  // built once
    return known;
}
}  // namespace


namespace {
/// Compute capabilities of NVIDIA families the default catalog has no type of (K80, P40, GTX 1080 Ti),
/// from NVIDIA's published list, by their words run together ("gtx1080ti"); parsed once.
const std::map<std::string, double>& older_families() {
    static const std::map<std::string, double> known = [] {
        std::map<std::string, double> out;
        const io::CsvTable t = embedded_table("compute_capabilities.csv", embedded::compute_capabilities_csv);
        const int family = t.require("family"), cc = t.require("compute_capability");
        for (size_t r = 0; r < t.rows(); ++r) out[joined(model_words(t.cell(r, family).text))] = t.number(r, cc, 1, 20);
        return out;
    }();
    return known;
}

double older_family_compute_capability(const std::string& gpu) {
    // The longest run of the name's leading words that names a family: "K80-12GB" is a K80, "P40" no P4.
    const std::vector<std::string> words = model_words(gpu);
    double found = 0;
    std::string lead;
    for (const auto& w : words) {
        lead += w;
        if (const auto it = older_families().find(lead); it != older_families().end()) found = it->second;
    }
    return found;
}
}  // namespace

bool default_family_known(const std::string& gpu) {
    return family_known(default_types(), gpu) || older_family_compute_capability(gpu) > 0;
}

double default_family_compute_capability(const std::string& gpu) {
    const double cc = family_compute_capability(default_types(), gpu);
    return cc > 0 ? cc : older_family_compute_capability(gpu);
}

bool valid_compute_capability(double cc) {
    return cc == 0 || (cc >= 1 && cc <= 20 && std::fabs(cc * 10 - std::round(cc * 10)) < 1e-9);
}

std::string expected_compute_capability(const std::string& text) {
    return "expected a compute capability major.minor such as 8.0 or 8.9 (0: unknown) for 'compute_capability', "
           "got '" + text + "'";
}

double compute_capability_of(const GpuType& g) {
    return g.compute_capability > 0 ? g.compute_capability : default_family_compute_capability(g.name);
}

std::vector<std::string> catalog_names() { return {"default", "juchi", "sia"}; }

GpuCatalog named_catalog(const std::string& name) {
    if (name == "default") return default_catalog();
    if (name == "juchi") return juchi_catalog();
    if (name == "sia") return sia_catalog();
    throw UsageError("unknown catalog '" + name + "' (expected default, juchi, sia or a file)" +
                     io::did_you_mean(name, catalog_names()));
}

}  // namespace hetsched::catalog
