#include <hetsched/place/problem_builder.hpp>

#include <algorithm>
#include <limits>
#include <memory>

#include <hetsched/io/number_format.hpp>
#include <hetsched/model/job_document.hpp>
#include <hetsched/model/stage_memory.hpp>
#include <hetsched/model/transformer.hpp>

namespace hetsched::place {
namespace {

using model::kGiB;

/// Seconds per micro-batch on one type, from the compute model or the profile.
/// `tp_sync_s`: the tensor-parallel all-reduces of one layer's forward (its backward has as many).
/// A profile's backward_s is a layer's backward without recomputation: under the job's recompute,
/// `replay` (the share of a layer's forward its backward replays: 1 under full recompute of every
/// layer, the replayed operators' share under selective) of its forward_s is added.
void fill_times(StageType& st, const catalog::GpuType& g, double tflops, const model::MicroBatchWork& work,
                double replay, long layers, const ProblemOptions& o, int tp, double tp_sync_s) {
    const double speed = tflops * 1e12 * o.efficiency;
    st.forward.assign(static_cast<size_t>(layers) + 1, 0);
    st.backward.assign(static_cast<size_t>(layers) + 1, 0);
    st.tail_forward = work.tail_forward / tp / speed;
    st.tail_backward = work.tail_backward / tp / speed;
    st.tflops = tflops;
    const model::ProfiledTimes* prof = o.profile ? &o.profile->complete(g.name) : nullptr;
    const double forward =
        model::roofline_s(g, tflops, work.layer_forward / tp, work.layer_forward_bytes / tp, o.efficiency) + tp_sync_s;
    const double backward =
        model::roofline_s(g, tflops, work.layer_backward / tp, work.layer_backward_bytes / tp, o.efficiency) + tp_sync_s;
    for (size_t i = 0; i < static_cast<size_t>(layers); ++i) {
        st.forward[i + 1] = st.forward[i] + (prof ? prof->forward[i] : forward);
        st.backward[i + 1] = st.backward[i] + (prof ? prof->backward[i] + replay * prof->forward[i] : backward);
    }
    if (!prof) return;
    if (prof->head_forward >= 0) st.head_forward = prof->head_forward, st.head_backward = prof->head_backward;
    if (prof->tail_forward >= 0) st.tail_forward = prof->tail_forward, st.tail_backward = prof->tail_backward;
    // F(t) for CMR and balancing: the TFLOPS the profile shows the type achieving, as peak x efficiency
    // would be for the compute model.
    st.tflops = work.layer_forward / tp * static_cast<double>(layers) / st.forward.back() / 1e12 / o.efficiency;
}

}  // namespace

ProblemOptions problem_options(ProblemOptions po, double inter_node_gb_s, const io::YamlDocument& doc,
                               const catalog::GpuCatalog& c) {
    po.network.inter_node_gb_s = c.inter_node_gb_s;
    po.network = model::read_network(doc, po.network);
    if (inter_node_gb_s > 0) po.network.inter_node_gb_s = inter_node_gb_s;
    return po;
}

ProblemOptions with_planned_settings(ProblemOptions po, const Allocation& a) {
    if (!po.schedule) po.schedule = a.schedule;  // --schedule, else the plan's, else the framework's
    if (!po.given.measure && a.measure) po.measure = *a.measure;
    if (!po.given.usable_fraction && a.usable_fraction) po.usable_fraction = *a.usable_fraction;
    if (!po.given.efficiency && a.efficiency) po.efficiency = *a.efficiency;
    return po;
}

long micro_batch_of(const model::JobSpec& job) { return job.micro_batch > 0 ? job.micro_batch : 1; }

std::string precision_unsupported_on(const model::Training& on_type, const catalog::GpuType& g) {
    const std::string why = model::precision_unsupported(on_type);
    return why.empty() ? why : g.name + " (compute capability " + io::format_fixed(on_type.compute_capability, 1) + "): " + why;
}

std::string precision_unsupported_on(const model::JobSpec& job, const catalog::GpuType& g) {
    return precision_unsupported_on(model::on_gpu(job.training, g), g);
}

model::Layout checked_layout(const model::JobSpec& job, int dp, int stages, int tp, model::Measure measure,
                             const SourcePos& where) {
    const auto& m = job.model;
    if (stages > m.layers)
        throw DataError("the allocation has " + io::counted(stages, "stage") + " but " + m.name + " has only " +
                            std::to_string(m.layers) + " layers",
                        where);
    const model::Layout layout{tp, stages, dp, 1, 1, micro_batch_of(job), {}};
    try {
        model::StageMemoryModel(m, job.training, layout, measure);  // the layout suits the job
    } catch (const DataError& e) {
        throw DataError(e.what(), where);
    }
    return layout;
}

ProblemFactory::ProblemFactory(const model::JobSpec& job, int dp, int stages, const catalog::GpuCatalog& c,
                               const ProblemOptions& o, const SourcePos& where, int tp, const SourcePos& tp_where)
    : catalog_(c), options_(o), dp_(dp), stages_(stages), tp_(tp), where_(where),
      tp_where_(tp_where.file.empty() ? where : tp_where) {
    const auto& m = job.model;
    const long L = m.layers, mb = micro_batch_of(job);
    layout_ = checked_layout(job, dp, stages, tp, o.measure, where);
    model_ = m;
    base_.model = m.name;
    base_.layers = L;
    base_.dp = dp;
    base_.tp = tp;
    base_.micro_batches = layout_.micro_batches(job.training.global_batch);
    base_.schedule = o.schedule.value_or(default_schedule(job.training));
    const bool pad = model::pads_vocab(m, job.training);
    base_.layer_params = model::layer_params(m, tp);
    base_.head_params = model::embedding_params(m, tp, pad);
    base_.tail_params = model::output_params(m, tp, stages, pad);
    training_ = job.training;
    const model::GradientSync sync = model::gradient_sync(job.training);
    per_param_ = sync.bytes_per_param * sync.allreduce_equivalents;
    // Megatron-LM and DeepSpeed's pipelines keep the tied embedding on the first stage and its copy as
    // the output layer on the last, and all-reduce its gradient between the two after every backward
    // (DeepSpeed's ReduceTiedGrads before the data-parallel reduction, Megatron-LM's after it), in the
    // precision they reduce gradients in. torchtitan's pipelines do not tie weights across stages.
    const bool ties = m.tied_embeddings && stages > 1 && job.training.framework != model::Framework::fsdp;
    // Only the word embedding is tied (not a learned position table): each tp rank's rows of it.
    const double word_rows = static_cast<double>(model::padded_vocab(m, tp, pad)) * static_cast<double>(m.hidden) / tp;
    tied_bytes_ = ties ? word_rows * sync.tied_bytes_per_param : 0;
    base_.tied_before_allreduce = job.training.framework == model::Framework::deepspeed;
    // With tensor parallelism each rank sends its 1/tp share (Megatron's scatter-gather), and every
    // layer all-reduces its output twice forward and twice backward within the node.
    boundary_ = model::boundary_bytes(m, job.training, mb) / tp;
    layer_sync_bytes_ = model::boundary_bytes(m, job.training, mb);
    inter_ = model::inter_node_bytes_s(o.network);
}

const StageType& ProblemFactory::type(const std::string& name) {
    const catalog::GpuType& g = catalog_.find(name);
    for (const auto& [t, per_node] : types_)
        if (t.name == g.name) return t;
    const long L = base_.layers;
    const model::Training on_type = model::on_gpu(training_, g);
    if (const std::string why = precision_unsupported_on(on_type, g); !why.empty()) throw DataError(why, where_);
    StageType st;
    st.memory = std::make_shared<model::StageMemoryModel>(model_, on_type, layout_, options_.measure);
    const auto& memory = *st.memory;
    st.name = g.name;
    st.memory_gib = g.memory_gib;
    st.usable_gib = g.memory_gib * options_.usable_fraction;
    const double capacity = st.usable_gib * kGiB;
    st.first_layer_gib = 1e300;
    for (int pos = 0; pos < stages_; ++pos) {
        st.max_layers.push_back(memory.max_layers(pos, capacity, L - stages_ + 1));
        const double one = memory.stage(pos, 0, 1).total();
        if (one / kGiB < st.first_layer_gib) {
            st.first_layer_gib = one / kGiB;
            // From the second layer to the third: FSDP's pipeline stream pools (stream_pools) grow from
            // one block to two between the first two.
            st.per_layer_gib = (memory.stage(pos, 0, 3).total() - memory.stage(pos, 0, 2).total()) / kGiB;
        }
    }
    if (options_.profile && options_.profile->tp != tp_)
        throw DataError("profile '" + options_.profile->source + "' has times measured at tp " +
                            std::to_string(options_.profile->tp) +
                            (options_.profile->tp == 1 ? " (it has no tp column: whole layers on one GPU)" : "") +
                            ", the allocation uses tp " + std::to_string(tp_) + " (profiles are not rescaled)",
                        tp_where_);
    if (tp_ > g.gpus_per_node)
        throw DataError("tp " + std::to_string(tp_) + " needs " + std::to_string(tp_) + " GPUs in one node, but a node of " +
                            g.name + " has " + std::to_string(g.gpus_per_node),
                        tp_where_);
    const double intra = model::intra_node_bytes_s(g, options_.network);
    // On the type's own compute capability: below 8.0 Transformer Engine runs attention unfused.
    const model::MicroBatchWork work = model::micro_batch_work(model_, on_type, layout_.micro_batch);
    model::Training plain = on_type;
    plain.recompute = model::Recompute::none;
    const double replay =
        (work.layer_backward - model::micro_batch_work(model_, plain, layout_.micro_batch).layer_backward) / work.layer_forward;
    fill_times(st, g, model::matmul_tflops(g, training_), work, replay, L, options_, tp_,
               2 * model::ring_allreduce_s(layer_sync_bytes_, tp_, intra));
    st.optimizer_s_per_param = model::optimizer_step_s(g, training_, dp_, 1.0);
    // The stage's dp x tp GPUs all-reduce within a node when they fit in one, else across nodes;
    // a type's stages fill its nodes in pipeline order, so adjacent stages of it share a node unless
    // the first one fills its node (Problem::transfer_s).
    const int gpus = dp_ * tp_;
    // A node of this type reaches other nodes through its own network where the catalog gives one.
    const model::StageNetwork net = model::stage_network(g, options_.network, gpus, tp_);
    st.nic_bytes_s = net.nic_bytes_s;
    st.allreduce_s_per_param = model::ring_allreduce_s(per_param_, dp_, net.allreduce_bytes_s);
    st.tied_alone_s = tied_sync_s(stages_ * gpus <= g.gpus_per_node ? intra : net.cross_bytes_s());
    st.node_link_s = boundary_ / net.cross_bytes_s();
    st.stages_per_node = net.stages_per_node;  // 1 when a stage spans nodes: every link crosses
    st.link_s = st.stages_per_node >= 2 ? boundary_ / intra : st.node_link_s;
    types_.emplace_back(std::move(st), g.gpus_per_node);
    return types_.back().first;
}

Problem ProblemFactory::problem(const std::vector<std::string>& names, const std::vector<int>& counts) {
    Problem p = base_;
    int widest_node = 1, total = 0;
    for (size_t i = 0; i < names.size(); ++i) {
        if (counts[i] <= 0) continue;
        const StageType& t = type(names[i]);
        auto it = std::find_if(p.types.begin(), p.types.end(), [&](const StageType& x) { return x.name == t.name; });
        if (it != p.types.end()) {
            it->stages += counts[i];
        } else {
            p.types.push_back(t);
            p.types.back().stages = counts[i];
        }
        for (const auto& [built, per_node] : types_)
            if (built.name == t.name) widest_node = std::max(widest_node, per_node);
        total += counts[i];
    }
    if (total != stages_)
        throw DataError("expected " + io::counted(stages_, "stage") + ", got " + std::to_string(total));
    // Between nodes of two types, the slower of their networks, shared by the GPUs on a node.
    const double share = std::min(dp_ * tp_, widest_node);
    const size_t n = p.types.size();
    double slowest = std::numeric_limits<double>::infinity();
    p.cross_links.assign(n * n, 0);
    for (size_t a = 0; a < n; ++a) {
        slowest = std::min(slowest, p.types[a].nic_bytes_s);
        for (size_t b = 0; b < n; ++b)
            if (a != b)
                p.cross_links[a * n + b] = boundary_ / (std::min(p.types[a].nic_bytes_s, p.types[b].nic_bytes_s) / share);
    }
    // Each of the dp x tp pairs of first- and last-stage GPUs all-reduces its share (a two-rank ring
    // moves it once each way) over the network, the pairs on a node sharing its NIC (the slowest of
    // the mix's, as the mix does not say which types hold the ends); within a node when every stage
    // is of one type and the whole pipeline fits in one node (tied_alone_s).
    p.tied_sync_s = p.types.size() == 1 ? p.types.front().tied_alone_s : tied_sync_s(slowest / share);
    return p;
}

std::vector<const StageType*> ProblemFactory::built() const {
    std::vector<const StageType*> out;
    for (const auto& [t, per_node] : types_) out.push_back(&t);
    return out;
}

double ProblemFactory::fastest_link_s() const {
    double fastest = std::numeric_limits<double>::infinity();
    for (const auto& [t, per_node] : types_) fastest = std::min(fastest, t.link_s);
    return fastest;
}

double ProblemFactory::least_nic_share() const {
    // problem() shares the NIC among min(dp x tp, widest node of the mix) GPUs; the narrowest node is
    // the least.
    int narrowest = std::numeric_limits<int>::max();
    for (const auto& [t, per_node] : types_) narrowest = std::min(narrowest, std::max(1, per_node));
    return std::min(dp_ * tp_, narrowest);
}

double ProblemFactory::fastest_nic_bytes_s() const {
    double fastest = 0;
    for (const auto& [t, per_node] : types_) fastest = std::max(fastest, t.nic_bytes_s);
    return fastest > 0 ? fastest : inter_;  // none built yet: the network's
}

double ProblemFactory::fastest_cross_link_s() const { return boundary_ / (fastest_nic_bytes_s() / least_nic_share()); }

double ProblemFactory::fastest_tied_cross_s() const { return tied_sync_s(fastest_nic_bytes_s() / least_nic_share()); }

double ProblemFactory::tied_sync_s(double bytes_s) const {
    return tied_bytes_ > 0 ? model::ring_allreduce_s(tied_bytes_, 2, bytes_s) : 0;
}

Problem ProblemFactory::problem(const std::vector<std::string>& stages) {
    return problem(stages, std::vector<int>(stages.size(), 1));
}

Problem make_problem(const model::JobSpec& job, const Allocation& a, const catalog::GpuCatalog& c,
                     const ProblemOptions& o) {
    ProblemFactory f(job, a.dp, static_cast<int>(a.stages.size()), c, o, a.where, a.tp, a.tp_where);
    return f.problem(a.stages);
}

}  // namespace hetsched::place
