#pragma once
/// What a model that does not state its norm, biases or dropout is taken to have. The job document,
/// the command line and memest --check's rows all fill an unstated key from here, so one model reads
/// the same whichever way it comes in.
#include <hetsched/catalog/model_preset.hpp>
#include <hetsched/model/training.hpp>

namespace hetsched::model {

/// A model's norm and whether its linear layers have biases.
struct NormAndBias {
    bool rms_norm;
    bool linear_bias;
};
/// Norm and linear biases by the style the MLP names: RMSNorm and no biases beside a gated MLP
/// (LLaMA's), LayerNorm and biases otherwise (GPT-2's).
NormAndBias style_norm_and_bias(bool gated_mlp);

/// The dropout a framework trains `m` with when the run does not say: Megatron-LM's 0.1 hidden and
/// attention dropout (its defaults, whatever the block; Megatron-DeepSpeed's models too), none under
/// torchtitan (its models have no dropout), and otherwise the model's style: none beside a gated MLP,
/// 0.1 for a GPT-2 style model (Hugging Face's configs).
double default_dropout(const catalog::ModelSpec& m, const Training& t);

}  // namespace hetsched::model
