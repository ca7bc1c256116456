#include <hetsched/sched/state_document.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <unordered_map>

#include <hetsched/alloc/cluster.hpp>
#include <hetsched/io/comma_list.hpp>
#include <hetsched/io/names.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/io/number_range.hpp>
#include <hetsched/model/training.hpp>
#include <hetsched/sched/fitted_scales.hpp>
#include <hetsched/sched/state_near_misses.hpp>
#include <hetsched/sched/job_model.hpp>
#include <hetsched/sched/allox_policy.hpp>
#include <hetsched/sched/tiresias_policy.hpp>

namespace hetsched::sched {
namespace {

using io::YamlDocument;
namespace lim = state_limits;

/// Reads one state; `types` maps type names to indices.
class StateReader {
public:
    StateReader(const YamlDocument& doc, const catalog::GpuCatalog& catalog, const StateModels* models)
        : doc_(doc), catalog_(catalog), models_(models) {}

    ClusterState read() {
        const YAML::Node& root = doc_.root;
        s_.time_s = number(root, "time_s", 0, lim::time_s, true, 0);
        s_.round = integer(root, "round", 0, lim::rounds, 0);
        s_.round_length_s = number(root, "round_length_s", 1e-3, lim::round_length_s, false, 300);
        s_.last_decision_s = number(root, "last_decision_s", 0, s_.time_s, false, -1, "the state's time_s");
        s_.active_set = digest(root, "active_set");
        if (const YAML::Node g = io::optional_child(doc_, root, "gavel"); g.IsDefined()) {
            s_.gavel_reset_s = number(g, "reset_s", 0, s_.time_s, false, -1, "the state's time_s");
            s_.gavel_active_set = digest(g, "active_set");
        }
        read_types();
        read_nodes();
        // Each type's compute capability, for jobs sized by their model (the catalog's, else its family's).
        for (const auto& type : s_.types) {
            const catalog::GpuType* g = catalog_.lookup(type.name);
            type_capability_.push_back(g ? catalog::compute_capability_of(*g)
                                         : catalog::default_family_compute_capability(type.name));
        }
        read_jobs();
        return std::move(s_);
    }

private:
    double number(const YAML::Node& map, const char* key, double lo, double hi, bool required, double fallback,
                  const char* hi_name = nullptr) {
        const YAML::Node n = required ? io::required_child(doc_, map, key) : io::optional_child(doc_, map, key);
        if (!n.IsDefined()) return fallback;
        if (hi_name && n.IsScalar()) {
            const auto v = io::parse_finite(n.Scalar());
            if (v && *v > hi && *v >= lo)
                throw DataError(std::string("'") + key + "' is " + n.Scalar() + ", after " + hi_name, doc_.where(n));
        }
        return io::yaml_number(doc_, n, key, lo, hi);
    }

    /// A hexadecimal digest of job ids; 0 when absent.
    std::uint64_t digest(const YAML::Node& map, const char* key) {
        const YAML::Node a = io::optional_child(doc_, map, key);
        if (!a.IsDefined()) return 0;
        const std::string hex = io::yaml_string(doc_, a, key);
        char* end = nullptr;
        const std::uint64_t v = std::strtoull(hex.c_str(), &end, 16);
        if (hex.empty() || hex.size() > 16 || *end)
            throw DataError(std::string("expected a hexadecimal digest for '") + key + "', got '" + io::shown_value(hex) + "'",
                            doc_.where(a));
        return v;
    }

    long integer(const YAML::Node& map, const char* key, long lo, long hi, long fallback, bool required = false) {
        const YAML::Node n = required ? io::required_child(doc_, map, key) : io::optional_child(doc_, map, key);
        return n.IsDefined() ? io::yaml_integer(doc_, n, key, lo, hi) : fallback;
    }

    const YAML::Node list(const YAML::Node& map, const char* key, const char* what) {
        const YAML::Node n = io::required_child(doc_, map, key);
        if (!n.IsSequence()) throw DataError(std::string("expected a list of ") + what + " under '" + key + "'", doc_.where(n));
        return n;
    }

