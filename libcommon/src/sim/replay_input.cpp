#include <hetsched/sim/replay_input.hpp>

#include <algorithm>

#include <hetsched/alloc/cluster.hpp>
#include <hetsched/catalog/known_keys.hpp>
#include <hetsched/cli/error.hpp>
#include <hetsched/io/comma_list.hpp>
#include <hetsched/io/names.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/io/number_range.hpp>
#include <hetsched/io/yaml_document.hpp>
#include <hetsched/model/job_spec.hpp>
#include <hetsched/sched/fitted_scales.hpp>
#include <hetsched/sched/job_model.hpp>

namespace hetsched::sim {
namespace {

int add_type(ReplayCluster& c, const std::string& name, const catalog::GpuCatalog& catalog) {
    for (size_t t = 0; t < c.types.size(); ++t)
        if (io::same_name(c.types[t].name, name)) return static_cast<int>(t);
    const catalog::GpuType* g = catalog.lookup(name);
    c.types.push_back({name, g ? g->memory_gib : 0});
    return static_cast<int>(c.types.size()) - 1;
}

/// A job's throughput per cluster type from a table row (types matched by name, case aside).
std::vector<double> per_cluster_type(const ThroughputTable& table, const std::vector<double>& row,
                                     const ReplayCluster& c) {
    std::vector<double> out(c.types.size(), 0);
    for (size_t t = 0; t < c.types.size(); ++t)
        for (size_t k = 0; k < table.types.size(); ++k)
            if (io::same_name(table.types[k], c.types[t].name)) out[t] = row[k];
    return out;
}

/// The table's types, for messages: "V100, P100, K80".
std::string table_types(const ThroughputTable& table) {
    return io::join(table.types);
}

double checkpoint_of(const std::string& model, double fallback) {
    for (const auto& preset : catalog::model_presets())
        if (io::same_name(preset.name, model)) {
            model::JobSpec spec;
            spec.model = preset;
            return sched::model_checkpoint_gib(spec);
        }
    return fallback;
}

/// A node's `free:` (a planalloc cluster's key) may only say that all its GPUs are free: replay
/// simulates whole nodes, so GPUs taken by work outside the trace cannot be honoured.
void check_whole_node(const io::YamlDocument& doc, const YAML::Node& item, const sched::Node& n) {
    const YAML::Node free = io::optional_child(doc, item, "free");
    if (!free.IsDefined()) return;
    const long f = io::yaml_integer(doc, free, "free", 0, n.gpus);
    if (f < n.gpus)
        throw DataError("node '" + n.name + "' has " + std::to_string(f) + " of its " + io::counted(n.gpus, "GPU") +
                            " free, but replay simulates whole nodes: give free: " + std::to_string(n.gpus) +
                            " or leave it out, and list only the GPUs the trace may use in gpus",
                        doc.where(free));
}

}  // namespace

ReplayCluster cluster_from_shorthand(const std::string& spec, int gpus_per_node, const catalog::GpuCatalog& catalog) {
    ReplayCluster c;
    for (const auto& item : io::comma_list(spec, "--cluster")) {
        const auto eq = item.find('=');
        const auto count = eq == std::string::npos ? std::nullopt : io::parse_whole(item.substr(eq + 1), 1, 1L << 20);
        if (eq == 0 || !count)
            throw UsageError("--cluster: expected TYPE=GPUS with GPUS from 1 to 1048576 (e.g. V100=16,P100=16,K80=16), got '" +
                             io::shown_value(item) + "'");
        for (const auto& t : c.types)
            if (io::same_name(t.name, item.substr(0, eq)))
                throw UsageError("--cluster: " + t.name + " is given twice; give each type once with all its GPUs");
        const int t = add_type(c, item.substr(0, eq), catalog);
        for (long left = *count, n = 0; left > 0; ++n) {
            const int g = static_cast<int>(std::min<long>(left, gpus_per_node));
            c.nodes.push_back({c.types[static_cast<size_t>(t)].name + "-" + std::to_string(c.nodes.size()), t, g, false});
            left -= g;
        }
    }
    return c;
}

ReplayCluster cluster_from_yaml(const io::TextInput& in, const catalog::GpuCatalog& catalog) {
    const io::YamlDocument doc = io::parse_yaml(in);
    if (doc.root["version"]) io::require_version(doc);  // any kind (a cluster state serves), but version 1
    ReplayCluster c;
    const YAML::Node types = io::optional_child(doc, doc.root, "gpu_types");
    if (types.IsDefined())
        for (const auto& item : types) {
            const int t = add_type(c, io::yaml_string(doc, io::required_child(doc, item, "name"), "name"), catalog);
            if (YAML::Node m = io::optional_child(doc, item, "memory_gib"); m.IsDefined())
                c.types[static_cast<size_t>(t)].memory_gib = io::yaml_number(doc, m, "memory_gib", 0.01, 1e5);
        }
    const YAML::Node nodes = io::required_child(doc, doc.root, "nodes");
    if (!nodes.IsSequence() || nodes.size() == 0) throw DataError("expected a list of nodes under 'nodes'", doc.where(nodes));
    for (const auto& item : nodes) {
        catalog::check_known_keys(doc, item, "nodes", {"name", "gpu", "gpus", "free", "down"});
        sched::Node n;
        const YAML::Node name = io::required_child(doc, item, "name");
        n.name = io::yaml_string(doc, name, "name");
        sched::check_node_name(n.name, doc.where(name));
        const YAML::Node gpu = io::required_child(doc, item, "gpu");
        const std::string gpu_name = io::yaml_string(doc, gpu, "gpu");
        if (types.IsDefined()) {  // a listed set of types is the whole set, as in a cluster state
            bool listed = false;
            std::string names;
            for (const auto& t : c.types) {
                listed = listed || io::same_name(t.name, gpu_name);
                names += (names.empty() ? "" : ", ") + t.name;
            }
            if (!listed)
                throw DataError("unknown GPU type '" + gpu_name + "': expected one of gpu_types (" + names + ")", doc.where(gpu));
        }
        n.type = add_type(c, gpu_name, catalog);
        n.gpus = static_cast<int>(io::yaml_integer(doc, io::required_child(doc, item, "gpus"), "gpus", 1, alloc::kMaxGpusPerNode));
        check_whole_node(doc, item, n);
        if (YAML::Node d = io::optional_child(doc, item, "down"); d.IsDefined()) n.down = io::yaml_bool(doc, d, "down");
        for (const auto& other : c.nodes)
            if (other.name == n.name) throw DataError("node '" + n.name + "' is listed twice", doc.where(item));
        c.nodes.push_back(n);
    }
    return c;
}

bool is_cluster_file(const std::string& spec) {
    auto ends = [&](const std::string& x) { return spec.size() >= x.size() && spec.compare(spec.size() - x.size(), x.size(), x) == 0; };
    return spec.find('/') != std::string::npos || ends(".yaml") || ends(".yml");
}

std::vector<ReplayJob> build_jobs(const std::vector<TraceJob>& trace, const ThroughputTable& table,
                                  const ReplayCluster& cluster, const JobOptions& o, JobCounts& counts,
                                  const std::string& trace_name) {
    for (const auto& t : cluster.types) {
        bool known = false;
        for (const auto& name : table.types) known = known || io::same_name(name, t.name);
        if (!known)
            throw UsageError("the cluster's GPU type '" + t.name + "' is not in the throughput table (its types: " +
                             table_types(table) + ")");
    }
    // The table's column of the type durations were measured on: it need not be in the cluster (a trace
    // from K80s replayed on V100s).
    const std::string reference_name = o.reference_gpu.empty() ? cluster.types.front().name : o.reference_gpu;
    size_t reference = table.types.size();
    for (size_t k = 0; k < table.types.size(); ++k)
        if (io::same_name(table.types[k], reference_name)) reference = k;
    if (reference == table.types.size())
        throw UsageError("--reference-gpu '" + o.reference_gpu + "' is not a type of the throughput table (its types: " +
                         table_types(table) + ")");
    // The reference type's memory, the cluster's or else the catalog's: a job needing more could not
    // have been measured there (0: unknown).
    double reference_memory_gib = o.reference_memory_gib;
    for (const auto& t : cluster.types)
        if (io::same_name(t.name, table.types[reference])) reference_memory_gib = t.memory_gib;
    const std::vector<std::string> models = table.models();
    std::vector<int> installed(cluster.types.size(), 0);
    for (const auto& n : cluster.nodes)  // a replay's nodes stay as they are: down ones never serve
        if (!n.down) installed[static_cast<size_t>(n.type)] += n.gpus;
    std::vector<ReplayJob> out;
    counts = {};
    for (const TraceJob& tj : trace) {
        ReplayJob r;
        r.where = {trace_name, tj.line, tj.id_col};
        r.model = tj.model.empty() ? models[sched::id_hash(tj.id, o.seed) % models.size()] : tj.model;
        const std::vector<double> row = table.lookup(r.model, tj.num_gpus, tj.batch_size);
        const bool known = std::find(models.begin(), models.end(), r.model) != models.end();
        if (!known && o.skip_unknown_models) {
            ++counts.unknown_model;
            continue;
        }
        if (row.empty()) {
            const std::string drawn = tj.model.empty() ? " (drawn for it: the trace names none)" : "";
            throw DataError("job '" + tj.id + "' runs model '" + r.model + "'" + drawn +
                                (known ? ", which the throughput table lists only for more than " +
                                             io::counted(tj.num_gpus, "GPU")
                                       : ", which the throughput table does not have" + io::did_you_mean(r.model, models) +
                                             " (--skip-unknown-models leaves such jobs out)"),
                            {trace_name, tj.line, tj.model_col});
        }
        sched::Job& j = r.job;
        j.id = tj.id;
        j.submit_time_s = tj.submit_time_s;
        j.num_gpus = tj.num_gpus;
        j.priority_weight = tj.priority_weight;
        j.throughput = per_cluster_type(table, row, cluster);
        j.memory_gib = tj.memory_gib;
        bool big_enough = false, fits = false;  // GPUs enough on a type that runs it; and memory too
        bool taken_to_fit = false;               // fits only on a type whose memory is not known
        double fastest = 0, fastest_fitting = 0;
        for (size_t t = 0; t < cluster.types.size(); ++t) {
            const bool room = j.throughput[t] > 0 && installed[t] >= j.num_gpus;
            const double mem = cluster.types[t].memory_gib;
            const bool holds = j.memory_gib <= 0 || mem <= 0 || j.memory_gib <= mem;
            big_enough = big_enough || room;
            fits = fits || (room && holds);
            if (room && j.memory_gib > 0 && mem <= 0) {
                taken_to_fit = true;
                counts.memory_unknown_types.insert(cluster.types[t].name);
            }
            fastest = std::max(fastest, j.throughput[t]);
            if (room && holds) fastest_fitting = std::max(fastest_fitting, j.throughput[t]);
        }
        if (!fits) {
            ++(big_enough ? counts.too_much_memory : fastest > 0 ? counts.too_big : counts.no_type);
            continue;
        }
        counts.memory_unknown += j.memory_gib <= 0;
        counts.memory_taken_to_fit += taken_to_fit;
        // Work from the reference type's throughput, where the job can run there: a job needing more
        // memory than the reference holds was not measured on it, so its fastest type that holds it.
        const bool on_reference = row[reference] > 0 && (j.memory_gib <= 0 || reference_memory_gib <= 0 ||
                                                         j.memory_gib <= reference_memory_gib);
        j.work = tj.steps > 0 ? tj.steps : tj.duration_s * (on_reference ? row[reference] : fastest_fitting);
        if (tj.steps <= 0 && tj.duration_s <= 0) {  // a Sia/Pollux job: its application's samples
            const auto app = o.applications.find(r.model);
            if (app == o.applications.end())
                throw DataError("job '" + tj.id + "' runs application '" + r.model +
                                    "', whose work (samples per epoch, epochs) replay does not know: give it with --app-work",
                                {trace_name, tj.line, tj.model_col});
            j.work = app->second.samples();
        }
        if (!table.fits.empty()) {  // sizes for the elastic policies (Sia/Pollux jobs), and a word on extrapolation
            sched::ElasticRequest e{r.model, tj.num_gpus, 1, tj.num_gpus, tj.batch_size, table.gpus_per_node};
            for (const auto& f : table.fits)
                if (f.app == r.model) e.max_gpus = std::max(e.max_gpus, f.range.max_gpus);
            bool extrapolated = false;
            std::vector<sched::Scale> scales = sched::fitted_scales(table.fits, cluster.types, e, &extrapolated);
            counts.extrapolated += extrapolated;
            if (tj.batch_size > 0) j.scales = std::move(scales);
        }
        j.checkpoint_gib = checkpoint_of(r.model, o.checkpoint_gib);  // its bookkeeping is the engine's
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<std::string> unrun_applications(const std::set<std::string>& named, const std::vector<TraceJob>& trace) {
    std::vector<std::string> run, out;
    for (const auto& j : trace)
        if (!j.model.empty() && std::find(run.begin(), run.end(), j.model) == run.end()) run.push_back(j.model);
    for (const auto& name : named)
        if (std::find(run.begin(), run.end(), name) == run.end())
            out.push_back("--app-work gives application '" + name + "', which no trace job runs" +
                          io::did_you_mean(name, run));
    return out;
}

}  // namespace hetsched::sim
