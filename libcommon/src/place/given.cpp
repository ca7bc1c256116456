#include <hetsched/place/methods.hpp>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/place/estimator.hpp>

namespace hetsched::place {

PlaceResult place_given(const Problem& p, const std::vector<size_t>& order, const std::vector<long>& layers,
                        const SourcePos& where) {
    if (layers.empty())
        throw UsageError("--method given needs each stage's layers: 'layers' on every entry of allocation.stages, "
                         "training.layers_per_stage, or --layers-per-stage");
    // A split with no position came from --layers-per-stage: a usage error (64), naming the flag.
    const bool flag = where.file.empty() && where.line == 0;
    const auto refuse = [&](const std::string& what) {
        if (flag) throw UsageError("--layers-per-stage " + what);
        throw DataError("the split " + what, where);
    };
    if (layers.size() != order.size())
        refuse("gives " + io::counted(static_cast<long>(layers.size()), "stage") + ", but the allocation has " + std::to_string(order.size()));
    long total = 0;
    for (long c : layers) total += c;
    if (total != p.layers) refuse("holds " + io::counted(total, "layer") + ", but the model has " + std::to_string(p.layers));
    PlaceResult r;
    r.placement = {order, layers};
    long first = 0;
    for (size_t s = 0; s < order.size(); ++s) {
        const StageType& t = p.types[order[s]];
        const long most = t.max_layers[s];
        if (layers[s] > most) {
            // How far over: the stage's memory with its layers against what its GPUs may fill.
            std::string over;
            if (t.memory) {
                const double need = t.memory->stage(static_cast<int>(s), first, layers[s]).total() / model::kGiB;
                over = " (" + io::format_fixed(need, 2) + " GiB against " + io::format_fixed(t.usable_gib, 2) +
                       " usable: " + io::format_fixed(need - t.usable_gib, 2) + " GiB short)";
            }
            throw Infeasible("stage " + std::to_string(s) + " (" + t.name + ") holds " + std::to_string(layers[s]) +
                             " layers, but its memory holds at most " + std::to_string(most) + over);
        }
        first += layers[s];
    }
    std::vector<StageCosts> costs;
    Schedule schedule;
    r.iteration_s = iteration_time(p, r.placement, costs, schedule);
    r.evaluated = 1;
    return r;
}

}  // namespace hetsched::place
