#pragma once
/// The model states per parameter (weights, gradients, optimizer states) each framework keeps after
/// sharding, and the temporaries per parameter around its optimizer step: what memest's stage model
/// multiplies by a stage's parameters.
#include <limits>

#include <hetsched/model/training.hpp>

namespace hetsched::model {

/// Bytes per parameter of each model-state kind after sharding over `shards` ranks.
struct StateBytes {
    double weights, gradients, optimizer;
};
StateBytes state_bytes(const Training& t, int shards);

/// Ranks the model states are sharded over: dp x cp in every framework (context-parallel ranks hold
/// different tokens of the same replica and reduce its gradients with the data-parallel ones).
int state_shards(const Training& t, const Layout& l);

/// Temporaries per parameter on top of the states: while the gradients are reduced before the step
/// (reduce), and during the optimizer step itself (step).
struct StepBytes {
    double reduce = 0, step = 0;
    double reduce_cap = std::numeric_limits<double>::infinity();  ///< most bytes the reduction's temporaries take
    double step_cap = std::numeric_limits<double>::infinity();    ///< most bytes the step's temporaries take
    double grads_freed = 0;  ///< bytes per parameter of 16-bit grads freed before the step's temporaries
    /// Where the step's temporaries are gone before the optimizer's update (ZeRO-1/2): the bytes per
    /// parameter that live through the update (0: no such moment apart), and the 16-bit grads freed by
    /// then. In a first iteration the optimizer makes its state in that update, so the two peak apart.
    double update = 0, update_grads_freed = 0;
};
StepBytes step_bytes(const Training& t, int shards);

/// Bytes per parameter that exist only from the first optimizer step on: absent from the first
/// iteration's forward and backward (and the reduction before its step), present in later ones.
struct LazyBytes {
    double gradients = 0, optimizer = 0;
};
LazyBytes lazy_bytes(const Training& t, int shards);

}  // namespace hetsched::model
