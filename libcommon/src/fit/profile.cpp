#include <hetsched/fit/profile.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include <hetsched/catalog/known_keys.hpp>
#include <hetsched/fit/limits.hpp>
#include <hetsched/io/names.hpp>
#include <hetsched/io/number_format.hpp>

namespace hetsched::fit {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct SiaNames {
    std::string app, gpu;
};

/// The app (the file's folder: the caller's name for it, else the path's last folder) and the GPU
/// type (the cluster suffix of `placements-<cluster>.csv`).
SiaNames sia_names(const std::string& path, const ProfileOptions& opt) {
    SiaNames n{opt.app, opt.gpu};
    const size_t slash = path.find_last_of('/');
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    if (n.app.empty()) n.app = opt.folder;
    if (n.app.empty() && slash != std::string::npos && slash > 0) {
        const size_t prev = path.find_last_of('/', slash - 1);
        n.app = path.substr(prev == std::string::npos ? 0 : prev + 1, slash - (prev == std::string::npos ? 0 : prev + 1));
        if (n.app == "." || n.app == "..") n.app.clear();
    }
    if (n.gpu.empty()) {
        const size_t dash = base.find('-');
        const size_t dot = base.rfind('.');
        if (dash != std::string::npos && dot != std::string::npos && dot > dash)
            n.gpu = sia_cluster_gpu(base.substr(dash + 1, dot - dash - 1));
    }
    if (n.app.empty())
        throw UsageError(path + ": a Sia profile has no app column and its folder does not name the app; give --app");
    if (n.gpu.empty())
        throw UsageError(path + ": a Sia profile has no gpu column and its name is not <kind>-<cluster>.csv with a "
                                "known cluster (aws, azure, dgx, dgx-ext, quad, rtx); give --gpu");
    return n;
}

/// Where a header cell sits (column -1: the header line).
SourcePos header_pos(const io::CsvTable& t, int column) {
    if (t.header().empty()) return {t.name(), 1, 1};
    const io::CsvCell& c = t.header()[static_cast<size_t>(column < 0 ? 0 : column)];
    return {t.name(), c.line, column < 0 ? 1 : c.col};
}

/// A measured time in [min_time_s, max_time_s] (sync may be 0: one replica has nothing to sync).
double time_cell(const io::CsvTable& t, size_t r, int c, bool zero_ok = false) {
    return t.number(r, c, zero_ok ? 0 : limits::min_time_s, limits::max_time_s);
}

/// A per-GPU batch in (0, max_batch].
double batch_cell(const io::CsvTable& t, size_t r, int c) {
    return t.positive(r, c, limits::max_batch);
}

/// A whole number in [min, max].
int count_cell(const io::CsvTable& t, size_t r, int c, long min, long max) {
    return static_cast<int>(t.integer(r, c, min, max));
}

/// An optional measured time: NaN when the column is absent.
double optional_time(const io::CsvTable& t, size_t r, int c, bool zero_ok) {
    return c < 0 ? kNaN : time_cell(t, r, c, zero_ok);
}

double fraction_cell(const io::CsvTable& t, size_t r, int c) {
    return t.number(r, c, 0, 1);
}

/// Columns every format shares once renamed: batch and the times.
struct TimeColumns {
    int step = -1, sync = -1, fwd = -1, bwd = -1;
};

/// A part of a step may equal the step it was timed in, and profilers that write step = fwd + bwd
/// round each of the three: a part exceeds its step only by more than this share of it (a sum of
/// decimals such as 0.1 + 0.2 lands one rounding above 0.3; six significant digits, 1e-6 of it).
constexpr double kRoundingSlack = 1e-5;

/// DataError at `column` unless `part` (NaN: not measured) lies within `step`, give or take rounding.
void check_part(const io::CsvTable& t, size_t r, int column, double part, double step, const std::string& what) {
    if (!(part > step * (1 + kRoundingSlack))) return;
    const bool plural = what.find('+') != std::string::npos;
    throw DataError(what + " time " + io::format_number(part) + " s exceeds the step time " + io::format_number(step) +
                        " s " + (plural ? "they are" : "it is") + " part of",
                    t.where(r, column));
}

void read_times(const io::CsvTable& t, size_t r, const TimeColumns& c, const ProfileOptions& opt, Sample& s) {
    // Rows to predict need no times: a blank cell there is one not measured (NaN).
    const auto unmeasured = [&](int column) { return !opt.need_times && column >= 0 && t.cell(r, column).text.empty(); };
    s.step_time_s = c.step < 0 || unmeasured(c.step) ? kNaN : time_cell(t, r, c.step);
    s.sync_time_s = unmeasured(c.sync) ? kNaN : optional_time(t, r, c.sync, true);
    s.fwd_time_s = unmeasured(c.fwd) ? kNaN : optional_time(t, r, c.fwd, false);
    s.bwd_time_s = unmeasured(c.bwd) ? kNaN : optional_time(t, r, c.bwd, false);
    // The parts are of the step they were timed in: none may outlast it, alone or together.
    check_part(t, r, c.sync, s.sync_time_s, s.step_time_s, "sync");
    check_part(t, r, c.fwd, s.fwd_time_s, s.step_time_s, "forward");
    check_part(t, r, c.bwd, s.bwd_time_s, s.step_time_s, "backward");
    check_part(t, r, c.bwd, s.fwd_time_s + s.bwd_time_s, s.step_time_s, "forward + backward");
}

/// What --predict appends, accepted back in any profile (a predicted table re-predicted or fitted).
const char* const kPredictedColumns[] = {"predicted_step_time_s", "predicted_throughput"};

/// DataError at a column the format does not know (a misspelt optional column would otherwise leave
/// its value at the default, and the fit or prediction silently wrong).
void check_columns(const io::CsvTable& t, std::vector<std::string> known) {
    known.insert(known.end(), std::begin(kPredictedColumns), std::end(kPredictedColumns));
    catalog::check_known_columns(t, known);
}

void read_sia(Profile& p, const io::TextInput& in, const ProfileOptions& opt) {
    const io::CsvTable& t = p.table;
    if (p.format == ProfileFormat::placements) check_columns(t, {"placement", "local_bsz", "step_time", "sync_time"});
    else check_columns(t, {"num_nodes", "num_replicas", "local_bsz", "step_time", "sync_time"});
    const SiaNames names = sia_names(in.name, opt);
    const int bsz = t.require("local_bsz");
    TimeColumns tc;
    tc.step = opt.need_times ? t.require("step_time") : t.find("step_time");
    tc.sync = t.find("sync_time");
    int placement = -1, nodes = -1, replicas = -1;
    if (p.format == ProfileFormat::placements) {
        placement = t.require("placement");
    } else {
        nodes = t.require("num_nodes");
        replicas = t.require("num_replicas");
    }
    for (size_t r = 0; r < t.rows(); ++r) {
        Sample s;
        s.app = names.app;
        s.gpu = names.gpu;
        s.where = t.where(r, 0);
        s.where.col = 1;  // the row, from its start
        if (placement >= 0) {
            parse_placement(t.cell(r, placement).text, t.where(r, placement), s);
        } else {
            s.num_nodes = count_cell(t, r, nodes, 1, limits::max_gpus);
            s.num_gpus = count_cell(t, r, replicas, 1, limits::max_gpus);
            if (s.num_gpus < s.num_nodes)
                throw DataError("num_replicas (" + std::to_string(s.num_gpus) + ") is below num_nodes (" +
                                    std::to_string(s.num_nodes) + "): every node holds at least one replica",
                                t.where(r, replicas));
            s.max_per_node = (s.num_gpus + s.num_nodes - 1) / s.num_nodes;
        }
        s.per_gpu_batch = batch_cell(t, r, bsz);
        read_times(t, r, tc, opt, s);
        p.samples.push_back(std::move(s));
    }
}

void read_own(Profile& p, const ProfileOptions& opt) {
    const io::CsvTable& t = p.table;
    check_columns(t, {"app", "gpu", "num_nodes", "num_gpus", "per_gpu_batch", "pipeline_stages", "frozen_layers",
                      "total_layers", "unfrozen_flops_fraction", "unfrozen_params_fraction", "step_time_s",
                      "sync_time_s", "fwd_time_s", "bwd_time_s"});
    const int app = t.find("app"), gpu = t.find("gpu");
    if (app < 0 && opt.app.empty())
        throw DataError("no app column: add one, or name the app of every row with --app", header_pos(t, -1));
    if (gpu < 0 && opt.gpu.empty())
        throw DataError("no gpu column: add one, or name the GPU type of every row with --gpu", header_pos(t, -1));
    // The flags name what a file leaves out; they never relabel its rows (two types' samples would be
    // fitted as one).
    for (const auto& [column, flag] : {std::pair{app, "--app"}, {gpu, "--gpu"}})
        if (column >= 0 && !(column == app ? opt.app : opt.gpu).empty())
            throw Error(Exit::usage,
                        std::string(flag) + " names the " + (column == app ? "app" : "GPU type") +
                            " of rows without that column, and this file has one: drop " + flag +
                            " (or the column)",
                        header_pos(t, column));
    const int nodes = t.require("num_nodes"), gpus = t.require("num_gpus"), batch = t.require("per_gpu_batch");
    const int frozen = t.find("frozen_layers"), layers = t.find("total_layers");
    const int stages = t.find("pipeline_stages");
    const int theta = t.find("unfrozen_flops_fraction"), omega = t.find("unfrozen_params_fraction");
    if (frozen >= 0 && layers < 0 && theta < 0)
        throw DataError("frozen_layers needs total_layers (or unfrozen_flops_fraction) to say what share still trains",
                        header_pos(t, frozen));
    TimeColumns tc;
    tc.step = opt.need_times ? t.require("step_time_s") : t.find("step_time_s");
    tc.sync = t.find("sync_time_s");
    tc.fwd = t.find("fwd_time_s");
    tc.bwd = t.find("bwd_time_s");
    for (size_t r = 0; r < t.rows(); ++r) {
        Sample s;
        s.where = t.where(r, 0);
        s.where.col = 1;  // the row, from its start
        s.app = opt.app.empty() ? t.cell(r, app).text : opt.app;
        s.gpu = opt.gpu.empty() ? t.cell(r, gpu).text : opt.gpu;
        if (s.app.empty()) throw DataError("empty app", t.where(r, app));
        if (s.gpu.empty()) throw DataError("empty gpu", t.where(r, gpu));
        s.num_nodes = count_cell(t, r, nodes, 1, limits::max_gpus);
        s.num_gpus = count_cell(t, r, gpus, 1, limits::max_gpus);
        // A blank cell of an optional column is one the row does not give: the column's default.
        const auto given = [&](int c) { return c >= 0 && !t.cell(r, c).text.empty(); };
        s.stages = !given(stages) ? 1 : count_cell(t, r, stages, 1, limits::max_layers);
        if (s.num_gpus < s.num_nodes)
            throw DataError("num_gpus (" + std::to_string(s.num_gpus) + ") is below num_nodes (" +
                                std::to_string(s.num_nodes) + ")", t.where(r, gpus));
        if (s.num_gpus % s.stages != 0)
            throw DataError("num_gpus (" + std::to_string(s.num_gpus) + ") is not a multiple of pipeline_stages (" +
                                std::to_string(s.stages) + ")", t.where(r, gpus));
        s.max_per_node = (s.num_gpus + s.num_nodes - 1) / s.num_nodes;
        s.per_gpu_batch = batch_cell(t, r, batch);
        s.frozen_layers = !given(frozen) ? 0 : count_cell(t, r, frozen, 0, limits::max_layers - 1);
        s.total_layers = !given(layers) ? 0 : count_cell(t, r, layers, 1, limits::max_layers);
        if (s.total_layers > 0 && s.frozen_layers >= s.total_layers)
            throw DataError("frozen_layers (" + std::to_string(s.frozen_layers) + ") must be below total_layers (" +
                                std::to_string(s.total_layers) + "): a job trains at least one layer",
                            t.where(r, frozen));
        if (s.frozen_layers > 0 && s.total_layers == 0 && !given(theta))
            throw DataError("frozen_layers needs total_layers (or unfrozen_flops_fraction) to say what share still trains",
                            t.where(r, layers >= 0 ? layers : frozen));
        const double share = s.total_layers > 0
                                 ? static_cast<double>(s.total_layers - s.frozen_layers) / s.total_layers
                                 : 1.0;
        s.unfrozen_flops = !given(theta) ? share : fraction_cell(t, r, theta);
        s.unfrozen_params = !given(omega) ? share : fraction_cell(t, r, omega);
        if (!(s.unfrozen_flops > 0))
            throw DataError("unfrozen_flops_fraction must be positive: a job trains at least one layer",
                            t.where(r, theta));
        // A pipeline's stages freeze their own layers, so a pipelined row that freezes anything needs
        // total_layers to split them; without frozen layers nothing is frozen in any stage.
        const bool freezes = s.frozen_layers > 0 || s.unfrozen_flops < 1 || s.unfrozen_params < 1;
        if (s.stages > 1 && freezes && s.total_layers == 0)
            throw DataError("a pipelined row with frozen layers needs total_layers: each stage's trained share "
                            "comes from the layers it holds",
                            t.where(r, frozen >= 0 ? frozen : theta >= 0 ? theta : omega));
        s.layers_where = given(layers) ? t.where(r, layers) : s.where;
        s.stages_where = given(stages) ? t.where(r, stages) : s.where;
        if (s.stages > 1 && s.total_layers > 0 && s.total_layers < s.stages)
            throw DataError("total_layers (" + std::to_string(s.total_layers) + ") is below pipeline_stages (" +
                                std::to_string(s.stages) + "): every stage holds at least one layer",
                            t.where(r, layers));
        read_times(t, r, tc, opt, s);
        p.samples.push_back(std::move(s));
    }
    // One application has one layer count, on every GPU: each row's frozen share is reckoned against
    // it (a row that does not say freezes nothing).
    check_layer_counts(p.samples);
}

}  // namespace

