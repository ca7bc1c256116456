#include <catch2/catch.hpp>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/cli/error.hpp>
#include <hetsched/io/names.hpp>
#include <hetsched/model/memest.hpp>

using namespace hetsched;

TEST_CASE("default catalog comes from gpus.csv with lowest prices", "[catalog]") {
    auto c = catalog::named_catalog("default");
    CHECK(c.gpus.size() == 27);
    const auto& h100 = c.find("H100-SXM");
    CHECK(h100.memory_gib == 80);
    CHECK(h100.tflops == 989);
    CHECK(h100.price_per_hour == Approx(12.29));
    // One price label, two form factors: the SXM4's from p4de and ND A100 v4 (4.64 a GPU), the PCIe
    // card's from Azure's NC A100 v4 (3.67), not the cheapest of all for both.
    CHECK(c.find("a100-80gb-sxm").price_per_hour == Approx(4.64));
    CHECK(c.find("A100-80GB-PCIe").price_per_hour == Approx(3.67));
    CHECK(c.find("RTX-2080Ti").tflops == Approx(107.6));  // FP16 tensor (FP16 accumulate): Turing has no BF16
    CHECK(!c.find("RTX-2080Ti").tflops_from_fp32);
    CHECK(c.find("T4").price_per_hour == Approx(0.53));
    // gpus.csv's gpus_per_node where a part comes in nodes of another size, else 8.
    CHECK(c.find("GH200-96GB").gpus_per_node == 4);
    CHECK(c.find("GH200-96GB").mem_bw_gb_s == 4000);
    CHECK(c.find("B200").gpus_per_node == 8);
    CHECK(c.find("B200").compute_capability == 10.0);
    // An MI250X is two GCDs, each a device of its own to PyTorch: the catalog's GPU is one GCD.
    const auto& mi250x = c.find("MI250X");
    CHECK(mi250x.memory_gib == 64);
    CHECK(mi250x.tflops == Approx(191.5));
    CHECK(mi250x.gpus_per_node == 8);
    // fp8 units where gpus.csv says (the AMD parts), else not said.
    CHECK(mi250x.fp8 == 0);
    CHECK(c.find("MI300X").fp8 == 1);
    CHECK(c.find("H100-SXM").fp8 == -1);
}

TEST_CASE("juchi catalog is Espresso's Table I", "[catalog]") {
    auto c = catalog::named_catalog("juchi");
    REQUIRE(c.gpus.size() == 4);
    CHECK(c.currency == "CNY");
    const auto& a6000 = c.find("RTX-A6000");
    CHECK(a6000.memory_gib == 48);
    CHECK(a6000.tflops == Approx(154.8));
    CHECK(a6000.price_per_hour == 6);
    CHECK(a6000.quota == 8);
    CHECK(c.find("A30").quota == 16);
    CHECK(c.find("RTX-3090").price_per_hour == 2.5);
    CHECK(c.find("RTX-A4000").tflops == 76);
}

TEST_CASE("sia catalog is the Sia simulator cluster", "[catalog]") {
    auto c = catalog::named_catalog("sia");
    REQUIRE(c.gpus.size() == 3);
    CHECK(c.find("RTX-2080Ti").quota == 24);
    CHECK(c.find("A100-40GB-SXM").quota == 16);
    CHECK(c.find("RTX-6000-Turing").gpus_per_node == 4);
    CHECK_THROWS_WITH(c.find("RTX-6000"), Catch::Contains("did you mean 'RTX-6000-Turing'"));  // no prefixes
}

