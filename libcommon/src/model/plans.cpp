#include <hetsched/model/plans.hpp>

#include <algorithm>
#include <tuple>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/comma_list.hpp>
#include <hetsched/model/stage_memory.hpp>
#include <hetsched/model/step_time.hpp>
#include <hetsched/model/transformer.hpp>

namespace hetsched::model {
namespace {

constexpr long kMaxPp = 64;                ///< deepest pipeline enumerated
constexpr long kMaxMicroBatch = 1024;      ///< largest micro-batch enumerated

std::vector<long> divisors(long n, long cap) {
    std::vector<long> out;
    for (long d = 1; d <= n && d <= cap; ++d)
        if (n % d == 0) out.push_back(d);
    return out;
}

}  // namespace

double busiest_stage_layers(long layers, long pp, double tail) {
    if (pp <= 1) return static_cast<double>(layers) + tail;
    double best = static_cast<double>(layers) + tail;
    for (long last = 1; last <= layers - (pp - 1); ++last) {  // every stage holds a layer at least
        const long rest = layers - last, others = pp - 1;
        best = std::min(best, std::max(static_cast<double>((rest + others - 1) / others), last + tail));
    }
    return best;
}

double rough_iteration_s(const catalog::ModelSpec& m, const Training& t, const Layout& l, const catalog::GpuType& g,
                         const Network& net) {
    const MicroBatchWork f = micro_batch_work(m, t, t.global_batch / l.dp);
    const double tflops = matmul_tflops(g, t), split = l.tp * l.cp;
    // A data-parallel rank's whole batch through one layer, and through the logits and loss.
    double layer_s = roofline_s(g, tflops, (f.layer_forward + f.layer_backward) / split,
                                (f.layer_forward_bytes + f.layer_backward_bytes) / split, kDefaultEfficiency);
    const double tail_s = roofline_s(g, tflops, (f.tail_forward + f.tail_backward) / split, 0, kDefaultEfficiency);
    // Placed as placestages places stages: a stage's dp x tp GPUs fill nodes in pipeline order, so some
    // send crosses nodes once the pipeline outgrows a node, where the node's GPUs share its network:
    // the slowest link paces the pipeline.
    const int gpus = l.dp * l.tp * l.cp;
    const StageNetwork sn = stage_network(g, net, gpus, l.tp);
    const double link = sn.intra_bytes_s;
    // Tensor parallelism all-reduces a layer's output twice in its forward and twice in its backward,
    // within the layer's time (so in the pipeline's fill and drain too, as placestages times it).
    if (l.tp > 1) layer_s += ring_allreduce_s(4.0 * boundary_bytes(m, t, t.global_batch / l.dp), l.tp, link);
    const double boundary = boundary_bytes(m, t, l.micro_batch) / (l.tp * l.cp);
    // Whole stages to a node (a stage wider than a node has nodes of its own): the links between
    // stages that leave a node.
    const long crossings = (l.pp + sn.stages_per_node - 1) / sn.stages_per_node - 1;
    const double near_s = boundary / link, far_s = boundary / sn.cross_bytes_s();
    const double send_s = crossings > 0 ? far_s : near_s;  // the slowest link
    // 1F1B: one micro-batch through every stage and back (the fill and drain, a send each way between
    // stages), then the others at the pace of the busiest stage, or of a send where that is longer.
    const double mbs = static_cast<double>(l.micro_batches(t.global_batch));
    const double tail = layer_s > 0 ? tail_s / layer_s : 0;  // the logits and loss, in layers
    double busiest = busiest_stage_layers(m.layers, l.pp, tail);
    if (static_cast<long>(l.layers_per_stage.size()) == l.pp) {  // the split given, not the best one
        busiest = 0;
        for (std::size_t i = 0; i < l.layers_per_stage.size(); ++i)
            busiest = std::max(busiest, static_cast<double>(l.layers_per_stage[i]) + (i + 1 == l.layers_per_stage.size() ? tail : 0));
    }
    const double through = (static_cast<double>(m.layers) * layer_s + tail_s) / mbs +
                           2.0 * (static_cast<double>(crossings) * far_s + static_cast<double>(l.pp - 1 - crossings) * near_s);
    // Where 1F1B interleaves (stage i runs k - i - 1 warm-up forwards, fewer than the micro-batches),
    // a stage's next backward waits for its last forward's round trip to the pipeline's end: the k - i
    // stages from stage i hold k - i micro-batches, so their compute and the sends both ways between
    // them, shared out over those, bound its pace too (a slow crossing near the end dominates).
    double per_micro_batch = std::max(busiest * layer_s / mbs, l.pp > 1 ? send_s : 0.0);
    const double stage_s = (static_cast<double>(m.layers) * layer_s + tail_s) / mbs / static_cast<double>(l.pp);
    double sends = 0;  // both ways over the links from stage i to the end
    for (long i = l.pp - 2; i >= 0; --i) {
        sends += 2.0 * ((i + 1) % sn.stages_per_node == 0 ? far_s : near_s);
        if (l.pp - i >= static_cast<long>(mbs)) break;  // every forward first from here up: no round trip waits
        const double in_flight = static_cast<double>(l.pp - i);
        per_micro_batch = std::max(per_micro_batch, (static_cast<double>(l.pp - i) * stage_s + sends) / in_flight);
    }
    double time = through + per_micro_batch * (mbs - 1);
    time += optimizer_step_s(g, t, l.dp, total_params(m) / (l.tp * l.pp));
    // Megatron-LM's and DeepSpeed's pipelines all-reduce the tied word embedding's gradient between the
    // first and the last stage (torchtitan's do not tie across stages).
    if (m.tied_embeddings && l.pp > 1 && t.framework != Framework::fsdp) {
        const double rows = static_cast<double>(padded_vocab(m, l.tp, pads_vocab(m, t))) * static_cast<double>(m.hidden) / l.tp;
        time += ring_allreduce_s(rows * gradient_sync(t).tied_bytes_per_param, 2, crossings > 0 ? sn.cross_bytes_s() : link);
    }
    if (l.dp > 1) {  // gradient sync of this rank's parameters
        const GradientSync sync = gradient_sync(t);
        const double bytes = total_params(m) / (l.tp * l.pp) * sync.bytes_per_param * sync.allreduce_equivalents;
        time += ring_allreduce_s(bytes, l.dp, sn.allreduce_bytes_s);
    }
    return time;
}

std::string PrecisionLeftOut::text() const {
    std::string out;
    for (const auto& [why, names] : reasons) out += (out.empty() ? "" : "; ") + io::join(names) + ": " + why;
    return out;
}

PrecisionLeftOut precision_left_out(const Training& t, const catalog::GpuCatalog& c) {
    PrecisionLeftOut out;
    for (const auto& g : c.gpus) {
        std::string why = precision_unsupported(on_gpu(t, g));
        if (why.empty()) continue;
        out.types.push_back(g.name);
        auto same = std::find_if(out.reasons.begin(), out.reasons.end(), [&](const auto& r) { return r.first == why; });
        if (same == out.reasons.end()) out.reasons.push_back({why, {g.name}});
        else same->second.push_back(g.name);
    }
    return out;
}

std::vector<Plan> enumerate_plans(const catalog::ModelSpec& m, const Training& t, const catalog::GpuCatalog& c,
                                  const PlanOptions& o) {
    if (o.layout)
        validate(m, t, *o.layout);
    else
        validate(m, t);
    check_micro_batch(t, o.micro_batch);
    std::vector<Plan> plans;
    for (const auto& g : c.gpus) {
        const Training on_type = on_gpu(t, g);
        if (!precision_unsupported(on_type).empty()) continue;  // no plan in a precision the type cannot run
        const int cap = std::min(o.max_gpus, g.quota >= 0 ? g.quota : o.max_gpus);  // quota 0: none of it
        if (cap < 1) continue;
        const double usable = g.memory_gib * o.usable_fraction;
        if (o.layout) {  // one layout: the type holds it or not
            const Layout& l = *o.layout;
            if (l.gpus() > cap || l.tp > (o.max_tp > 0 ? o.max_tp : g.gpus_per_node)) continue;
            const double bytes = estimate_memory(m, on_type, l, o.measure, o.method).peak_bytes();
            if (bytes / kGiB <= usable)
                plans.push_back({g.name, l, bytes / kGiB, usable, rough_iteration_s(m, on_type, l, g, o.network)});
            continue;
        }
        const int max_tp = o.max_tp > 0 ? o.max_tp : g.gpus_per_node;
        for (int tp = 1; tp <= max_tp; tp *= 2) {
            if (m.heads % tp || m.ffn_hidden % tp || m.kv_heads % tp) continue;
            // Any pipeline depth up to kMaxPp: uneven layer splits are allowed (the extra layers go to
            // the last stages, which hold the fewest micro-batches).
            const long max_pp = can_pipeline(t) ? std::min<long>({m.layers, cap / tp, kMaxPp}) : 1;
            for (long pp = 1; pp <= max_pp; ++pp) {
                for (long dp : divisors(t.global_batch, cap / (tp * pp))) {
                    // Not a plan in the job's precision: torchtitan would train it in fp32.
                    if (torchtitan_trains_fp32(on_type, Layout{tp, static_cast<int>(pp), static_cast<int>(dp), 1, 1, 1, {}}))
                        continue;
                    // The job's own micro-batch when it sets one (frenzy's formula has none).
                    const long per_rank = t.global_batch / dp;
                    const bool pinned = o.micro_batch > 0 && o.method != Method::frenzy;
                    const std::vector<long> mbs = !pinned ? divisors(per_rank, kMaxMicroBatch)
                                                  : per_rank % o.micro_batch == 0 ? std::vector<long>{o.micro_batch}
                                                                                  : std::vector<long>{};
                    for (long mb : mbs) {
                        Layout l{tp, static_cast<int>(pp), static_cast<int>(dp), 1, 1, mb, {}};
                        // The paper's formula has no micro-batch or pipeline: one plan per (tp, dp).
                        const bool frenzy = o.method == Method::frenzy;
                        if (frenzy && (pp != 1 || mb != t.global_batch / dp)) continue;
                        const double bytes = estimate_memory(m, on_type, l, o.measure, o.method).peak_bytes();
                        // Larger micro-batches need more, but for the largest (one micro-batch a rank):
                        // ZeRO's and FSDP2's gradients do not exist yet when its loss back-propagates.
                        if (bytes / kGiB > usable) {
                            if (mb != per_rank && mbs.back() == per_rank) {
                                const Layout one{tp, static_cast<int>(pp), static_cast<int>(dp), 1, 1, per_rank, {}};
                                const double b = estimate_memory(m, on_type, one, o.measure, o.method).peak_bytes();
                                if (b / kGiB <= usable)
                                    plans.push_back({g.name, one, b / kGiB, usable, rough_iteration_s(m, on_type, one, g, o.network)});
                            }
                            break;
                        }
                        plans.push_back({g.name, l, bytes / kGiB, usable, rough_iteration_s(m, on_type, l, g, o.network)});
                    }
                }
            }
        }
    }
    auto key = [](const Plan& p) {
        return std::make_tuple(p.layout.gpus(), p.iteration_s, p.gpu, p.layout.tp, p.layout.pp, p.layout.dp,
                               p.layout.micro_batch);
    };
    std::sort(plans.begin(), plans.end(), [&](const Plan& a, const Plan& b) { return key(a) < key(b); });
    return plans;
}

}  // namespace hetsched::model