    /// The index of type `name` at `at`; DataError naming the known types otherwise.
    int type_of(const YAML::Node& at, const std::string& name) {
        if (auto it = type_index_.find(name); it != type_index_.end()) return it->second;
        std::vector<std::string> names;
        for (const auto& t : s_.types) names.push_back(t.name);
        throw DataError("unknown GPU type '" + escape_control(name) + "'" + io::did_you_mean(name, names) +
                            " (the state's types: " + join(names) + ")",
                        doc_.where(at));
    }

    static std::string join(const std::vector<std::string>& v) {
        return v.empty() ? "none" : io::join(v);
    }

    void add_type(const YAML::Node& at, GpuTypeInfo t) {
        if (!type_index_.emplace(t.name, static_cast<int>(s_.types.size())).second)
            throw DataError("GPU type '" + t.name + "' is listed twice", doc_.where(at));
        s_.types.push_back(std::move(t));
    }

    void read_types() {
        const YAML::Node types = io::optional_child(doc_, doc_.root, "gpu_types");
        if (!types.IsDefined()) return;  // from the nodes and the catalog
        if (!types.IsSequence()) throw DataError("expected a list of {name, memory_gib} under 'gpu_types'", doc_.where(types));
        for (const auto& item : types) {
            GpuTypeInfo t;
            const YAML::Node name = io::required_child(doc_, item, "name");
            t.name = io::yaml_string(doc_, name, "name");
            if (t.name.empty()) throw DataError("expected a non-empty GPU type name", doc_.where(name));
            t.memory_gib = number(item, "memory_gib", 0.01, model::limits::max_memory_gib, false, 0);
            if (t.memory_gib == 0)
                if (const catalog::GpuType* g = catalog_.lookup(t.name)) t.memory_gib = g->memory_gib;
            add_type(item, t);
        }
    }

    void read_nodes() {
        const bool listed = !s_.types.empty();
        std::unordered_map<std::string, int> seen;
        for (const auto& item : list(doc_.root, "nodes", "nodes {name, gpu, gpus}")) {
            Node n;
            const YAML::Node name = io::required_child(doc_, item, "name");
            n.name = io::yaml_string(doc_, name, "name");
            check_node_name(n.name, doc_.where(name));
            const YAML::Node gpu = io::required_child(doc_, item, "gpu");
            const std::string type = io::yaml_string(doc_, gpu, "gpu");
            if (!listed && !type_index_.count(type)) {
                const catalog::GpuType* g = catalog_.lookup(type);
                if (!g) {
                    std::vector<std::string> names;
                    for (const auto& c : catalog_.gpus) names.push_back(c.name);
                    throw DataError("unknown GPU type '" + escape_control(type) + "': not in the catalog '" + catalog_.name +
                                        "' and the state has no 'gpu_types' list" + io::did_you_mean(type, names),
                                    doc_.where(gpu));
                }
                if (!type_index_.count(g->name)) add_type(gpu, {g->name, g->memory_gib});
                type_index_.emplace(type, type_index_.at(g->name));  // the spelling used, as an alias
            }
            n.type = type_of(gpu, type);
            n.gpus = static_cast<int>(integer(item, "gpus", 1, alloc::kMaxGpusPerNode, 0, true));
            if (YAML::Node d = io::optional_child(doc_, item, "down"); d.IsDefined()) n.down = io::yaml_bool(doc_, d, "down");
            if (!seen.emplace(n.name, static_cast<int>(s_.nodes.size())).second)
                throw DataError("node '" + escape_control(n.name) + "' is listed twice", doc_.where(item));
            s_.nodes.push_back(n);
        }
        if (s_.nodes.empty()) throw DataError("the state has no nodes", doc_.where(doc_.root["nodes"]));
        node_index_ = std::move(seen);
        used_.assign(s_.nodes.size(), 0);
        sharing_.assign(s_.nodes.size(), 0);
    }