TEST_CASE("unknown names suggest close ones", "[catalog]") {
    auto c = catalog::named_catalog("default");
    CHECK_THROWS_WITH(c.find("H100-SMX"), Catch::Contains("did you mean 'H100-SXM'"));
    // A known name with a suffix the catalog does not spell: that name alone, not V100-SXM2-16GB.
    CHECK_THROWS_WITH(c.find("H100-SXM-80GB"), Catch::EndsWith("did you mean 'H100-SXM'? (see --list-gpus)"));
    // The words of a known name in another order, as the measured-memory files spell GPUs.
    CHECK_THROWS_WITH(c.find("a100-sxm-80gb"), Catch::EndsWith("did you mean 'A100-80GB-SXM'? (see --list-gpus)"));
    using names = std::vector<std::string>;
    CHECK(io::close_names("T4-16GB", {"L4", "T4"}) == names{"T4"});
    CHECK(io::close_names("RTX4090", {"T4", "L4"}).empty());  // not a word of what was typed
    CHECK(io::close_names("A100", {"A10", "A100-80GB-SXM"}) == names{"A100-80GB-SXM", "A10"});
    // Two known names typed with more words: the longer first.
    CHECK(io::close_names("gpt2-large-v2", {"gpt2", "gpt2-large"}) == names{"gpt2-large", "gpt2"});
    // No known name typed: the three closest, however far behind the first.
    CHECK_THROWS_WITH(c.find("P100-SXM2-16GB"), Catch::Contains("'P100-PCIe-16GB'"));
    CHECK_THROWS_AS(c.find("A100"), UsageError);  // ambiguous prefix
    // A name as torch gives it, close to none: its family's types.
    CHECK_THROWS_WITH(c.find("NVIDIA GeForce RTX 3090"),
                      Catch::EndsWith("did you mean one of its family: 'RTX-3090'? (see --list-gpus)"));
    CHECK_THROWS_WITH(c.find("NVIDIA H200"), Catch::Contains("one of its family: 'H200-SXM'?"));
    CHECK_THROWS_WITH(c.find("NVIDIA Blackwell X"), !Catch::Contains("family"));
    // The tool's own CSV spelling: its family's, not a V100 that is close in letters.
    CHECK_THROWS_WITH(c.find("a100-sxm4-80gb"), Catch::Contains("one of its family: 'A100-40GB-PCIe'") &&
                                                    !Catch::Contains("V100"));
    CHECK_THROWS_AS(catalog::named_catalog("juchy"), UsageError);
}

TEST_CASE("a CSV catalog keeps its currency column, one currency for all rows", "[catalog]") {
    const std::string header = "name,memory_gib,tflops,price_per_hour,currency\n";
    const auto c = catalog::parse_catalog({"c.csv", header + "A,24,100,4,CNY\nB,48,150,6,CNY\n"});
    CHECK(c.currency == "CNY");
    CHECK(catalog::parse_catalog({"c.csv", "name,memory_gib,tflops\nA,24,100\n"}).currency == "USD");
    CHECK_THROWS_WITH(catalog::parse_catalog({"c.csv", header + "A,24,100,4,CNY\nB,48,150,6,USD\n"}),
                      Catch::Contains("expected the catalog's one currency 'CNY' in column 'currency', got 'USD'"));
    // A row that leaves it blank takes the one the others give.
    CHECK(catalog::parse_catalog({"c.csv", header + "A,24,100,4,\nB,48,150,6,EUR\n"}).currency == "EUR");
}

TEST_CASE("a CSV catalog keeps its network, one for all rows, and --list-gpus reads back whole", "[catalog]") {
    const std::string header = "name,memory_gib,tflops,inter_node_gb_s\n";
    CHECK(catalog::parse_catalog({"c.csv", header + "A,24,100,0.3125\nB,48,150,0.3125\n"}).inter_node_gb_s == 0.3125);
    CHECK(catalog::parse_catalog({"c.csv", header + "A,24,100,\nB,48,150,\n"}).inter_node_gb_s == 25);
    CHECK_THROWS_WITH(catalog::parse_catalog({"c.csv", header + "A,24,100,0.3125\nB,48,150,0.5\n"}),
                      Catch::Contains("expected the catalog's one network '0.3125' in column 'inter_node_gb_s', got '0.5'"));
    CHECK_THROWS_AS(catalog::parse_catalog({"c.csv", header + "A,24,100,0\n"}), ConfigError);
    // Compared exactly, and the first row's cell quoted as written.
    CHECK_THROWS_WITH(catalog::parse_catalog({"c.csv", header + "A,24,100,12.50\nB,48,150,12.5000001\n"}),
                      Catch::Contains("one network '12.50' in column 'inter_node_gb_s', got '12.5000001'"));
    CHECK(catalog::parse_catalog({"c.csv", header + "A,24,100,12.50\nB,48,150,12.5\n"}).inter_node_gb_s == 12.5);
    const catalog::GpuCatalog juchi = catalog::named_catalog("juchi");
    const catalog::GpuCatalog back = catalog::parse_catalog({"juchi.csv", model::list_gpus_csv(juchi)});
    CHECK(back.inter_node_gb_s == juchi.inter_node_gb_s);
    CHECK(back.currency == juchi.currency);
    REQUIRE(back.gpus.size() == juchi.gpus.size());
    for (size_t i = 0; i < juchi.gpus.size(); ++i) {
        CHECK(back.gpus[i].name == juchi.gpus[i].name);
        CHECK(back.gpus[i].price_per_hour == juchi.gpus[i].price_per_hour);
        CHECK(back.gpus[i].mem_bw_gb_s == juchi.gpus[i].mem_bw_gb_s);
    }
}

