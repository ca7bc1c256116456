#pragma once
/// Reading and extending a job document (DESIGN §4) the same way in every tool: the document comes
/// from the input unless the flags describe the job alone, the flags override it, and the resolved
/// model and training are written back with every other key kept.
#include <optional>
#include <string>

#include <hetsched/io/yaml_document.hpp>
#include <hetsched/model/job_options.hpp>
#include <hetsched/model/step_time.hpp>

namespace hetsched::model {

/// The name of the fresh document load_job_document() starts when the flags describe the job alone.
inline constexpr const char* kFlagsDocument = "<options>";

/// The job document to extend, and in `job` what it says after the flags: parsed from `input`, or a
/// fresh document (named kFlagsDocument) built from the flags when there is no input.
io::YamlDocument load_job_document(const std::optional<io::TextInput>& input, const JobOptions& o, JobSpec& job);

/// Writes the resolved `model` and `training` sections over the document's own keys, keeping others.
void write_job_spec(YAML::Node root, const JobSpec& job);

/// The GPU types a job is planned on: the document's own `gpus:` list when it has one (a catalog
/// named "job", on `given`'s network), else `given`. A `gpus:` list beside --catalog is a UsageError.
catalog::GpuCatalog job_catalog(const io::YamlDocument& doc, const catalog::GpuCatalog& given, bool catalog_given);

/// `network: {inter_node_gb_s, intra_node_gb_s}` when the document has it, over `defaults`;
/// DataError at a non-positive speed.
Network read_network(const io::YamlDocument& doc, Network defaults);

/// `{model, seq_len, global_batch}`: the job a computed section (memest's `memory`) belongs to.
YAML::Node job_key(const JobSpec& job);

/// Puts `key` first in `section` (a map), so a reader sees what the section was computed for.
YAML::Node with_job_key(const JobSpec& job, const YAML::Node& section);

/// DataError at the section's `job` key when `section_name` was computed for another job than `job`
/// (a document edited, or sections from two pipelines mixed), naming `producer` to rerun.
void check_job_key(const io::YamlDocument& doc, const char* section_name, const JobSpec& job, const char* producer);

/// DataError when flags changed the document's model or training settings (all but iterations) that
/// `section_name` was computed with: memest's plans for bf16 are no plans for fp32 or another
/// framework. `job` is the document's job with the flags applied.
void check_job_unchanged(const io::YamlDocument& doc, const char* section_name, const JobSpec& job,
                              const char* producer);

}  // namespace hetsched::model