    /// A map {TYPE: number} into a per-type vector; numbers within [lo, hi].
    std::vector<double> per_type(const YAML::Node& map, const char* key, double lo, double hi) {
        std::vector<double> out(s_.types.size(), 0);
        if (!map.IsMap()) throw DataError(std::string("expected a map {GPU type: value} under '") + key + "'", doc_.where(map));
        for (const auto& kv : map) {
            const int t = type_of(kv.first, kv.first.Scalar());
            out[static_cast<size_t>(t)] = io::yaml_number(doc_, kv.second, std::string(key) + "." + kv.first.Scalar(), lo, hi);
        }
        return out;
    }

    void read_jobs() {
        std::unordered_map<std::string, bool> ids;
        const std::vector<int> installed = s_.installed();
        for (const auto& item : list(doc_.root, "jobs", "jobs")) {
            Job j;
            const YAML::Node id = io::required_child(doc_, item, "id");
            j.id = io::yaml_string(doc_, id, "id");
            if (j.id.empty()) throw DataError("expected a non-empty job id", doc_.where(id));
            if (!ids.emplace(j.id, true).second) throw DataError("job '" + escape_control(j.id) + "' is listed twice", doc_.where(id));
            j.submit_time_s = number(item, "submit_time_s", 0, s_.time_s, true, 0, "the state's time_s");
            j.num_gpus = static_cast<int>(integer(item, "num_gpus", 1, lim::gpus, 0, true));
            j.work = number(item, "work", 1e-9, lim::work, true, 0);
            const YAML::Node done = io::optional_child(doc_, item, "done");
            if (done.IsDefined() && done.IsScalar())
                if (auto v = io::parse_finite(done.Scalar()); v && *v > j.work)
                    throw DataError("'done' is " + done.Scalar() + ", more than the job's work " + io::format_number(j.work),
                                    doc_.where(done));
            j.done = number(item, "done", 0, j.work, false, 0);
            read_scales(item, j);
            read_memory(item, j);
            j.util_pct = number(item, "gpu_util_pct", 0, 100, false, 0);
            if (const YAML::Node p = io::optional_child(doc_, item, "preemptible"); p.IsDefined())
                j.preemptible = io::yaml_bool(doc_, p, "preemptible");
            j.priority_weight = number(item, "priority_weight", 1e-6, 1e6, false, 1);
            if (YAML::Node p = io::optional_child(doc_, item, "parallelism"); p.IsDefined()) {
                const std::string v = io::yaml_string(doc_, p, "parallelism");
                if (v == "pipeline") j.parallelism = Parallelism::pipeline;
                else if (v != "data" && v != "tensor")
                    throw DataError("expected data, tensor or pipeline for 'parallelism', got '" + escape_control(v) + "'", doc_.where(p));
            }
            check_runnable(item, j, installed);
            read_placement(item, j);
            read_book(item, j);
            s_.jobs.push_back(std::move(j));
        }
    }

