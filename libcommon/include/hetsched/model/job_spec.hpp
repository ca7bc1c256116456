#pragma once
/// The `model` and `training` sections of a job document (DESIGN §4), read with positions and written
/// back in the documented key order.
#include <vector>

#include <yaml-cpp/yaml.h>

#include <hetsched/catalog/model_preset.hpp>
#include <hetsched/cli/error.hpp>
#include <hetsched/io/yaml_document.hpp>
#include <hetsched/model/training.hpp>

namespace hetsched::model {

/// What a job document says about the model and its training.
struct JobSpec {
    catalog::ModelSpec model;
    Training training;
    long micro_batch = 0;  ///< 0: not given
    long iterations = 0;
    std::vector<long> layers_per_stage;  ///< training.layers_per_stage: a pipeline split; empty: not given
    SourcePos layers_per_stage_where;    ///< where the document gives it
    bool zero_stage_given = false;         ///< else training.zero_stage is the framework's default
    bool framework_given = false;          ///< training.framework stated (else the default's)
    bool dropout_stated = false;           ///< else model.dropout is default_dropout() for the training
    bool reduce_bucket_auto = false;       ///< reduce_bucket_size: auto, hidden x hidden of the final model
};

/// Reads `model:` (a preset `name` fills what the section leaves out) and `training:` from a job
/// document; DataError at the offending key for missing, negative or non-numeric values, and for a
/// learned_positions the document gives shorter than seq_len.
/// `checked` false leaves out what depends on several keys together (the model's dimensions, the
/// training's settings, the split's sum), for flags that may yet change them: check_job_spec then.
JobSpec read_job_spec(const io::YamlDocument& doc, bool checked = true);

/// The checks of several keys together read_job_spec leaves out when not `checked`: DataError at the
/// key the message names (document_error).
void check_job_spec(const io::YamlDocument& doc, const JobSpec& job);

/// `message` as a DataError at the model's or training's key it names first ("zero_stage 2 is not
/// Megatron-LM's"), else at the training section.
DataError document_error(const io::YamlDocument& doc, const std::string& message);

/// Where `key` stands in `message` as a word of its own (not inside kv_heads for heads), or npos.
size_t named_at(const std::string& message, const std::string& key);

/// A learned position table (a preset's, GPT-2's 1024 rows) shorter than the job's sequence grows
/// to it: the run must have set its table that long (Megatron-LM's --max-position-embeddings).
void cover_sequence(JobSpec& job);

YAML::Node model_to_yaml(const catalog::ModelSpec& m);
YAML::Node training_to_yaml(const JobSpec& job);

}  // namespace hetsched::model
