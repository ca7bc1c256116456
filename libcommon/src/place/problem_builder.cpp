#include <hetsched/place/problem_builder.hpp>

#include <algorithm>
#include <memory>

#include <hetsched/model/stage_memory.hpp>
#include <hetsched/model/transformer.hpp>

namespace hetsched::place {
namespace {

using model::kGiB;

/// Seconds per micro-batch on one type, from the compute model or the profile.
void fill_times(StageType& st, const catalog::GpuType& g, const model::MicroBatchFlops& flops, long layers,
                const ProblemOptions& o) {
    const double speed = g.tflops * 1e12 * o.efficiency;
    st.forward.assign(static_cast<size_t>(layers) + 1, 0);
    st.backward.assign(static_cast<size_t>(layers) + 1, 0);
    st.tail_forward = flops.tail_forward / speed;
    st.tail_backward = flops.tail_backward / speed;
    st.tflops = g.tflops;
    const model::ProfiledTimes* prof = o.profile ? &o.profile->complete(g.name) : nullptr;
    for (size_t i = 0; i < static_cast<size_t>(layers); ++i) {
        st.forward[i + 1] = st.forward[i] + (prof ? prof->forward[i] : flops.layer_forward / speed);
        st.backward[i + 1] = st.backward[i] + (prof ? prof->backward[i] : flops.layer_backward / speed);
    }
    if (!prof) return;
    if (prof->head_forward >= 0) st.head_forward = prof->head_forward, st.head_backward = prof->head_backward;
    if (prof->tail_forward >= 0) st.tail_forward = prof->tail_forward, st.tail_backward = prof->tail_backward;
    // F(t) for CMR and balancing: the TFLOPS the profile shows the type achieving, as peak x efficiency
    // would be for the compute model.
    st.tflops = flops.layer_forward * static_cast<double>(layers) / st.forward.back() / 1e12 / o.efficiency;
}

}  // namespace

long micro_batch_of(const model::JobSpec& job) { return job.micro_batch > 0 ? job.micro_batch : 1; }

Problem make_problem(const model::JobSpec& job, const Allocation& a, const catalog::GpuCatalog& c,
                     const ProblemOptions& o) {
    const auto& m = job.model;
    const long L = m.layers, mb = micro_batch_of(job);
    const int k = static_cast<int>(a.stages.size());
    if (k > L)
        throw DataError("the allocation has " + std::to_string(k) + " stages but " + m.name + " has only " +
                            std::to_string(L) + " layers",
                        a.where);
    const model::Layout layout{1, k, a.dp, 1, 1, mb};
    std::shared_ptr<model::StageMemoryModel> memory;
    try {
        memory = std::make_shared<model::StageMemoryModel>(m, job.training, layout, o.measure);
    } catch (const DataError& e) {
        throw DataError(e.what(), a.where);
    }

    Problem p;
    p.model = m.name;
    p.layers = L;
    p.dp = a.dp;
    p.micro_batches = layout.micro_batches(job.training.global_batch);
    const bool pad = job.training.framework == model::Framework::megatron;
    p.layer_params = model::layer_params(m, 1);
    p.head_params = model::embedding_params(m, 1, pad);
    p.tail_params = model::output_params(m, 1, k, pad);
    const model::MicroBatchFlops flops = model::micro_batch_flops(m, job.training, mb);
    const model::GradientSync sync = model::gradient_sync(job.training);
    const double boundary = model::boundary_bytes(m, job.training, mb);
    const double inter = model::inter_node_bytes_s(o.network);

    int widest_node = 1;
    for (const auto& name : a.stages) {
        auto it = std::find_if(p.types.begin(), p.types.end(), [&](const StageType& t) { return t.name == name; });
        if (it != p.types.end()) {
            ++it->stages;
            continue;
        }
        const catalog::GpuType& g = c.find(name);
        widest_node = std::max(widest_node, g.gpus_per_node);
        StageType st;
        st.name = g.name;
        st.stages = 1;
        st.memory_gib = g.memory_gib;
        st.usable_gib = g.memory_gib * o.usable_fraction;
        const double capacity = st.usable_gib * kGiB;
        st.first_layer_gib = 1e300;
        for (int pos = 0; pos < k; ++pos) {
            st.max_layers.push_back(memory->max_layers(pos, capacity, L - k + 1));
            const double one = memory->stage(pos, 0, 1).total();
            if (one / kGiB < st.first_layer_gib) {
                st.first_layer_gib = one / kGiB;
                st.per_layer_gib = (memory->stage(pos, 0, 2).total() - one) / kGiB;
            }
        }
        fill_times(st, g, flops, L, o);
        // The stage's dp GPUs all-reduce within a node when they fit in one, else across nodes;
        // two stages of one type share a node when 2 dp GPUs fit in it.
        const double intra = model::intra_node_bytes_s(g, o.network);
        const double per_param = sync.bytes_per_param * sync.allreduce_equivalents;
        st.allreduce_s_per_param = model::ring_allreduce_s(per_param, a.dp, a.dp <= g.gpus_per_node ? intra : inter);
        const double nic_share = std::min(a.dp, g.gpus_per_node);  // the stage's GPUs on a node share its NIC
        st.link_s = 2 * a.dp <= g.gpus_per_node ? boundary / intra : boundary / (inter / nic_share);
        p.types.push_back(std::move(st));
    }
    p.cross_type_link_s = boundary / (inter / std::min(a.dp, widest_node));
    p.memory = memory;
    return p;
}

}  // namespace hetsched::place