    /// The job's throughput, and an elastic job's sizes (`scales:`, ascending GPU counts, one of them
    /// num_gpus, whose throughput the job has unless it gives its own).
    void read_scales(const YAML::Node& item, Job& j) {
        const YAML::Node scales = io::optional_child(doc_, item, "scales");
        const YAML::Node own = io::optional_child(doc_, item, "throughput");
        const YAML::Node app = io::optional_child(doc_, item, "app");
        if (app.IsDefined()) {  // the models give its sizes and throughputs, the requested size among them
            for (const auto& [other, node] : {std::pair<const char*, YAML::Node>{"scales", scales}, {"throughput", own}})
                if (node.IsDefined())
                    throw DataError("job '" + j.id + "' gives both 'app' and '" + other + "': the models give its " + other,
                                    doc_.where(node));
            fitted(item, app, j);
            j.throughput = std::find_if(j.scales.begin(), j.scales.end(), [&](const Scale& x) { return x.gpus == j.num_gpus; })->throughput;
            return;
        }
        if (!scales.IsDefined()) {
            // A rigid job has one size: a range would be ignored.
            for (const char* key : {"min_gpus", "max_gpus"})
                if (const YAML::Node n = io::optional_child(doc_, item, key); n.IsDefined())
                    throw DataError("job '" + j.id + "' has one size (no 'scales' or 'app'): '" + key +
                                        "' bounds an elastic job's sizes",
                                    doc_.where(n));
            if (!own.IsDefined())  // a misspelt scales or throughput is the likely cause: say so where it is
                for (const auto& kv : item)
                    if (const std::string near = io::likely_slip(kv.first.Scalar(), {"scales", "throughput"}); !near.empty())
                        throw DataError("job '" + j.id + "' has no throughput and no scales; did you mean '" + near +
                                            "' for '" + escape_control(kv.first.Scalar()) + "'?",
                                        doc_.where(kv.first));
            j.throughput = per_type(io::required_child(doc_, item, "throughput"), "throughput", 1e-12, lim::throughput);
            return;
        }
        if (!scales.IsSequence() || scales.size() == 0)
            throw DataError("expected a list of {gpus, throughput} under 'scales'", doc_.where(scales));
        for (const auto& sc : scales) {
            Scale x;
            x.gpus = static_cast<int>(io::yaml_integer(doc_, io::required_child(doc_, sc, "gpus"), "scales.gpus", 1, lim::gpus));
            if (!j.scales.empty() && x.gpus <= j.scales.back().gpus)
                throw DataError("expected the scales in ascending GPU counts, each once; " + std::to_string(x.gpus) +
                                    " comes after " + std::to_string(j.scales.back().gpus),
                                doc_.where(sc));
            x.throughput = per_type(io::required_child(doc_, sc, "throughput"), "scales.throughput", 0, lim::throughput);
            j.scales.push_back(std::move(x));
        }
        // min_gpus and max_gpus, when given, keep the sizes a round may give it to those within them.
        if (io::optional_child(doc_, item, "min_gpus").IsDefined() || io::optional_child(doc_, item, "max_gpus").IsDefined()) {
            const GpuRange range = gpu_range(item, j, 1, std::max(j.num_gpus, j.scales.back().gpus));
            j.scales.erase(std::remove_if(j.scales.begin(), j.scales.end(),
                                          [&](const Scale& x) { return x.gpus < range.min || x.gpus > range.max; }),
                           j.scales.end());
        }
        const auto at = std::find_if(j.scales.begin(), j.scales.end(), [&](const Scale& x) { return x.gpus == j.num_gpus; });
        if (at == j.scales.end())
            throw DataError("job '" + j.id + "' runs on " + io::counted(j.num_gpus, "GPU") + ", which is not one of its scales",
                            doc_.where(scales));
        j.throughput = at->throughput;
        if (!own.IsDefined()) return;
        // Rigid policies run the job at `throughput`, elastic ones at its scales: the two must agree.
        const std::vector<double> given = per_type(own, "throughput", 1e-12, lim::throughput);
        for (size_t i = 0; i < given.size(); ++i)
            if (std::abs(given[i] - at->throughput[i]) > 1e-9 * std::max(given[i], at->throughput[i]))
                throw DataError("job '" + j.id + "' gives throughput " + io::format_number(given[i]) + " on " +
                                    s_.types[i].name + ", but its scale of " + io::counted(j.num_gpus, "GPU") + " gives " +
                                    io::format_number(at->throughput[i]) + ": give one, or the same",
                                doc_.where(own));
    }

    struct GpuRange {
        int min = 1, max = 1;
    };

    /// An elastic job's min_gpus and max_gpus (absent: `lo`, `hi`), in order and holding num_gpus.
    GpuRange gpu_range(const YAML::Node& item, const Job& j, int lo, int hi) {
        GpuRange r{static_cast<int>(integer(item, "min_gpus", 1, lim::gpus, lo)),
                   static_cast<int>(integer(item, "max_gpus", 1, lim::gpus, hi))};
        const YAML::Node min_key = io::optional_child(doc_, item, "min_gpus");
        if (r.min > r.max && min_key.IsDefined() && io::optional_child(doc_, item, "max_gpus").IsDefined())
            throw DataError("job '" + j.id + "': min_gpus " + std::to_string(r.min) + " is above max_gpus " +
                                std::to_string(r.max),
                            doc_.where(min_key));
        if (j.num_gpus < r.min || j.num_gpus > r.max) {
            const auto given = [&](const char* key) {
                return io::optional_child(doc_, item, key).IsDefined() ? std::string() : std::string(" (not given)");
            };
            throw DataError("job '" + j.id + "' runs on " + io::counted(j.num_gpus, "GPU") + ", outside its range min_gpus " +
                                std::to_string(r.min) + given("min_gpus") + " to max_gpus " + std::to_string(r.max) +
                                given("max_gpus"),
                            doc_.where(io::optional_child(doc_, item, "num_gpus")));
        }
        return r;
    }

