#pragma once
/// How many layers each pipeline stage holds when the user does not say: the split the framework
/// itself makes.
#include <vector>

#include <hetsched/catalog/model_preset.hpp>
#include <hetsched/model/training.hpp>

namespace hetsched::model {

/// DeepSpeed's partition_balanced: cuts `weights` into `parts` contiguous runs whose largest and
/// smallest sums differ the least (dynamic programming over every cut, later cuts winning ties), and
/// returns the parts + 1 boundaries, 0 first and weights.size() last. Fewer weights than parts: the
/// boundaries of partition_uniform.
std::vector<long> partition_balanced(const std::vector<double>& weights, int parts);

/// Layers of each of the layout's pp stages when none are given: DeepSpeed's PipelineModule
/// partitions a model built from layer specs by parameters (partition_method='parameters', its
/// default), the embedding and the output head counting as layers, and Megatron-DeepSpeed's GPT by
/// transformer layers, both with partition_balanced as DeepSpeed has run it since 0.12.5 (before, a
/// binary search that can cut differently); everyone else splits evenly, the last stages taking one
/// more when pp does not divide the layers. Even too when DeepSpeed's split would leave a stage
/// without a layer, or when its cubic partition would take minutes (items² x pp above 4e7).
std::vector<long> default_split(const catalog::ModelSpec& m, const Training& t, const Layout& l);

}  // namespace hetsched::model
