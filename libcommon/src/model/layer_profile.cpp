#include <hetsched/model/layer_profile.hpp>

#include <cctype>
#include <set>

#include <hetsched/catalog/known_keys.hpp>
#include <hetsched/cli/error.hpp>
#include <hetsched/io/names.hpp>
#include <hetsched/model/training.hpp>

namespace hetsched::model {
namespace {

/// "1, 2, 4": the values a profile's rows are at, for messages.
template <typename Set>
std::string listed(const Set& values) {
    std::string out;
    for (const auto v : values) out += (out.empty() ? "" : ", ") + std::to_string(v);
    return out;
}

bool all_digits(const std::string& s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    return true;
}

}  // namespace

const ProfiledTimes& LayerProfile::complete(const std::string& gpu) const {
    auto it = by_gpu.find(gpu);
    if (it == by_gpu.end()) {
        auto other = other_micro_batches.find(gpu);
        if (const auto at_tp = other_tps.find(gpu); at_tp != other_tps.end() && other == other_micro_batches.end()) {
            throw DataError("no row for " + gpu + " measured at the allocation's tp " + std::to_string(tp_wanted) +
                                " (its rows are at tp " + listed(at_tp->second.degrees) + "; profiles are not rescaled)",
                            at_tp->second.where);
        }
        if (other == other_micro_batches.end()) {
            std::string left;  // a misspelt type's rows were left out where its suggestion names this one
            for (const auto& w : warnings)
                if (w.find("'" + gpu + "'") != std::string::npos) left += "; " + w;
            throw DataError("profile " + source + " has no rows for " + gpu + left);
        }
        throw DataError("no row for " + gpu + " measured with the job's micro-batch " + std::to_string(micro_batch) +
                            " (its rows are at " + listed(other->second.micro_batches) + "; profiles are not rescaled)",
                        other->second.where);
    }
    for (size_t i = 0; i < it->second.forward.size(); ++i)
        if (it->second.forward[i] < 0)
            throw DataError("profile " + source + " has no row for layer " + std::to_string(i) + " on " + gpu +
                            " (give every layer, or one row with layer '*')");
    return it->second;
}

LayerProfile read_layer_profile(const io::CsvTable& table, long layers, long micro_batch,
                                const catalog::GpuCatalog& catalog, int tp) {
    // A column the reader does not know (a unit, a misspelt micro_batch) would be ignored silently.
    catalog::check_known_columns(table, {"gpu", "layer", "micro_batch", "forward_s", "backward_s", "tp"});
    const int gpu = table.require("gpu"), layer = table.require("layer");
    const int fwd = table.require("forward_s"), bwd = table.require("backward_s");
    const int mb = table.find("micro_batch"), split = table.find("tp");
    LayerProfile out;
    out.source = table.name();
    // A profile may time several micro-batches: the job's rows are used, as times are not rescaled.
    std::vector<long> row_mb;
    if (mb >= 0)
        for (size_t r = 0; r < table.rows(); ++r) row_mb.push_back(table.integer(r, mb, 1, limits::global_batch));
    const std::set<long> measured(row_mb.begin(), row_mb.end());
    if (mb >= 0 && table.rows() > 0 && !measured.count(micro_batch)) {
        throw DataError("no row measured with the job's micro-batch " + std::to_string(micro_batch) +
                            " (the profile has " + listed(measured) + "; profiles are not rescaled)",
                        table.where(0, mb));
    }
    out.micro_batch = micro_batch;
    out.tp_wanted = tp;
    bool first = true;
    for (size_t r = 0; r < table.rows(); ++r) {
        // A profile may time more types than the catalog has: their rows are left out, told once a
        // type (a stage on a type without rows is refused where its times are asked for).
        const catalog::GpuType* type = catalog.lookup(table.cell(r, gpu).text);
        if (!type) {
            const std::string& unknown = table.cell(r, gpu).text;
            if (out.left_out.insert(unknown).second) {
                try {
                    catalog.find(unknown);
                } catch (const UsageError& e) {
                    out.warnings.push_back(describe(DataError(std::string(e.what()) + "; its rows are left out", table.where(r, gpu))));
                }
            }
            continue;
        }
        const std::string name = type->name;
        // Rows of another tp than the allocation's (when told it) are not these, whatever their micro-batch.
        if (split >= 0 && tp > 0) {
            const int row_tp = static_cast<int>(table.integer(r, split, 1, limits::degree));
            if (row_tp != tp) {
                auto& other = out.other_tps[name];
                if (other.degrees.empty()) other.where = table.where(r, split);
                other.degrees.insert(row_tp);
                continue;
            }
        }
        if (mb >= 0 && row_mb[r] != micro_batch) {
            auto& other = out.other_micro_batches[name];
            if (other.micro_batches.empty()) other.where = table.where(r, mb);
            other.micro_batches.insert(row_mb[r]);
            continue;
        }
        if (split >= 0) {
            const int row_tp = static_cast<int>(table.integer(r, split, 1, limits::degree));
            if (!first && row_tp != out.tp)
                throw DataError("row measured at tp " + table.cell(r, split).text + ", the rows above at tp " +
                                    std::to_string(out.tp) + " (one tp a profile)",
                                table.where(r, split));
            out.tp = row_tp;
        }
        first = false;
        const double f = table.number(r, fwd, limits::min_time_s, limits::max_time_s),
                     b = table.number(r, bwd, limits::min_time_s, limits::max_time_s);
        ProfiledTimes& times = out.by_gpu[name];
        if (times.forward.empty()) {
            times.forward.assign(static_cast<size_t>(layers), -1);
            times.backward.assign(static_cast<size_t>(layers), -1);
        }
        const std::string& which = table.cell(r, layer).text;
        auto set = [&](double& fs, double& bs) {
            if (fs >= 0) throw DataError("a second row for layer '" + which + "' on " + name, table.where(r, layer));
            fs = f, bs = b;
        };
        const std::string word = io::folded_name(which);  // Embedding, OUTPUT
        if (word == "embedding") set(times.head_forward, times.head_backward);
        else if (word == "output") set(times.tail_forward, times.tail_backward);
        else if (which == "*")
            for (long i = 0; i < layers; ++i) set(times.forward[static_cast<size_t>(i)], times.backward[static_cast<size_t>(i)]);
        else if (all_digits(which) && which.size() < 10 && std::stol(which) < layers)
            set(times.forward[static_cast<size_t>(std::stol(which))], times.backward[static_cast<size_t>(std::stol(which))]);
        else
            throw DataError("expected a layer index 0-" + std::to_string(layers - 1) + ", '*', 'embedding' or 'output', got '" +
                                which + "'",
                            table.where(r, layer));
    }
    if (first && !out.other_tps.empty()) {
        std::set<int> degrees;  // every type's, as none has a row at the allocation's
        for (const auto& [name, other] : out.other_tps) degrees.insert(other.degrees.begin(), other.degrees.end());
        throw DataError("no row measured at the allocation's tp " + std::to_string(tp) + " (the profile's rows are at tp " +
                            listed(degrees) + "; profiles are not rescaled)",
                        table.where(0, split));
    }
    return out;
}

}  // namespace hetsched::model
