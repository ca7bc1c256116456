#include <hetsched/model/job_document.hpp>

#include <algorithm>

#include <set>

#include <hetsched/catalog/known_keys.hpp>
#include <hetsched/cli/error.hpp>
#include <hetsched/io/names.hpp>

namespace hetsched::model {
namespace {

void merge_section(YAML::Node root, const char* key, const YAML::Node& resolved) {
    if (!root[key] || !root[key].IsMap()) root[key] = YAML::Node(YAML::NodeType::Map);
    YAML::Node sec = root[key];
    for (const auto& kv : resolved) sec[kv.first.Scalar()] = kv.second;
}

/// A micro-batch that does not divide the global batch, reported at the document's value that the
/// flags left (the micro-batch's, else the global batch's).
void check_micro_batch(const io::YamlDocument& doc, const JobSpec& job) {
    if (job.micro_batch <= 0 || job.training.global_batch % job.micro_batch == 0) return;
    const YAML::Node training = io::optional_child(doc, doc.root, "training");
    SourcePos at{doc.name, 0, 0};
    for (const auto& [key, value] : {std::pair<const char*, long>{"micro_batch", job.micro_batch},
                                     {"global_batch", job.training.global_batch}}) {
        const YAML::Node n = io::optional_child(doc, training, key);
        if (n.IsDefined() && n.IsScalar() && n.Scalar() == std::to_string(value)) {
            at = doc.where(n);
            break;
        }
    }
    throw DataError(micro_batch_misfit(job.micro_batch, job.training.global_batch), at);
}

}  // namespace

io::YamlDocument load_job_document(const std::optional<io::TextInput>& input, const JobOptions& o, JobSpec& job) {
    if (!input) {
        job = job_from_options(o);
        io::YamlDocument doc{kFlagsDocument, YAML::Node(YAML::NodeType::Map)};
        doc.root["kind"] = "job";
        doc.root["version"] = 1;
        return doc;
    }
    io::YamlDocument doc = io::parse_yaml(*input);
    io::require_kind(doc, "job");
    // The flags override the document's keys before their combination is checked, so that they can
    // mend it (--framework deepspeed for a zero_stage 2 given under megatron). A combination that
    // fails is the flags' (64) when its message names a key a flag sets, else the document's (65, at
    // the key it names).
    job = read_job_spec(doc, false);
    std::vector<std::string> flags;  // the keys the flags set
    try {
        apply_job_options(o, job, &flags);
    } catch (const UsageError& e) {
        const std::string why = e.what();
        if (std::none_of(flags.begin(), flags.end(), [&](const std::string& k) { return named_at(why, k) != std::string::npos; }))
            throw document_error(doc, why);
        throw;
    }
    check_micro_batch(doc, job);
    return doc;
}

void write_job_spec(YAML::Node root, const JobSpec& job) {
    merge_section(root, "model", model_to_yaml(job.model));
    merge_section(root, "training", training_to_yaml(job));
}

catalog::GpuCatalog job_catalog(const io::YamlDocument& doc, const catalog::GpuCatalog& given, bool catalog_given) {
    const YAML::Node list = io::optional_child(doc, doc.root, "gpus");
    if (!list.IsDefined()) return given;
    if (catalog_given)
        throw UsageError("the job document lists its own GPU types (gpus:, line " +
                         std::to_string(doc.where(list).line) + ") and --catalog names others: give one of them");
    catalog::GpuCatalog c{"job", given.currency, {}};
    c.inter_node_gb_s = given.inter_node_gb_s;
    try {
        catalog::read_gpu_list(doc, list, c);
    } catch (const ConfigError& e) {  // a catalog file's error (78) is the job's here
        throw DataError(e.what(), e.pos());
    }
    if (c.gpus.empty()) throw DataError("expected at least one GPU type under 'gpus'", doc.where(list));
    return c;
}

Network read_network(const io::YamlDocument& doc, Network net) {
    const YAML::Node sec = io::optional_child(doc, doc.root, "network");
    if (!sec.IsDefined()) return net;
    // A speed in bits (Gb/s, as NICs are sold) is not one in bytes: say so rather than suggest the key.
    if (sec.IsMap())
        for (const auto& kv : sec) {
            const std::string key = io::folded_name(kv.first.Scalar());
            if (key.find("gbps") != std::string::npos || key.find("gbit") != std::string::npos)
                throw DataError("unknown key '" + kv.first.Scalar() +
                                    "' in 'network': speeds are inter_node_gb_s and intra_node_gb_s, in GB/s (bytes, one "
                                    "direction): a 10 Gb/s link is 1.25, a 200 Gb/s NIC 25",
                                doc.where(kv.first));
        }
    catalog::check_known_keys(doc, sec, "network", {"inter_node_gb_s", "intra_node_gb_s"});
    auto speed = [&](const char* key, double& dst) {
        const YAML::Node n = io::optional_child(doc, sec, key);
        if (!n.IsDefined()) return;
        dst = io::yaml_number(doc, n, key, limits::min_link_gb_s, limits::max_link_gb_s);
    };
    speed("inter_node_gb_s", net.inter_node_gb_s);
    speed("intra_node_gb_s", net.intra_node_gb_s);
    return net;
}

YAML::Node job_key(const JobSpec& job) {
    YAML::Node n(YAML::NodeType::Map);
    n.SetStyle(YAML::EmitterStyle::Flow);
    n["model"] = job.model.name;
    n["seq_len"] = job.training.seq_len;
    n["global_batch"] = job.training.global_batch;
    return n;
}

YAML::Node with_job_key(const JobSpec& job, const YAML::Node& section) {
    YAML::Node n(YAML::NodeType::Map);
    n["job"] = job_key(job);
    for (const auto& kv : section) n[kv.first.Scalar()] = kv.second;
    return n;
}

void check_job_unchanged(const io::YamlDocument& doc, const char* section_name, const JobSpec& job,
                              const char* producer) {
    const JobSpec read = read_job_spec(doc);
    auto value = [](const YAML::Node& map, const std::string& key) {
        const YAML::Node v = map[key];
        return v.IsDefined() ? YAML::Dump(v) : std::string("(none)");
    };
    // The model and the training, as the document had them and as the flags leave them.
    const std::pair<const char*, std::pair<YAML::Node, YAML::Node>> sections[] = {
        {"model", {model_to_yaml(read.model), model_to_yaml(job.model)}},
        {"training", {training_to_yaml(read), training_to_yaml(job)}}};
    for (const auto& [name, maps] : sections) {
        const auto& [written, now] = maps;
        std::set<std::string> keys;  // in either, each once
        for (const YAML::Node* map : {&written, &now})
            for (const auto& kv : *map) keys.insert(kv.first.Scalar());
        for (const auto& k : keys) {
            if (k == "iterations") continue;  // the cost's, not the memory's
            const std::string was = value(written, k), is = value(now, k);
            if (was != is)
                throw DataError(std::string("'") + section_name + "' was computed for " + name + "." + k + " " + was +
                                    ", which the flags change to " + is + "; rerun " + producer + " with them",
                                doc.where(io::optional_child(doc, doc.root, section_name)));
        }
    }
}

void check_job_key(const io::YamlDocument& doc, const char* section_name, const JobSpec& job, const char* producer) {
    const YAML::Node sec = io::optional_child(doc, doc.root, section_name);
    if (!sec.IsDefined()) return;
    const std::string rerun = std::string("; rerun ") + producer + " on this job";
    const YAML::Node key = io::optional_child(doc, sec, "job");
    if (!key.IsDefined() || !key.IsMap())
        throw DataError(std::string("'") + section_name + "' does not say which job it was computed for" + rerun,
                        doc.where(sec));
    const YAML::Node want = job_key(job);
    for (const auto& kv : want) {
        const std::string k = kv.first.Scalar();
        const YAML::Node got = io::optional_child(doc, key, k.c_str());
        const std::string expected = kv.second.Scalar();
        if (!got.IsDefined() || !got.IsScalar() || got.Scalar() != expected)
            throw DataError(std::string("'") + section_name + "' was computed for " + k + " " +
                                (got.IsDefined() && got.IsScalar() ? "'" + got.Scalar() + "'" : "(none)") +
                                " but the job has " + k + " '" + expected + "'" + rerun,
                            doc.where(got.IsDefined() ? got : key));
    }
}

}  // namespace hetsched::model