void check_layer_counts(const std::vector<Sample>& samples) {
    std::map<std::string, const Sample*> first;  // app -> its first row that gives total_layers
    const auto at = [](const Sample& s, const Sample& other) {  // "line N", of its file when another's
        return "line " + std::to_string(other.where.line) + (other.where.file == s.where.file ? "" : " of " + other.where.file);
    };
    for (const Sample& s : samples)
        if (s.total_layers > 0) {
            const auto [it, fresh] = first.emplace(s.app, &s);
            if (!fresh && it->second->total_layers != s.total_layers)
                throw DataError(s.app + ": total_layers " + std::to_string(s.total_layers) + " here, " +
                                    std::to_string(it->second->total_layers) + " on " + at(s, *it->second) +
                                    ": one application has one layer count",
                                s.layers_where);
        }
    for (const Sample& s : samples)
        if (const auto it = first.find(s.app); s.total_layers == 0 && it != first.end() && s.stages > it->second->total_layers)
            throw DataError("pipeline_stages (" + std::to_string(s.stages) + ") is above " + s.app + "'s total_layers (" +
                                std::to_string(it->second->total_layers) + ", " + at(s, *it->second) +
                                "): every stage holds at least one layer",
                            s.stages_where);
}

std::vector<Sample> distinct_samples(const std::vector<Sample>& samples, std::string* repeats) {
    // Times not measured (NaN) compare as -1, so that they compare at all.
    const auto time = [](double t) { return std::isnan(t) ? -1.0 : t; };
    using Key = std::tuple<std::string, std::string, int, int, int, double, int, int, double, double, double, double,
                           double, double>;
    std::map<Key, size_t> seen;  // the first copy's place in `out`
    std::vector<Sample> out;
    size_t repeated = 0;
    std::string first_repeat;
    for (const Sample& s : samples) {
        const Key key{s.app, io::folded_name(s.gpu), s.num_nodes, s.num_gpus, s.stages, s.per_gpu_batch,
                      s.frozen_layers, s.total_layers, s.unfrozen_flops, s.unfrozen_params, s.step_time_s,
                      time(s.sync_time_s), time(s.fwd_time_s), time(s.bwd_time_s)};
        const auto [at, fresh] = seen.emplace(key, out.size());
        if (fresh) {
            out.push_back(s);
            continue;
        }
        Sample& first = out[at->second];
        first.max_per_node = std::max(first.max_per_node, s.max_per_node);
        if (++repeated == 1)
            first_repeat = s.where.file + ":" + std::to_string(s.where.line) + " repeats " + first.where.file + ":" +
                           std::to_string(first.where.line);
    }
    if (repeats && repeated > 0)
        *repeats = std::to_string(repeated) + (repeated == 1 ? " profile row repeats an earlier row" : " profile rows repeat earlier rows") +
                   " exactly (configuration and times), counted once (the first: " + first_repeat + ")";
    return out;
}

