#include <hetsched/sim/throughput_table.hpp>

#include <algorithm>
#include <regex>
#include <set>
#include <tuple>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/cli/error.hpp>
#include <hetsched/fit/model_document.hpp>
#include <hetsched/fit/prediction.hpp>
#include <hetsched/io/csv_table.hpp>
#include <hetsched/io/names.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/io/number_range.hpp>
#include <hetsched/io/yaml_document.hpp>

namespace hetsched::sim {
namespace {

constexpr double kMaxThroughput = 1e15;
constexpr long kMaxGpus = 1L << 20;

/// A row's entry for a type the table gives no value at that count (as opposed to 0, cannot run).
constexpr double kAbsent = -1;

/// The type's index, its name matched with letter case ignored (the first spelling is kept).
size_t type_index(ThroughputTable& t, const std::string& name) {
    const auto it = std::find_if(t.types.begin(), t.types.end(), [&](const std::string& x) { return io::same_name(x, name); });
    if (it != t.types.end()) return static_cast<size_t>(it - t.types.begin());
    t.types.push_back(name);
    for (auto& [key, row] : t.rows) row.push_back(kAbsent);
    return t.types.size() - 1;
}

/// The smallest throughput a job may have and still run: the round's own floor (a cluster state's
/// throughputs are 0, cannot run, or from 1e-12).
constexpr double kMinThroughput = 1e-12;

/// Records one throughput, once: a second value for the same model, GPU count and type is refused
/// at `where`, as is one between 0 and the round's floor.
void set(ThroughputTable& t, std::set<std::tuple<std::string, int, size_t>>& seen, const std::string& model, int gpus,
         size_t type, double v, const SourcePos& where) {
    if (!seen.insert({model, gpus, type}).second)
        throw DataError("a second throughput for " + model + " on " + std::to_string(gpus) + (gpus == 1 ? " GPU of " : " GPUs of ") + t.types[type] +
                            ": expected one value each",
                        where);
    if (v > 0 && v < kMinThroughput)
        throw DataError("expected a throughput of 0 (cannot run) or from 1e-12, got " + io::format_number(v), where);
    auto& row = t.rows[{model, gpus}];
    row.resize(t.types.size(), kAbsent);
    row[type] = v;
}

/// Cell (r, col) as a name: not empty or blank (an unnamed model would be drawn as a job type).
const std::string& name_cell(const io::CsvTable& c, size_t r, int col, const char* what) {
    const std::string& v = c.cell(r, col).text;
    if (v.find_first_not_of(" \t") == std::string::npos)
        throw DataError(std::string("expected a ") + what + " name in column '" +
                            c.header()[static_cast<size_t>(col)].text + "', got an empty cell",
                        c.where(r, col));
    return v;
}

ThroughputTable from_gavel_json(const io::TextInput& in) {
    const io::YamlDocument doc = io::parse_yaml(in);
    static const std::regex key(R"(^\('(.*)', (\d+)\)$)");
    ThroughputTable t;
    std::set<std::tuple<std::string, int, size_t>> seen;
    for (const auto& by_type : doc.root) {
        const std::string type = by_type.first.Scalar();
        if (type.find("_unconsolidated") != std::string::npos) continue;
        const size_t ti = type_index(t, type);
        if (!by_type.second.IsMap()) throw DataError("expected a map of job types under '" + type + "'", doc.where(by_type.second));
        for (const auto& job : by_type.second) {
            std::smatch m;
            const std::string k = job.first.Scalar();
            if (!std::regex_match(k, m, key))
                throw DataError("expected a key like \"('ResNet-50 (batch size 64)', 1)\", got '" + io::shown_value(k) + "'",
                                doc.where(job.first));
            const YAML::Node alone = io::required_child(doc, job.second, "null");
            if (m[1].str().find_first_not_of(' ') == std::string::npos)
                throw DataError("expected a job type name in key '" + io::shown_value(k) + "', got an empty one",
                                doc.where(job.first));
            const long gpus = std::stol(m[2].str().substr(0, 7));
            if (gpus < 1 || gpus > kMaxGpus) throw DataError("expected a GPU count from 1, got " + m[2].str(), doc.where(job.first));
            set(t, seen, m[1].str(), static_cast<int>(gpus), ti, io::yaml_number(doc, alone, k, 0, kMaxThroughput),
                doc.where(alone));
        }
    }
    return t;
}

ThroughputTable from_csv(const io::TextInput& in) {
    const io::CsvTable c = io::CsvTable::parse(in);
    ThroughputTable t;
    std::set<std::tuple<std::string, int, size_t>> seen;
    if (c.find("job_type") >= 0) {  // Gavel's flattened table: one column per type
        const int model = c.require("job_type"), sf = c.require("scale_factor");
        std::vector<std::pair<int, size_t>> cols;
        for (size_t i = 0; i < c.header().size(); ++i) {
            const std::string& h = c.header()[i].text;
            const auto at = h.find("_steps_per_s");
            if (at != std::string::npos && at + 12 == h.size()) cols.emplace_back(static_cast<int>(i), type_index(t, h.substr(0, at)));
        }
        if (cols.empty()) throw DataError("expected columns named <type>_steps_per_s", {in.name, 1, 1});
        for (size_t r = 0; r < c.rows(); ++r)
            for (const auto& [col, ti] : cols)
                set(t, seen, name_cell(c, r, model, "job type"), static_cast<int>(c.integer(r, sf, 1, kMaxGpus)), ti,
                    c.number(r, col, 0, kMaxThroughput), c.where(r, col));
        return t;
    }
    // Other columns pass (notes, a batch size), but not a slip of one read: a misspelt num_gpus would
    // read every row as one GPU's.
    std::vector<std::string> read;  // those the file lacks: a column is no slip of one it has
    for (const char* name : {"model", "gpu", "throughput", "num_gpus"})
        if (c.find(name) < 0) read.push_back(name);
    // A slip, or the last word of one ("gpus" for num_gpus).
    const auto slip_of = [&](const std::string& name) {
        std::string near = io::likely_slip(name, read);
        for (const auto& r : read)
            if (near.empty() && r.size() > name.size() && r.compare(r.size() - name.size() - 1, std::string::npos, "_" + name) == 0)
                near = r;
        return near;
    };
    for (const auto& h : c.header())
        if (const std::string near = slip_of(h.text); !near.empty())
            throw DataError("column '" + h.text + "' is not read, did you mean '" + near + "'?", {in.name, h.line, h.col});
    const int model = c.require("model"), gpu = c.require("gpu"), thr = c.require("throughput"), gpus = c.find("num_gpus");
    for (size_t r = 0; r < c.rows(); ++r) {
        const int n = gpus >= 0 ? static_cast<int>(c.integer(r, gpus, 1, kMaxGpus)) : 1;
        set(t, seen, name_cell(c, r, model, "model"), n, type_index(t, name_cell(c, r, gpu, "GPU type")),
            c.number(r, thr, 0, kMaxThroughput), c.where(r, thr));
    }
    return t;
}

ThroughputTable from_model_document(const io::TextInput& in) {
    ThroughputTable t;
    t.fits = fit::read_model_document(in);
    for (const auto& f : t.fits) type_index(t, f.gpu);
    return t;
}

/// A model document: YAML whose first key is `kind: throughput-model`.
bool model_document_shaped(const std::string& text, size_t first) {
    static const std::string kind = "kind: throughput-model";
    return text.compare(first, kind.size(), kind) == 0 || text.find("\nkind: throughput-model") != std::string::npos;
}

}  // namespace

std::vector<std::string> ThroughputTable::models() const {
    std::set<std::string> m;
    for (const auto& [key, row] : rows) m.insert(key.first);
    for (const auto& f : fits) m.insert(f.app);
    return {m.begin(), m.end()};
}

std::vector<double> ThroughputTable::lookup(const std::string& model, int gpus, double global_batch) const {
    if (!fits.empty()) {
        std::vector<double> row(types.size(), 0);
        bool any = false;
        for (const auto& f : fits) {
            if (f.app != model) continue;
            // Two apps may spell one type differently: the table's types matched it with case ignored.
            const size_t k = static_cast<size_t>(
                std::find_if(types.begin(), types.end(), [&](const std::string& t) { return io::same_name(t, f.gpu); }) -
                types.begin());
            row[k] = fit::fitted_throughput(f, gpus, fit::gpus_per_node(f, gpus_per_node), global_batch);
            any = true;
        }
        return any ? row : std::vector<double>{};
    }
    // Each type from the largest count the table gives it a value at, up to `gpus`.
    const auto end = rows.upper_bound({model, gpus});
    std::vector<double> row(types.size(), 0);
    bool any = false;
    for (size_t k = 0; k < types.size(); ++k)
        for (auto it = end; it != rows.begin();) {
            --it;
            if (it->first.first != model) break;
            const double v = k < it->second.size() ? it->second[k] : kAbsent;
            if (v < 0) continue;
            row[k] = v * static_cast<double>(gpus) / it->first.second;
            any = true;
            break;
        }
    return any ? row : std::vector<double>{};
}

ThroughputTable read_throughputs(const io::TextInput& in) {
    const auto first = in.text.find_first_not_of(" \t\r\n");
    ThroughputTable t = first == std::string::npos          ? from_csv(in)
                        : in.text[first] == '{'             ? from_gavel_json(in)
                        : model_document_shaped(in.text, first) ? from_model_document(in)
                                                            : from_csv(in);
    if (t.rows.empty() && t.fits.empty()) throw DataError("the throughput table has no entries", {in.name, 1, 1});
    for (auto& [key, row] : t.rows) row.resize(t.types.size(), kAbsent);
    return t;
}

}  // namespace hetsched::sim
