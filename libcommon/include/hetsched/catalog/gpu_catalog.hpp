#pragma once
/// GPU types and the catalogs a user picks them from: the embedded default (built from the public
/// specs and prices in libcommon/data), the Espresso paper's JuChi cloud, the Sia simulator cluster,
/// or a user's own YAML/CSV file.
#include <string>
#include <vector>

#include <hetsched/io/text_input.hpp>
#include <hetsched/io/yaml_document.hpp>

namespace hetsched::catalog {

/// One GPU type as the planners see it.
struct GpuType {
    std::string name;
    double memory_gib = 0;          ///< device memory as sold (80 for an 80 GB part)
    double tflops = 0;              ///< dense tensor-core peak used for training (BF16, else FP16)
    bool tflops_from_fp32 = false;  ///< no tensor figure known: `tflops` is the FP32 peak
    double fp32_tflops = 0;         ///< FP32 peak without tensor cores, what fp32 training's matrix
                                    ///< multiplies run at unless TF32 is allowed (0 = unknown)
    double mem_bw_gb_s = 0;         ///< peak memory bandwidth (0 = unknown)
    double link_gb_s = 0;           ///< intra-node GPU link, bidirectional per GPU (0 = unknown)
    double nic_gb_s = 0;            ///< a node's network to other nodes, GB/s one way, shared by its GPUs
                                    ///< (0 = the network's inter_node_gb_s)
    double compute_capability = 0;  ///< CUDA compute capability, e.g. 9.0 (0 = unknown or not CUDA)
    int fp8 = -1;                   ///< fp8 matrix units: 1 has, 0 lacks, -1 not said (then the compute
                                    ///< capability says: 8.9 on)
    int gpus_per_node = 8;
    double price_per_hour = -1;     ///< per GPU-hour in the catalog's currency; < 0 = unknown
    int quota = -1;                 ///< GPUs of this type a user may take; < 0 = unlimited
};

/// A named list of GPU types.
struct GpuCatalog {
    std::string name;
    std::string currency = "USD";
    std::vector<GpuType> gpus;
    double inter_node_gb_s = 25;  ///< network between nodes, GB/s one direction (a 200 Gb/s NIC)

    /// The type called exactly `name` (ASCII case ignored, nothing else). Throws UsageError naming close
    /// matches, as suggestions only, when there is none.
    const GpuType& find(const std::string& name) const;
    /// Like find(), but nullptr instead of an error.
    const GpuType* lookup(const std::string& name) const;
};

/// The compute capability that `c`'s GPU types of `gpu`'s family share: the family is a name's first
/// word (letter case ignored, after the vendor's and product line's words
/// torch's device names begin with: NVIDIA, Tesla, GeForce, Quadro, AMD, Instinct, Radeon), so
/// "a100-sxm-80gb" and "NVIDIA A100-SXM4-80GB" find the A100s; where the family's types differ (the
/// RTX cards), the types whose words run together start its own or are started by it ("NVIDIA
/// GeForce RTX 2080 Ti" finds RTX-2080Ti, "Quadro RTX 6000" RTX-6000-Turing, "RTX 6000 Ada
/// Generation" neither). 0 when no type of that family is listed, or when they differ, or are not
/// CUDA parts. Words are runs of letters and digits (io::name_words).
double family_compute_capability(const GpuCatalog& c, const std::string& gpu);

/// Whether `c` lists a type of `gpu`'s family (family_compute_capability's) and its types share a
/// compute capability (or are all no CUDA parts): whether the family tells it.
bool family_known(const GpuCatalog& c, const std::string& gpu);

/// Whether the default catalog lists a type of `gpu`'s family, or NVIDIA's list of older families
/// (K80, P40, GTX 1080 Ti: data/compute_capabilities.csv) names it.
bool default_family_known(const std::string& gpu);

/// The compute capability the default catalog gives `gpu`'s family (family_compute_capability), else
/// that of an older family the default catalog has no type of (K80: 3.7), else 0 (unknown).
double default_family_compute_capability(const std::string& gpu);

/// Whether `cc` reads as a CUDA compute capability: 0 (unknown), or major.minor from 1.0 to 20 (one
/// decimal: 8.9, not 8.95).
bool valid_compute_capability(double cc);
/// What a reader that found `text` where a compute capability was expected says (DataError's text).
std::string expected_compute_capability(const std::string& text);

/// `g`'s compute capability, else (a catalog file that does not give it) that of the default
/// catalog's types of its family; 0 when neither knows.
double compute_capability_of(const GpuType& g);

/// Names accepted by named_catalog().
std::vector<std::string> catalog_names();

/// "default", "juchi" or "sia"; UsageError otherwise.
GpuCatalog named_catalog(const std::string& name);

/// Whether `name_or_path` names a catalog file rather than a built-in catalog (it has a '/' or a '.').
bool is_catalog_file(const std::string& name_or_path);

/// A catalog file's text: CSV (at least name,memory_gib,tflops) when its name ends in .csv, else YAML
/// `kind: gpu-catalog`. ConfigError (78) at the offending entry: bad numbers, duplicate names, no types.
GpuCatalog parse_catalog(const io::TextInput& in);
/// Adds the GPU types listed under `list` (a catalog's, or a job document's `gpus:`) to `c`, each
/// with a catalog file's keys and ranges.
void read_gpu_list(const io::YamlDocument& doc, const YAML::Node& list, GpuCatalog& c);

}  // namespace hetsched::catalog