    /// An elastic job's scales from the fitted models of its app.
    void fitted(const YAML::Node& item, const YAML::Node& app, Job& j) {
        ElasticRequest r;
        r.app = io::yaml_string(doc_, app, "app");
        if (!models_)
            throw DataError("job '" + j.id + "' names app '" + escape_control(r.app) +
                                "': give the throughput-model document it comes from with --throughputs",
                            doc_.where(app));
        if (!fits_app(models_->fits, r.app, s_.types)) {
            std::vector<std::string> apps, its_types;  // its_types: where the models fit this app
            for (const auto& f : models_->fits) {
                if (std::find(apps.begin(), apps.end(), f.app) == apps.end()) apps.push_back(f.app);
                if (f.app == r.app) its_types.push_back(f.gpu);
            }
            throw DataError("job '" + j.id + "' names app '" + escape_control(r.app) + "', which the throughput models " +
                                (its_types.empty() ? "do not fit" + io::did_you_mean(r.app, apps)
                                                   : "fit only on " + io::join(its_types) +
                                                         ", none of the state's GPU types"),
                            doc_.where(app));
        }
        r.requested = j.num_gpus;
        const GpuRange range = gpu_range(item, j, 1, j.num_gpus);
        r.min_gpus = range.min;
        r.max_gpus = range.max;
        r.global_batch = number(item, "batch_size", 1e-9, 1e12, false, 0);
        r.gpus_per_node = models_->gpus_per_node;
        j.scales = fitted_scales(models_->fits, s_.types, r);
    }

    void read_memory(const YAML::Node& item, Job& j) {
        const YAML::Node mem = io::optional_child(doc_, item, "memory_gib"), mod = io::optional_child(doc_, item, "model");
        if (mem.IsDefined() && mod.IsDefined())
            throw DataError("job '" + j.id + "' gives both 'memory_gib' and 'model': give one", doc_.where(mod));
        if (mem.IsDefined()) j.memory_gib = io::yaml_number(doc_, mem, "memory_gib", 0.01, model::limits::max_memory_gib);
        double checkpoint = -1;
        if (mod.IsDefined()) {
            const YamlDocument sub{doc_.name, item};
            try {
                const model::JobSpec spec = model::read_job_spec(sub);
                // Estimated on each type's GPU: only its compute capability differs between types
                // (it decides, e.g., whether Transformer Engine has fused attention), so once per
                // capability.
                std::map<double, double> by_capability;
                for (double capability : type_capability_) {
                    auto [it, fresh] = by_capability.try_emplace(capability, 0.0);
                    if (fresh) it->second = model_memory_gib(spec, j.num_gpus, capability);
                    j.memory_gib_by_type.push_back(it->second);
                }
                checkpoint = model_checkpoint_gib(spec);
            } catch (const DataError& e) {
                if (!e.pos().file.empty()) throw;
                throw DataError("job '" + j.id + "': " + e.what(), doc_.where(mod));
            }
        }
        j.checkpoint_gib = number(item, "checkpoint_gib", 0, lim::checkpoint_gib, false, checkpoint < 0 ? 0 : checkpoint);
    }

