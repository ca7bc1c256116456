#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <hetsched/io/csv_table.hpp>
#include <hetsched/model/memory.hpp>
#include <hetsched/model/transformer.hpp>
#include <hetsched/model/job_spec.hpp>
#include <hetsched/sched/job_model.hpp>
#include <hetsched/sched/state_document.hpp>

using namespace hetsched;
using namespace hetsched::sched;

namespace {

io::TextInput example() {
    std::ifstream f(HETSCHED_TEST_DATA "/../../examples/cluster-state.yaml");
    std::stringstream ss;
    ss << f.rdbuf();
    return {"cluster-state.yaml", ss.str()};
}

const catalog::GpuCatalog& default_catalog() {
    static const catalog::GpuCatalog c = catalog::named_catalog("default");
    return c;
}

}  // namespace

TEST_CASE("A state written by a round reads back as the round left it", "[state]") {
    StateDocument doc = read_state(example(), default_catalog());
    REQUIRE(doc.state.jobs.size() == 5);
    REQUIRE(doc.state.types.size() == 3);
    RoundOptions o;
    const RoundResult r = run_round(doc.state, o);
    const std::string text = write_state(doc, r, false);
    const StateDocument back = read_state({"next.yaml", text}, default_catalog());
    const ClusterState &a = r.state, &b = back.state;
    CHECK(b.round == a.round);
    CHECK(b.last_decision_s == a.last_decision_s);
    CHECK(b.active_set == a.active_set);
    CHECK_FALSE(b.churned());
    for (size_t k = 0; k < a.jobs.size(); ++k) {
        INFO("job " << a.jobs[k].id);
        CHECK(b.jobs[k].placement == a.jobs[k].placement);
        CHECK(b.jobs[k].book.rho == Approx(a.jobs[k].book.rho).epsilon(1e-5));
        CHECK(b.jobs[k].book.tau_s == Approx(a.jobs[k].book.tau_s).epsilon(1e-5));
        CHECK(b.jobs[k].book.migrations == a.jobs[k].book.migrations);
        CHECK(b.jobs[k].book.first_start_s == Approx(a.jobs[k].book.first_start_s).epsilon(1e-5));
    }
    CHECK(text.find("user: alice") != std::string::npos);  // unknown keys pass through
}

TEST_CASE("Node names that YAML would read as numbers or dates are written quoted and read back", "[state]") {
    io::TextInput in = example();
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"v100-a", "123"}, {"p100-a", "2002-01-01"}}) {
        for (size_t at = in.text.find(from); at != std::string::npos; at = in.text.find(from, at))
            in.text.replace(at, from.size(), to);
    }
    StateDocument doc = read_state(in, default_catalog());
    const RoundResult r = run_round(doc.state, RoundOptions{});
    const std::string text = write_state(doc, r, false);
    CHECK(text.find("nodes: {\"123\": ") != std::string::npos);
    CHECK(text.find("nodes: {\"2002-01-01\": ") != std::string::npos);
    const StateDocument back = read_state({"next.yaml", text}, default_catalog());
    for (size_t k = 0; k < r.state.jobs.size(); ++k) CHECK(back.state.jobs[k].placement == r.state.jobs[k].placement);
}

TEST_CASE("The next round credits the time each job held its GPUs", "[state]") {
    StateDocument doc = read_state(example(), default_catalog());
    ClusterState s = run_round(doc.state, {}).state;
    s.time_s += 300;
    const ClusterState next = run_round(s, {}).state;
    for (size_t k = 0; k < s.jobs.size(); ++k) {
        const Job& j = s.jobs[k];
        REQUIRE(j.placement.running());
        CHECK(next.jobs[k].book.attained_gpu_s == Approx(300.0 * j.num_gpus));
        CHECK(next.jobs[k].book.time_per_type_s[static_cast<size_t>(j.placement.type)] == Approx(300));
    }
}