TEST_CASE("a catalog's misspelt key or column is refused, and tflops_kind reads back", "[catalog]") {
    const std::string yaml = "kind: gpu-catalog\nversion: 1\ngpus:\n  - {name: X, memory_gib: 16, tflops: 100, ";
    CHECK_THROWS_WITH(catalog::parse_catalog({"c.yaml", yaml + "mem_bw_gbs: 900}\n"}),
                      Catch::Contains("unknown key 'mem_bw_gbs' in 'gpus', did you mean 'mem_bw_gb_s'"));
    CHECK_THROWS_WITH(catalog::parse_catalog({"c.yaml", yaml + "}\ncurrencies: EUR\n"}),
                      Catch::Contains("unknown key 'currencies' in 'catalog'"));
    CHECK_THROWS_WITH(catalog::parse_catalog({"c.csv", "name,memory_gib,tflops,mem_bw_gbs\nX,16,100,900\n"}),
                      Catch::Contains("unknown column 'mem_bw_gbs', did you mean 'mem_bw_gb_s'"));
    CHECK(catalog::parse_catalog({"c.yaml", yaml + "tflops_kind: fp32}\n"}).gpus[0].tflops_from_fp32);
    CHECK_FALSE(catalog::parse_catalog({"c.csv", "name,memory_gib,tflops,tflops_kind\nX,16,100,tensor\n"}).gpus[0].tflops_from_fp32);
    CHECK_THROWS_AS(catalog::parse_catalog({"c.csv", "name,memory_gib,tflops,tflops_kind\nX,16,100,bf16\n"}), ConfigError);
}

TEST_CASE("a catalog's FP32 peak: gpus.csv's column, a file's fp32_tflops, and tflops itself where that is FP32", "[catalog]") {
    const auto& def = catalog::named_catalog("default");
    CHECK(def.find("A100-80GB-SXM").fp32_tflops == Approx(19.5));
    CHECK(def.find("A100-80GB-SXM").tflops == Approx(312));
    const std::string yaml = "kind: gpu-catalog\nversion: 1\ngpus:\n  - {name: X, memory_gib: 16, tflops: 100, ";
    CHECK(catalog::parse_catalog({"c.yaml", yaml + "fp32_tflops: 12.5}\n"}).gpus[0].fp32_tflops == 12.5);
    CHECK(catalog::parse_catalog({"c.yaml", yaml + "}\n"}).gpus[0].fp32_tflops == 0);  // unknown
    CHECK(catalog::parse_catalog({"c.yaml", yaml + "tflops_kind: fp32}\n"}).gpus[0].fp32_tflops == 100);
    CHECK(catalog::parse_catalog({"c.csv", "name,memory_gib,tflops,fp32_tflops\nX,16,100,7\n"}).gpus[0].fp32_tflops == 7);
}