    /// A job that no type could ever run is an error, not a job left waiting forever.
    void check_runnable(const YAML::Node& item, const Job& j, const std::vector<int>& installed) {
        bool memory = false, size = false;
        for (size_t i = 0; i < s_.types.size(); ++i) {
            if (!s_.can_run(j, static_cast<int>(i))) continue;
            memory = true;
            size = size || installed[i] >= j.num_gpus;
        }
        if (std::none_of(j.throughput.begin(), j.throughput.end(), [](double x) { return x > 0; })) {
            // An elastic job that other sizes can run (a type with a throughput there, the memory, and
            // the GPUs): num_gpus is the size every policy starts from.
            std::vector<std::string> sizes, other;  // other: scales with a throughput the cluster cannot give
            for (const Scale& sc : j.scales) {
                bool fits = false, some = false;
                for (size_t i = 0; i < s_.types.size(); ++i) {
                    some = some || sc.throughput[i] > 0;
                    fits = fits || (s_.can_run(j, sc.throughput, static_cast<int>(i)) && installed[i] >= sc.gpus);
                }
                if (fits || some) (fits ? sizes : other).push_back(std::to_string(sc.gpus));
            }
            const std::string none_at = "job '" + j.id + "' has a throughput on no GPU type at its num_gpus (" +
                                        std::to_string(j.num_gpus) + ")";
            const auto where = doc_.where(io::required_child(doc_, item, "num_gpus"));
            if (sizes.size() == 1)
                throw DataError(none_at + "; its scale of " + io::counted(std::stol(sizes[0]), "GPU") +
                                    " can run: give num_gpus " + sizes[0],
                                where);
            if (!sizes.empty())
                throw DataError(none_at + "; its scales of " + io::join(sizes) + " GPUs can run: give num_gpus one of them",
                                where);
            if (!other.empty())
                throw DataError(none_at + ", and its scales that have one (" + io::join(other) +
                                    " GPUs) need more GPUs of a type, or more memory, than the cluster has",
                                where);
            throw DataError("job '" + j.id + "' has a throughput on no GPU type of the state, so none can run it",
                            doc_.where(item));
        }
        if (!memory) {
            std::string need = io::format_number(j.memory_gib) + " GiB";
            if (!j.memory_gib_by_type.empty()) {  // as estimated on each type it has a throughput for
                need.clear();
                for (size_t i = 0; i < s_.types.size(); ++i)
                    if (j.throughput[i] > 0)
                        need += (need.empty() ? "" : ", ") + io::format_number(j.memory_on(static_cast<int>(i))) +
                                " GiB on " + s_.types[i].name;
            }
            throw DataError("job '" + j.id + "' needs " + need + " per GPU, more than every type it has a throughput for",
                            doc_.where(item));
        }
        if (!size) {
            // An elastic job's smaller sizes may fit: num_gpus is the size every policy starts from.
            std::vector<std::string> sizes;
            for (const Scale& sc : j.scales)
                for (size_t i = 0; i < s_.types.size(); ++i)
                    if (s_.can_run(j, sc.throughput, static_cast<int>(i)) && installed[i] >= sc.gpus) {
                        sizes.push_back(std::to_string(sc.gpus));
                        break;
                    }
            const std::string hint = sizes.empty()         ? ""
                                     : sizes.size() == 1   ? "; its size of " + sizes[0] + " can run: give num_gpus " + sizes[0]
                                                           : "; its sizes of " + io::join(sizes) +
                                                               " GPUs can run: give num_gpus one of them";
            throw DataError("job '" + j.id + "' needs " + std::to_string(j.num_gpus) +
                                " GPUs, more than the cluster has of any type that can run it" + hint,
                            sizes.empty() ? doc_.where(item) : doc_.where(io::required_child(doc_, item, "num_gpus")));
        }
    }