TEST_CASE("A job's model gives its memory per GPU and its checkpoint", "[state]") {
    const StateDocument doc = read_state(example(), default_catalog());
    const Job& j = doc.state.jobs.back();
    REQUIRE(j.id == "gptneo-e");
    CHECK(j.memory_on(1) > 16);  // a 1.3B model with Adam does not fit a 16 GiB P100 ...
    CHECK(j.memory_on(0) < 32);  // ... but fits the 32 GiB V100
    CHECK_FALSE(doc.state.can_run(j, 1));
    CHECK(doc.state.can_run(j, 0));
    const double params = model::total_params(catalog::find_model("gpt-neo-1.3b"));
    CHECK(j.checkpoint_gib == Approx(params * (2 + 12) / model::kGiB));  // bf16 weights, fp32 master, Adam
}

TEST_CASE("A job's model is sized on each type's GPU: no fused attention for Transformer Engine on a V100", "[state]") {
    // Megatron-LM (Transformer Engine, flash attention asked for) at 2048 tokens: on the A100 flash
    // attention runs, on the V100 (compute capability 7.0) the unfused attention keeps the scores.
    const std::string text = "kind: cluster-state\nversion: 1\ntime_s: 0\n"
                             "gpu_types: [{name: A100, memory_gib: 80}, {name: V100, memory_gib: 32}]\n"
                             "nodes: [{name: a, gpu: A100, gpus: 8}, {name: v, gpu: V100, gpus: 8}]\n"
                             "jobs: [{id: j, submit_time_s: 0, num_gpus: 8, work: 1, throughput: {A100: 2, V100: 1},\n"
                             "        model: {name: gpt-neo-1.3b}, training: {seq_len: 2048, global_batch: 8}}]\n";
    const StateDocument doc = read_state({"s.yaml", text}, default_catalog());
    const Job& j = doc.state.jobs.at(0);
    REQUIRE(j.memory_gib_by_type.size() == 2);
    auto job = model::read_job_spec(io::parse_yaml(
        {"j.yaml", "kind: job\nversion: 1\nmodel: {name: gpt-neo-1.3b}\ntraining: {seq_len: 2048, global_batch: 8}\n"}));
    CHECK(j.memory_on(0) == Approx(model_memory_gib(job, 8, 8.0)));
    CHECK(j.memory_on(1) == Approx(model_memory_gib(job, 8, 7.0)));
    job.training.flash_attention = false;
    CHECK(j.memory_on(1) == Approx(model_memory_gib(job, 8, 8.0)));  // as unfused attention anywhere
    CHECK(j.memory_on(1) > j.memory_on(0));
}

TEST_CASE("Without a gpu_types list, node types and their memory come from the catalog", "[state]") {
    const std::string text = "kind: cluster-state\nversion: 1\ntime_s: 0\n"
                             "nodes: [{name: n, gpu: a100-80gb-sxm, gpus: 8}]\n"
                             "jobs: [{id: j, submit_time_s: 0, num_gpus: 1, work: 1, "
                             "throughput: {A100-80GB-SXM: 1}}]\n";
    const StateDocument doc = read_state({"s.yaml", text}, default_catalog());
    REQUIRE(doc.state.types.size() == 1);
    CHECK(doc.state.types[0].name == "A100-80GB-SXM");
    CHECK(doc.state.types[0].memory_gib == 80);
}

TEST_CASE("A solver out of time is an error to try later, never an answer", "[state]") {
    StateDocument doc = read_state(example(), default_catalog());
    RoundOptions o;
    o.exact = true;
    o.time_limit_s = 1e-9;
    CHECK_THROWS_AS(run_round(doc.state, o), TryLater);
}