std::string sia_cluster_gpu(const std::string& cluster) {
    // The Sia artifact's clusters: aws g4dn.12xlarge, azure ND40rs_v2, DGX A100 40GB, Quadro RTX 6000,
    // RTX 2080 Ti. Names are the catalog's.
    static const std::pair<const char*, const char*> map[] = {
        {"aws", "T4"},     {"azure", "V100-SXM2-32GB"},     {"dgx", "A100-40GB-SXM"}, {"dgx-ext", "A100-40GB-SXM"},
        {"quad", "RTX-6000-Turing"}, {"rtx", "RTX-2080Ti"}};
    for (const auto& [c, g] : map)
        if (cluster == c) return g;
    return "";
}

void parse_placement(const std::string& text, const SourcePos& pos, Sample& s) {
    bool ok = !text.empty() && text.size() <= 64;
    int gpus = 0, most = 0;
    for (char c : text) {
        if (c < '1' || c > '9') ok = false;
        gpus += c - '0';
        most = std::max(most, c - '0');
    }
    if (!ok)
        throw DataError("unknown placement '" + text + "': expected one digit 1-9 per node, the replicas it holds "
                        "(e.g. 12 = two nodes with 1 and 2)",
                        pos);
    s.num_nodes = static_cast<int>(text.size());
    s.num_gpus = gpus;
    s.max_per_node = most;
}