TEST_CASE("a GPU's compute capability: the catalog's column, and a name's family", "[catalog]") {
    const auto c = catalog::named_catalog("default");
    CHECK(c.find("H200-SXM").compute_capability == Approx(9.0));
    CHECK(c.find("L40S").compute_capability == Approx(8.9));
    CHECK(c.find("MI300X").compute_capability == 0);  // not a CUDA part
    // A measured run's GPU cell: its first word picks the family, whatever follows.
    CHECK(catalog::family_compute_capability(c, "a100-sxm-80gb") == Approx(8.0));
    CHECK(catalog::family_compute_capability(c, "H100_HBM2e 96GB") == Approx(9.0));
    CHECK(catalog::family_compute_capability(c, "v100-sxm3-32gb") == Approx(7.0));
    // RTX cards of 7.5 and 8.6: the first two words tell them apart, the first alone does not.
    CHECK(catalog::family_compute_capability(c, "rtx-3090") == Approx(8.6));
    CHECK(catalog::family_compute_capability(c, "RTX A6000") == Approx(8.6));
    CHECK(catalog::family_compute_capability(c, "rtx") == 0);
    CHECK_FALSE(catalog::family_known(c, "rtx"));  // a family that does not tell
    CHECK(catalog::family_compute_capability(c, "NVIDIA Quadro RTX 6000 Turing") == Approx(7.5));
    CHECK(catalog::family_compute_capability(c, "Quadro RTX 6000") == Approx(7.5));  // torch's name for it
    CHECK(catalog::family_compute_capability(c, "NVIDIA GeForce RTX 2080 Ti") == Approx(7.5));
    CHECK(catalog::family_compute_capability(c, "NVIDIA GeForce RTX 3090 Ti") == Approx(8.6));
    CHECK(catalog::family_known(c, "AMD Instinct MI250X/MI250"));
    CHECK(catalog::family_compute_capability(c, "NVIDIA RTX 6000 Ada Generation") == 0);  // not the Turing card
    CHECK_FALSE(catalog::family_known(c, "NVIDIA GeForce RTX 4090"));
    CHECK(catalog::family_compute_capability(c, "rtx-4090") == 0);  // an RTX the catalog does not list
    CHECK(catalog::family_compute_capability(c, "gb200") == 0);     // not listed
    CHECK(catalog::family_compute_capability(c, "") == 0);
    CHECK_FALSE(catalog::family_known(c, "NVIDIA"));
    // Names as torch.cuda.get_device_name() gives them: the vendor's and product line's words go.
    CHECK(catalog::family_compute_capability(c, "NVIDIA H100 80GB HBM3") == Approx(9.0));
    CHECK(catalog::family_compute_capability(c, "NVIDIA A100-SXM4-80GB") == Approx(8.0));
    CHECK(catalog::family_compute_capability(c, "Tesla V100-SXM2-32GB") == Approx(7.0));
    CHECK(catalog::family_compute_capability(c, "NVIDIA GeForce RTX 3090") == Approx(8.6));
    CHECK(catalog::family_compute_capability(c, "NVIDIA GH200 480GB") == Approx(9.0));
    CHECK(catalog::family_known(c, "AMD Instinct MI300X"));
    CHECK(catalog::family_compute_capability(c, "AMD Instinct MI300X") == 0);  // not a CUDA part
    // A catalog file may give it (YAML or CSV); without it, unknown.
    const auto yaml = catalog::parse_catalog(
        {"c.yaml", "kind: gpu-catalog\nversion: 1\ngpus:\n  - {name: X, memory_gib: 80, tflops: 900, compute_capability: 9.0}\n"});
    CHECK(yaml.gpus.at(0).compute_capability == Approx(9.0));
    const auto csv = catalog::parse_catalog({"c.csv", "name,memory_gib,tflops,compute_capability\nA,24,100,8.6\nB,48,150,\n"});
    CHECK(csv.gpus.at(0).compute_capability == Approx(8.6));
    CHECK(csv.gpus.at(1).compute_capability == 0);
    // Where a catalog file does not say, a name of a known family still tells it.
    const auto named = catalog::parse_catalog({"c.csv", "name,memory_gib,tflops\nV100-PCIe-32GB,32,125\nX,24,100\n"});
    CHECK(catalog::compute_capability_of(named.gpus.at(0)) == Approx(7.0));
    CHECK(catalog::compute_capability_of(named.gpus.at(1)) == 0);
    CHECK(catalog::compute_capability_of(csv.gpus.at(0)) == Approx(8.6));
    // Older families no default type is of, from NVIDIA's list: a K80 is no bf16 GPU of unknown make.
    const auto gavel = catalog::parse_catalog({"c.csv", "name,memory_gib,tflops\nK80,12,4.37\nTesla P40,24,12\n"});
    CHECK(catalog::compute_capability_of(gavel.gpus.at(0)) == Approx(3.7));
    CHECK(catalog::compute_capability_of(gavel.gpus.at(1)) == Approx(6.1));
    CHECK(catalog::default_family_compute_capability("K80-12GB") == Approx(3.7));
    CHECK(catalog::default_family_compute_capability("P4") == Approx(6.1));
    CHECK(catalog::default_family_compute_capability("P40") == Approx(6.1));  // no P4 read in it
    CHECK(catalog::default_family_compute_capability("NVIDIA GeForce GTX 1080 Ti") == Approx(6.1));
    CHECK(catalog::default_family_compute_capability("GTX-980-Ti") == Approx(5.2));
    CHECK(catalog::default_family_compute_capability("GTX") == 0);
    CHECK(catalog::default_family_known("Tesla K80"));
    CHECK_FALSE(catalog::default_family_known("X"));
    CHECK(catalog::default_family_compute_capability("A100-SXM4-40GB") == Approx(8.0));  // the catalog's first
    CHECK_THROWS_WITH(catalog::parse_catalog({"c.csv", "name,memory_gib,tflops,compute_capability\nA,24,100,-1\n"}),
                      Catch::Contains("compute_capability"));
    // CUDA's major.minor: 8.95 or 0.5 is none, nor is 42.
    for (const char* bad : {"8.95", "0.5", "42"})
        CHECK_THROWS_AS(catalog::parse_catalog({"c.csv", std::string("name,memory_gib,tflops,compute_capability\nA,24,100,") +
                                                              bad + "\n"}),
                        ConfigError);
    CHECK(catalog::valid_compute_capability(12.1));
    CHECK(catalog::valid_compute_capability(0));
    // fp8: 0 or 1, in either form; not said, -1.
    const auto fp8 = catalog::parse_catalog({"c.csv", "name,memory_gib,tflops,fp8\nA,24,100,0\nB,48,150,\n"});
    CHECK(fp8.gpus.at(0).fp8 == 0);
    CHECK(fp8.gpus.at(1).fp8 == -1);
    CHECK(catalog::parse_catalog({"c.yaml", "kind: gpu-catalog\nversion: 1\ngpus:\n  - {name: X, memory_gib: 80, tflops: 900, fp8: 1}\n"})
              .gpus.at(0).fp8 == 1);
    CHECK_THROWS_AS(catalog::parse_catalog({"c.csv", "name,memory_gib,tflops,fp8\nA,24,100,2\n"}), ConfigError);
}