TEST_CASE("Accepting an unproven round keeps the running jobs' types and says so in solve:", "[state]") {
    StateDocument doc = read_state(example(), default_catalog());
    RoundOptions o;
    o.exact = true;
    o.time_limit_s = 1e-9;
    o.accept_unproven = true;
    const RoundResult r = run_round(doc.state, o);
    CHECK_FALSE(r.decision.stats.proven);
    for (size_t k = 0; k < doc.state.jobs.size(); ++k)
        if (doc.state.jobs[k].placement.running()) CHECK(r.state.jobs[k].placement.type == doc.state.jobs[k].placement.type);
    CHECK(write_state(doc, r, false).find("proven: false") != std::string::npos);
}

TEST_CASE("Two spellings of one catalog type are one type, in either order", "[state]") {
    for (const char* nodes : {"[{name: a, gpu: T4, gpus: 1}, {name: b, gpu: t4, gpus: 1}]",
                              "[{name: a, gpu: t4, gpus: 1}, {name: b, gpu: T4, gpus: 1}]"}) {
        const std::string text = std::string("kind: cluster-state\nversion: 1\ntime_s: 0\nnodes: ") + nodes +
                                 "\njobs: [{id: j, submit_time_s: 0, num_gpus: 2, work: 1, throughput: {T4: 1}}]\n";
        const StateDocument doc = read_state({"s.yaml", text}, default_catalog());
        CHECK(doc.state.types.size() == 1);
        CHECK(doc.state.nodes[0].type == doc.state.nodes[1].type);
    }
}

TEST_CASE("An elastic job's scales read, resize under sia, and read back at its new size", "[state]") {
    const std::string text = "kind: cluster-state\nversion: 1\ntime_s: 0\nround_length_s: 60\n"
                             "gpu_types: [{name: A}]\nnodes: [{name: n1, gpu: A, gpus: 2}]\n"
                             "jobs:\n  - {id: x, submit_time_s: 0, num_gpus: 1, work: 1000,\n"
                             "     scales: [{gpus: 1, throughput: {A: 10}}, {gpus: 2, throughput: {A: 18}}]}\n"
                             "  - {id: y, submit_time_s: 0, num_gpus: 1, work: 1000, throughput: {A: 10}}\n";
    const StateDocument doc = read_state({"s.yaml", text}, default_catalog());
    REQUIRE(doc.state.jobs[0].elastic());
    CHECK(doc.state.jobs[0].throughput == std::vector<double>{10});  // from its scale of 1 GPU
    RoundOptions o;
    o.policy = PolicyKind::sia;
    const RoundResult r = run_round(doc.state, o);
    const StateDocument back = read_state({"next.yaml", write_state(doc, r, false)}, default_catalog());
    // x alone on both GPUs costs 1.8^-0.5 + 1.1 (y waits) = 1.845 < 2 for one GPU each.
    CHECK(back.state.jobs[0].num_gpus == 2);
    CHECK(back.state.jobs[0].throughput == std::vector<double>{18});
    CHECK(back.state.jobs[0].placement.gpus() == 2);
    CHECK_FALSE(back.state.jobs[1].placement.running());

    std::string bad = text;
    bad.replace(bad.find("num_gpus: 1"), 11, "num_gpus: 4");
    CHECK_THROWS_WITH(read_state({"s.yaml", bad}, default_catalog()), Catch::Contains("not one of its scales"));
    bad = text;
    bad.replace(bad.find("{gpus: 2,"), 9, "{gpus: 1,");
    CHECK_THROWS_WITH(read_state({"s.yaml", bad}, default_catalog()), Catch::Contains("ascending"));
}