    void read_placement(const YAML::Node& item, Job& j) {
        const YAML::Node p = io::optional_child(doc_, item, "placement");
        if (!p.IsDefined()) return;
        const YAML::Node gpu = io::required_child(doc_, p, "gpu");
        j.placement.type = type_of(gpu, io::yaml_string(doc_, gpu, "gpu"));
        if (j.throughput[static_cast<size_t>(j.placement.type)] <= 0)
            throw DataError("job '" + j.id + "' is placed on " + s_.types[static_cast<size_t>(j.placement.type)].name +
                                ", a type its throughput does not give (it cannot run there)",
                            doc_.where(gpu));
        const YAML::Node nodes = io::required_child(doc_, p, "nodes");
        if (!nodes.IsMap() || nodes.size() == 0)
            throw DataError("expected a map {node: GPUs} under 'placement.nodes'", doc_.where(nodes));
        if (const YAML::Node sh = io::optional_child(doc_, p, "shared"); sh.IsDefined()) {
            j.placement.shared = io::yaml_bool(doc_, sh, "placement.shared");
            if (j.placement.shared && (j.num_gpus != 1 || nodes.size() != 1))
                throw DataError("job '" + j.id + "' shares a GPU, which only a job on one GPU may", doc_.where(sh));
        }
        long total = 0;
        for (const auto& kv : nodes) {
            const auto it = node_index_.find(kv.first.Scalar());
            if (it == node_index_.end())
                throw DataError("job '" + j.id + "' is placed on node '" + escape_control(kv.first.Scalar()) +
                                    "', which the state does not list",
                                doc_.where(kv.first));
            const Node& node = s_.nodes[static_cast<size_t>(it->second)];
            if (node.type != j.placement.type)
                throw DataError("job '" + j.id + "' is placed on node '" + node.name + "' of type '" +
                                    s_.types[static_cast<size_t>(node.type)].name + "', not its placement's '" +
                                    s_.types[static_cast<size_t>(j.placement.type)].name + "'",
                                doc_.where(kv.first));
            const int g = static_cast<int>(io::yaml_integer(doc_, kv.second, "placement.nodes." + node.name, 1, node.gpus));
            const size_t n = static_cast<size_t>(it->second);
            if (j.placement.shared) ++sharing_[n];
            else used_[n] += g;
            const int taken = used_[n] + (sharing_[n] + 1) / 2;  // two sharers to a GPU
            if (taken > node.gpus)
                throw DataError("node '" + node.name + "' has " + io::counted(node.gpus, "GPU") + ", but the placements on it take " +
                                    std::to_string(taken),
                                doc_.where(kv.first));
            total += g;
            j.placement.shares.push_back({it->second, g});
        }
        if (total != j.num_gpus)
            throw DataError("job '" + j.id + "' needs " + io::counted(j.num_gpus, "GPU") + ", but its placement holds " +
                                std::to_string(total),
                            doc_.where(nodes));
        std::sort(j.placement.shares.begin(), j.placement.shares.end(),
                  [](const NodeShare& a, const NodeShare& b) { return a.node < b.node; });
    }

    void read_book(const YAML::Node& item, Job& j) {
        JobBook& b = j.book;
        b.rho = number(item, "rho", 0, lim::rho, false, 0);
        b.tau_s = number(item, "tau_s", 0, lim::tau_s, false, -1);
        b.attained_gpu_s = number(item, "attained_gpu_s", 0, lim::time_s * lim::gpus, false, 0);
        const YAML::Node per = io::optional_child(doc_, item, "time_per_type_s");
        b.time_per_type_s = per.IsDefined() ? per_type(per, "time_per_type_s", 0, lim::time_s)
                                            : std::vector<double>(s_.types.size(), 0);
        b.first_start_s = number(item, "first_start_s", 0, s_.time_s, false, -1, "the state's time_s");
        // Neither can come before the job arrived: a start before it would read as a negative queueing
        // delay, a fair finish before it as a negative lifetime in FFT's rho. Within the step of 6
        // significant digits they may: states written before the books were written exactly hold a
        // start at a fractional submit time rounded down.
        const double step = io::format_step(j.submit_time_s);
        for (const auto& [key, v] : {std::pair<const char*, double>{"first_start_s", b.first_start_s}, {"tau_s", b.tau_s}})
            if (v >= 0 && v < j.submit_time_s - step)
                throw DataError(std::string("'") + key + "' is " + io::format_number(v, 12) + ", before the job's submit_time_s (" +
                                    io::format_number(j.submit_time_s, 12) + ")",
                                doc_.where(io::optional_child(doc_, item, key)));
        b.migrations = integer(item, "migrations", 0, lim::rounds, 0);
        if (const YAML::Node g = io::optional_child(doc_, item, "gavel"); g.IsDefined()) {
            if (YAML::Node x = io::optional_child(doc_, g, "share"); x.IsDefined()) b.gavel_share = per_type(x, "share", 0, 1);
            if (YAML::Node x = io::optional_child(doc_, g, "base_s"); x.IsDefined())
                b.gavel_base_s = per_type(x, "base_s", 0, lim::time_s);
            if (YAML::Node x = io::optional_child(doc_, g, "deficit_s"); x.IsDefined())
                b.gavel_deficit_s = per_type(x, "deficit_s", -lim::time_s, lim::time_s);
        }
        if (const YAML::Node t = io::optional_child(doc_, item, "tiresias"); t.IsDefined()) {
            b.tiresias_queue = static_cast<int>(integer(t, "queue", 0, 1000, 0));
            b.tiresias_entered_s = number(t, "entered_s", 0, s_.time_s, false, -1, "the state's time_s");
            b.tiresias_base_gpu_s = number(t, "base_gpu_s", 0, b.attained_gpu_s, false, 0, "the job's attained_gpu_s");
            b.tiresias_since_s = number(t, "since_s", 0, s_.time_s, false, -1, "the state's time_s");
        }
    }