TEST_CASE("a slip is one letter from one name, never a short or loosely similar word", "[catalog]") {
    const std::vector<std::string> keys = {"id", "app", "done", "model", "tau_s", "gavel", "scales", "num_gpus",
                                           "migrations", "throughput"};
    CHECK(io::likely_slip("scale", keys) == "scales");
    CHECK(io::likely_slip("througput", keys) == "throughput");
    CHECK(io::likely_slip("Scales", keys) == "scales");
    // Words shortened to 3 characters or more, as many words.
    const std::vector<std::string> columns{"job_id", "submit_time_s", "num_gpus", "duration_s", "memory_gib"};
    CHECK(io::likely_slip("mem_gib", columns) == "memory_gib");
    CHECK(io::likely_slip("sub_time_s", columns) == "submit_time_s");
    CHECK(io::likely_slip("dur_s", columns) == "duration_s");
    CHECK(io::likely_slip("me_gib", columns).empty());   // too short a start
    CHECK(io::likely_slip("mem", columns).empty());      // one word of two
    CHECK(io::likely_slip("memory_gib_x", columns).empty());
    // Two neighbours swapped is one slip; a name's leading words alone stand for it.
    CHECK(io::likely_slip("dwon", {"name", "gpu", "gpus", "down"}) == "down");
    CHECK(io::likely_slip("priority_wieght", {"priority_weight", "preemptible"}) == "priority_weight");
    CHECK(io::likely_slip("priority", {"priority_weight", "preemptible"}) == "priority_weight");
    CHECK(io::likely_slip("gpu_util", {"gpu_util_pct", "memory_gib"}) == "gpu_util_pct");
    CHECK(io::likely_slip("memory", {"gpu_util_pct", "memory_gib"}) == "memory_gib");
    CHECK(io::likely_slip("time", {"time_s", "time_per_type_s"}).empty());  // two names begin so: neither
    // What did_you_mean would offer for keys a state may well carry of its own.
    for (const char* own : {"status", "note", "node", "tags", "label", "tp", "dp", "iterations", "duration_s",
                            "model_name", "gpus", "owner"})
        CHECK(io::likely_slip(own, keys).empty());
}