TEST_CASE("Two jobs may share one GPU: a third on it, or a multi-GPU job sharing, is refused", "[state]") {
    auto state = [](const std::string& jobs) {
        return "kind: cluster-state\nversion: 1\ntime_s: 0\ngpu_types: [{name: A, memory_gib: 16}]\n"
               "nodes: [{name: n1, gpu: A, gpus: 1}]\njobs:\n" + jobs;
    };
    auto sharer = [](const std::string& id, int gpus = 1) {
        return "  - {id: " + id + ", submit_time_s: 0, num_gpus: " + std::to_string(gpus) +
               ", work: 10, throughput: {A: 1}, memory_gib: 4, gpu_util_pct: 40,\n"
               "     placement: {gpu: A, nodes: {n1: " + std::to_string(gpus) + "}, shared: true}}\n";
    };
    const StateDocument two = read_state({"s.yaml", state(sharer("x") + sharer("y"))}, default_catalog());
    CHECK(two.state.jobs[0].placement.shared);
    CHECK(two.state.jobs[0].util_pct == 40);
    CHECK_THROWS_WITH(read_state({"s.yaml", state(sharer("x") + sharer("y") + sharer("z"))}, default_catalog()),
                      Catch::Contains("take 2"));
    CHECK_THROWS_WITH(read_state({"s.yaml", "kind: cluster-state\nversion: 1\ntime_s: 0\ngpu_types: [{name: A}]\n"
                                            "nodes: [{name: n1, gpu: A, gpus: 2}]\njobs:\n" + sharer("w", 2)},
                                 default_catalog()),
                      Catch::Contains("only a job on one GPU"));
}

namespace {

/// A state of one type A on node `node`, with `jobs` (list items) under jobs:.
std::string one_node_state(const std::string& jobs, const std::string& node = "n1") {
    return "kind: cluster-state\nversion: 1\ntime_s: 0\ngpu_types: [{name: A}, {name: B}]\n"
           "nodes: [{name: '" + node + "', gpu: A, gpus: 2}, {name: m1, gpu: B, gpus: 2}]\njobs:\n" + jobs;
}

/// The error read_state throws on `text`, as "line:col: message".
std::string state_error(const std::string& text) {
    try {
        read_state({"s.yaml", text}, default_catalog());
    } catch (const DataError& e) {
        return std::to_string(e.pos().line) + ":" + std::to_string(e.pos().col) + ": " + e.what();
    }
    return "no error";
}

}  // namespace

TEST_CASE("A node name the actions' nodes column cannot hold is refused at the name", "[state]") {
    const std::string job = "  - {id: j, submit_time_s: 0, num_gpus: 1, work: 10, throughput: {A: 1}}\n";
    CHECK(state_error(one_node_state(job, "rack;1")) ==
          "5:16: node name 'rack;1' holds ';', which the actions' nodes column (name:gpus joined by ';') uses: rename the node");
    CHECK_THAT(state_error(one_node_state(job, "rack:1")), Catch::StartsWith("5:16: node name 'rack:1' holds ':'"));
    CHECK_THAT(state_error(one_node_state(job, "")), Catch::StartsWith("5:16: expected a non-empty node name"));
    CHECK_NOTHROW(read_state({"s.yaml", one_node_state(job, "rack-1.a")}, default_catalog()));
}

TEST_CASE("The actions CSV quotes a job id holding a comma, a quote or a line break", "[state]") {
    const StateDocument doc = read_state(
        {"s.yaml", one_node_state("  - {id: 'a,b', submit_time_s: 0, num_gpus: 1, work: 10, throughput: {A: 1}}\n"
                                  "  - {id: 'say \"hi\"', submit_time_s: 0, num_gpus: 1, work: 10, throughput: {A: 1}}\n"
                                  "  - {id: \"two\\nlines\", submit_time_s: 0, num_gpus: 1, work: 10, throughput: {B: 1}}\n")},
        default_catalog());
    const RoundResult r = run_round(doc.state, {});
    const std::string csv = actions_csv(r.state, r.actions);
    CHECK(csv == "job_id,action,gpu,nodes\n\"a,b\",start,A,n1:1\n\"say \"\"hi\"\"\",start,A,n1:1\n\"two\nlines\",start,B,m1:1\n");
    // Read back, each row has its four fields and the ids as given.
    const io::CsvTable t = io::CsvTable::parse({"a.csv", csv});
    REQUIRE(t.rows() == 3);
    CHECK(t.cell(0, 0).text == "a,b");
    CHECK(t.cell(1, 0).text == "say \"hi\"");
    CHECK(t.cell(2, 0).text == "two\nlines");
}