    const YamlDocument& doc_;
    const catalog::GpuCatalog& catalog_;
    std::vector<double> type_capability_;  ///< per type of s_.types
    const StateModels* models_;
    ClusterState s_;
    std::unordered_map<std::string, int> type_index_, node_index_;
    std::vector<int> used_;     ///< whole GPUs placed on each node
    std::vector<int> sharing_;  ///< jobs sharing GPUs on each node
};

}  // namespace

StateDocument read_state(const io::TextInput& in, const catalog::GpuCatalog& catalog, const StateModels* models) {
    StateDocument d{io::parse_yaml(in), {}, {}};
    io::require_kind(d.yaml, "cluster-state");
    // An idle cluster's state may leave its jobs out, or give the key no value: no jobs, as `jobs: []`.
    if (const YAML::Node jobs = io::optional_child(d.yaml, d.yaml.root, "jobs"); !jobs.IsDefined() || jobs.IsNull())
        d.yaml.root["jobs"] = YAML::Node(YAML::NodeType::Sequence);
    d.state = StateReader(d.yaml, catalog, models).read();
    d.warnings = near_miss_keys(d.yaml);
    // A job placed where its memory does not fit: the round moves or stops it, which a user should hear
    // of (its memory_gib, or the type's, may be off).
    const YAML::Node jobs = io::required_child(d.yaml, d.yaml.root, "jobs");
    for (size_t k = 0; k < d.state.jobs.size(); ++k) {
        const Job& j = d.state.jobs[k];
        if (!j.placement.running() || d.state.can_run(j, j.placement.type)) continue;
        const GpuTypeInfo& t = d.state.types[static_cast<size_t>(j.placement.type)];
        const SourcePos at = d.yaml.where(io::required_child(d.yaml, io::required_child(d.yaml, jobs[k], "placement"), "gpu"));
        d.warnings.push_back(at.file + ":" + std::to_string(at.line) + ":" + std::to_string(at.col) + ": job '" +
                             escape_control(j.id) + "' runs on " + t.name + ", whose " + io::format_number(t.memory_gib) +
                             " GiB do not hold its " + io::format_number(j.memory_on(j.placement.type)) +
                             " GiB: the round moves or stops it");
    }
    return d;
}

void check_round_options(const StateDocument& d, const RoundOptions& o) {
    const YAML::Node jobs = io::required_child(d.yaml, d.yaml.root, "jobs");  // the state's jobs, in the order read
    if (o.policy == PolicyKind::allox)
        for (size_t k = 0; k < d.state.jobs.size(); ++k)
            if (d.state.jobs[k].remaining() > 0)
                check_allox_job(d.state.jobs[k], d.yaml.where(io::required_child(d.yaml, jobs[k], "num_gpus")));
    if (o.policy != PolicyKind::tiresias) return;
    for (size_t k = 0; k < d.state.jobs.size(); ++k) {
        const YAML::Node item = jobs[k];
        const YAML::Node t = io::optional_child(d.yaml, item, "tiresias");
        const YAML::Node q = t.IsDefined() ? io::optional_child(d.yaml, t, "queue") : t;
        check_tiresias_queue(d.state.jobs[k], o, d.yaml.where(q.IsDefined() ? q : item));
    }
}

}  // namespace hetsched::sched