Profile read_profile(const io::TextInput& in, const ProfileOptions& opt) {
    Profile p;
    p.table = io::CsvTable::parse(in);
    const io::CsvTable& t = p.table;
    if (t.find("placement") >= 0 && t.find("local_bsz") >= 0) {
        p.format = ProfileFormat::placements;
        read_sia(p, in, opt);
    } else if (t.find("num_replicas") >= 0 && t.find("local_bsz") >= 0) {
        p.format = ProfileFormat::scalability;
        read_sia(p, in, opt);
    } else if (t.find("per_gpu_batch") >= 0) {
        p.format = ProfileFormat::hetsched;
        read_own(p, opt);
    } else {
        for (const char* column : {"per_gpu_batch", "local_bsz"}) t.check_not_commented(column);
        throw DataError("unrecognised profile header: expected placement,local_bsz,step_time,sync_time (Sia "
                        "placements), num_nodes,num_replicas,local_bsz,step_time,sync_time (Sia scalability) or "
                        "app,gpu,num_nodes,num_gpus,per_gpu_batch,...,step_time_s (hetsched)",
                        header_pos(t, -1));
    }
    if (p.samples.empty() && opt.need_times) throw DataError("no samples: the profile has a header and no rows", {in.name, 1, 1});
    return p;
}

}  // namespace hetsched::fit