TEST_CASE("A placement on a type the job has no throughput for is refused at its gpu", "[state]") {
    const std::string text =
        one_node_state("  - {id: j, submit_time_s: 0, num_gpus: 1, work: 10, throughput: {B: 1},\n"
                       "     placement: {gpu: A, nodes: {n1: 1}}}\n");
    CHECK(state_error(text) == "8:23: job 'j' is placed on A, a type its throughput does not give (it cannot run there)");
    // An elastic job: the throughput of its scale at num_gpus decides, where 0 means it cannot run.
    CHECK_THAT(state_error(one_node_state("  - {id: e, submit_time_s: 0, num_gpus: 1, work: 10,\n"
                                          "     scales: [{gpus: 1, throughput: {A: 0, B: 1}}],\n"
                                          "     placement: {gpu: A, nodes: {n1: 1}}}\n")),
               Catch::StartsWith("9:23: job 'e' is placed on A"));
}

TEST_CASE("A Tiresias queue beyond --tiresias-queues-s is refused at the queue", "[state]") {
    const StateDocument doc = read_state(
        {"s.yaml", one_node_state("  - {id: new, submit_time_s: 0, num_gpus: 1, work: 10, throughput: {A: 1}}\n"
                                  "  - {id: j, submit_time_s: 0, num_gpus: 1, work: 10, throughput: {A: 1},\n"
                                  "     tiresias: {queue: 7, entered_s: 0}}\n")},
        default_catalog());
    RoundOptions o;
    o.policy = PolicyKind::tiresias;
    try {
        check_round_options(doc, o);
        FAIL("expected an error");
    } catch (const DataError& e) {
        CHECK(e.pos().line == 9);
        CHECK(e.pos().col == 24);
        CHECK(std::string(e.what()) == "job 'j' sits in Tiresias queue 7, but --tiresias-queues-s makes 3 queues (0 to 2): "
                                       "read a state with the queue limits it was written with");
    }
    o.tiresias_queues_s = {1, 2, 3, 4, 5, 6, 7};  // eight queues: 7 is the last
    CHECK_NOTHROW(check_round_options(doc, o));
    o.tiresias_queues_s = {3250, 7200};
    o.policy = PolicyKind::fft;  // other policies leave Tiresias' bookkeeping alone
    CHECK_NOTHROW(check_round_options(doc, o));
}

TEST_CASE("Without timings two rounds of one state write the same bytes", "[state]") {
    const StateDocument doc = read_state(example(), default_catalog());
    const RoundResult a = run_round(doc.state, {}), b = run_round(doc.state, {});
    const std::string x = write_state(doc, a, false, false);
    CHECK(x == write_state(doc, b, false, false));
    CHECK(x.find("wall_time_s") == std::string::npos);
    CHECK(write_state(doc, a, false).find("wall_time_s") != std::string::npos);
}

TEST_CASE("An idle cluster's state may leave its jobs out, or give the key no value", "[state]") {
    const std::string head = "kind: cluster-state\nversion: 1\ntime_s: 0\ngpu_types:\n  - {name: V100, memory_gib: 32}\n"
                             "nodes:\n  - {name: v100-a, gpu: V100, gpus: 4}\n";
    for (const std::string tail : {"", "jobs:\n", "jobs: []\n"}) {
        const StateDocument d = read_state({"s.yaml", head + tail}, default_catalog());
        CHECK(d.state.jobs.empty());
        CHECK(d.yaml.root["jobs"].IsSequence());  // written back as jobs: []
    }
    CHECK_THROWS_WITH(read_state({"s.yaml", head + "jobs: {}\n"}, default_catalog()), Catch::Contains("expected a list of jobs"));
}
