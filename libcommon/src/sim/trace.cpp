#include <hetsched/sim/trace.hpp>

#include <sstream>
#include <unordered_set>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/csv_table.hpp>
#include <hetsched/io/names.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/io/number_range.hpp>
#include <hetsched/model/training.hpp>

namespace hetsched::sim {
namespace {

constexpr double kMaxTime = 1e12;
constexpr long kMaxGpus = 1L << 20;

/// Gavel's trace: ten tab-separated fields per line. A first line split more by tabs than by commas
/// is taken for one (read_gavel then says how many of its fields it has), not for a CSV header.
bool gavel_shaped(const std::string& text) {
    const std::string first = text.substr(0, text.find('\n'));
    size_t tabs = 0, commas = 0;
    for (char c : first) tabs += c == '\t', commas += c == ',';
    return tabs > 0 && tabs >= commas;
}

double field_number(const std::string& v, const std::string& what, double lo, double hi, const SourcePos& at) {
    const auto x = io::parse_finite(v);
    if (!x || *x < lo || *x > hi)
        throw DataError(io::expected_number(lo, hi) + " for '" + what + "', got '" + io::shown_value(v) + "'", at);
    return *x;
}

std::vector<TraceJob> read_gavel(const io::TextInput& in) {
    std::vector<TraceJob> out;
    std::istringstream lines(in.text);
    std::string line;
    for (int n = 1; std::getline(lines, line); ++n) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        std::vector<std::string> f;
        std::istringstream cells(line);
        for (std::string c; std::getline(cells, c, '\t');) f.push_back(c);
        std::vector<int> col{1};  // where each field starts
        for (const auto& c : f) col.push_back(col.back() + static_cast<int>(c.size()) + 1);
        auto field = [&](size_t i) { return SourcePos{in.name, n, col[i]}; };
        if (f.size() != 10)  // at the line's end, or at its first field too many
            throw DataError("a tab-separated line, read as Gavel's trace, has " + std::to_string(f.size()) +
                                " fields, not its 10 (job type, command, working directory, num-steps argument, "
                                "needs data dir, total steps, scale factor, priority weight, SLO, arrival time)",
                            f.size() < 10 ? SourcePos{in.name, n, col.back() - 1} : field(10));
        TraceJob j;
        j.id = "job" + std::to_string(out.size());
        j.model = f[0];
        j.steps = field_number(f[5], "total steps", 1e-9, 1e18, field(5));
        const auto sf = io::parse_whole(f[6], 1, kMaxGpus);
        if (!sf)
            throw DataError(io::expected_integer(1, kMaxGpus) + " for 'scale factor', got '" + io::shown_value(f[6]) + "'",
                            field(6));
        j.num_gpus = static_cast<int>(*sf);
        j.priority_weight = field_number(f[7], "priority weight", 1e-6, 1e6, field(7));
        j.submit_time_s = field_number(f[9], "arrival time", 0, kMaxTime, field(9));
        j.line = n;
        j.submit_col = col[9];
        j.model_col = col[0];
        out.push_back(j);
    }
    return out;
}

/// Sia's and Pollux's workloads: `name,time,application,num_replicas,batch_size`.
std::vector<TraceJob> read_sia(const io::CsvTable& t) {
    const int name = t.require("name"), time = t.require("time"), app = t.require("application"),
              replicas = t.require("num_replicas"), batch = t.require("batch_size");
    std::vector<TraceJob> out;
    for (size_t r = 0; r < t.rows(); ++r) {
        TraceJob j;
        j.id = t.cell(r, name).text;
        if (j.id.empty()) throw DataError("expected a job name", t.where(r, name));
        j.submit_time_s = t.number(r, time, 0, kMaxTime);
        j.model = t.cell(r, app).text;
        if (j.model.empty()) throw DataError("expected an application", t.where(r, app));
        j.num_gpus = static_cast<int>(t.integer(r, replicas, 1, kMaxGpus));
        j.batch_size = t.positive(r, batch, 1e12);
        j.line = t.cell(r, name).line;
        j.id_col = t.where(r, name).col;
        j.submit_col = t.where(r, time).col;
        j.model_col = t.where(r, app).col;
        out.push_back(j);
    }
    return out;
}

/// Columns not read that look like a slip of one that is (memory_gb for memory_gib, modle for model):
/// the trace runs without what they meant, so each gets a warning.
void warn_near_misses(const io::CsvTable& t, const std::vector<std::string>& known, std::vector<std::string>* out) {
    if (!out) return;
    for (const auto& h : t.header())
        if (std::string w = io::near_miss_warning(h.text, known, {t.name(), h.line, h.col}, "column", "is not read");
            !w.empty())
            out->push_back(std::move(w));
}

std::vector<TraceJob> read_csv(const io::TextInput& in, std::vector<std::string>* warnings) {
    const io::CsvTable t = io::CsvTable::parse(in);
    if (t.find("application") >= 0 && t.find("num_replicas") >= 0) {
        warn_near_misses(t, {"name", "time", "application", "num_replicas", "batch_size"}, warnings);
        return read_sia(t);
    }
    warn_near_misses(t, {"job_id", "submit_time_s", "num_gpus", "duration_s", "model", "memory_gib"}, warnings);
    const int id = t.require("job_id"), submit = t.require("submit_time_s"), gpus = t.require("num_gpus"),
              duration = t.require("duration_s"), model = t.find("model"), memory = t.find("memory_gib");
    std::vector<TraceJob> out;
    for (size_t r = 0; r < t.rows(); ++r) {
        TraceJob j;
        j.id = t.cell(r, id).text;
        if (j.id.empty()) throw DataError("expected a job id", t.where(r, id));
        j.submit_time_s = t.number(r, submit, 0, kMaxTime);
        j.num_gpus = static_cast<int>(t.integer(r, gpus, 1, kMaxGpus));
        j.duration_s = t.positive(r, duration, kMaxTime);
        if (model >= 0) j.model = t.cell(r, model).text;
        if (memory >= 0 && t.cell(r, memory).text.find_first_not_of(" \t") != std::string::npos)
            j.memory_gib = t.number(r, memory, 0.01, hetsched::model::limits::max_memory_gib);
        j.line = t.cell(r, id).line;
        j.id_col = t.where(r, id).col;
        j.submit_col = t.where(r, submit).col;
        if (model >= 0) j.model_col = t.where(r, model).col;
        out.push_back(j);
    }
    return out;
}

}  // namespace

std::vector<TraceJob> read_trace(const io::TextInput& in, std::vector<std::string>* warnings) {
    std::vector<TraceJob> jobs = gavel_shaped(in.text) ? read_gavel(in) : read_csv(in, warnings);
    std::unordered_set<std::string> ids;
    for (size_t k = 0; k < jobs.size(); ++k) {
        const TraceJob& j = jobs[k];
        if (!ids.insert(j.id).second)
            throw DataError("job '" + escape_control(j.id) + "' is listed twice", {in.name, j.line, j.id_col});
        if (k > 0 && j.submit_time_s < jobs[k - 1].submit_time_s)
            throw DataError("job '" + escape_control(j.id) + "' is submitted at " + io::format_number(j.submit_time_s) +
                                " s, before the job above it: a trace must be in submission order",
                            {in.name, j.line, j.submit_col});
    }
    if (jobs.empty()) throw DataError("the trace has no jobs", {in.name, 1, 1});
    return jobs;
}

}  // namespace hetsched::sim
