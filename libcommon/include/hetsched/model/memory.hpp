#pragma once
/// Peak GPU memory of training, per pipeline stage, broken down the way a framework allocates it.
#include <string>
#include <vector>

#include <hetsched/catalog/model_preset.hpp>
#include <hetsched/model/training.hpp>

namespace hetsched::model {

/// Bytes in a GiB: every *_gib number in and out of the tools.
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

/// Which number is predicted: torch.cuda.max_memory_allocated, max_memory_reserved, or nvidia-smi.
enum class Measure { allocated, reserved, device };
/// allocated, reserved or device in any case, or a name each goes by: max_allocated,
/// max_memory_allocated (torch.cuda.'s too), Megatron-LM's mem-max-allocated-bytes, the same for
/// reserved, nvidia-smi; '-' or a space may stand for '_'. DataError otherwise.
Measure parse_measure(const std::string& s);
std::string measure_name(Measure m);

/// When in an iteration a stage's memory peaks: during a forward (the 16-bit gradients of the last
/// backward still held), while back-propagating a layer or the loss, or in the optimizer step (the
/// activations gone, the step's temporaries in their place).
enum class Phase { forward, backward, step };
const char* phase_name(Phase p);

/// One pipeline stage's peak, in bytes, split by what holds the memory.
struct StageMemory {
    int stage = 0;
    long first_layer = 0;       ///< 0-based, inclusive (interleaved: the first chunk's first, the last's last)
    long last_layer = 0;
    /// Interleaved (vpp > 1): the first and last layer of each of its chunks, in order; else empty.
    std::vector<std::pair<long, long>> chunks;
    double in_flight = 0;       ///< micro-batches whose activations are held at the peak
    double weights = 0;
    double gradients = 0;
    double optimizer = 0;
    double activations = 0;
    double logits = 0;          ///< output logits and loss buffers (last stage)
    double comm_buffers = 0;
    double overhead = 0;        ///< allocator fragmentation, CUDA context, workspaces (per --measure)
    Phase phase = Phase::backward;  ///< when the peak happens

    double total() const {
        return weights + gradients + optimizer + activations + logits + comm_buffers + overhead;
    }
};

/// Every stage's peak and which stage is the largest.
struct MemoryEstimate {
    std::vector<StageMemory> stages;
    size_t peak_stage = 0;
    double peak_bytes() const { return stages[peak_stage].total(); }
};

/// Which memory model: `framework` models what Megatron-LM, DeepSpeed and FSDP allocate (see
/// memest(1)); `frenzy` is the paper's formula, one stage, no measure-dependent overhead.
enum class Method { framework, frenzy };
Method parse_method(const std::string& s);  ///< "default" or "frenzy"

/// Peak memory per stage by `method`. Validates its inputs (DataError on inconsistency).
MemoryEstimate estimate_memory(const catalog::ModelSpec& m, const Training& t, const Layout& l, Measure measure,
                               Method method = Method::framework);

/// Bytes of one 16-bit (or fp32) training element under `t.precision`.
double element_bytes(const Training& t);

/// The Frenzy paper's formula (§IV-A), exactly: 20W/t + s·B·h·l·(10/d + 24/(d·t) + 5·a·s/(d·h·t)) bytes,
/// W = V·h + l·(12h² + 13h), B the global batch. Only tp and dp of the layout are used.
double frenzy_memory_bytes(const catalog::ModelSpec& m, const Training& t, int tp, int dp);

}  // namespace hetsched::model
