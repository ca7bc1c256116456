#include <catch2/catch.hpp>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/sim/replay.hpp>
#include <hetsched/sim/report.hpp>
#include <hetsched/sim/application_work.hpp>
#include <hetsched/sim/replay_input.hpp>
#include <hetsched/sim/throughput_table.hpp>
#include <hetsched/sim/trace.hpp>

#include "fit_fixture.hpp"
#include "sched_fixture.hpp"

using namespace hetsched;
using namespace hetsched::sim;

namespace {

ReplayCluster one_gpu_each(const std::vector<std::string>& types) {
    const sched::ClusterState s = sched::test::cluster(types);
    return {s.types, s.nodes};
}

ReplayJob rjob(const std::string& id, double submit, double work, std::vector<double> throughput) {
    return {sched::test::job(id, work, std::move(throughput), 1, submit), "m", {}};
}

ReplayOptions options(sched::PolicyKind p, double round_length_s = 300) {
    ReplayOptions o;
    o.round.policy = p;
    o.round_length_s = round_length_s;
    return o;
}

const JobResult& result(const ReplayResult& r, const std::string& id) {
    for (const auto& j : r.jobs)
        if (j.id == id) return j;
    FAIL("no job " << id);
    return r.jobs.front();
}

}  // namespace

TEST_CASE("One job alone finishes at the instant its work is done", "[replay]") {
    const ReplayResult r = replay({rjob("a", 0, 1000, {1})}, one_gpu_each({"A"}), options(sched::PolicyKind::fft));
    CHECK(result(r, "a").jct_s() == Approx(1000));
    CHECK(result(r, "a").starvation_s() == 0);
    CHECK(r.summary.avg_jct_s == Approx(1000));
    CHECK(r.summary.makespan_s == Approx(1000));
}

TEST_CASE("Two jobs contend for one GPU: the second starts at the next decision", "[replay]") {
    const ReplayCluster c = one_gpu_each({"A"});
    const std::vector<ReplayJob> jobs = {rjob("a", 0, 450, {1}), rjob("b", 0, 300, {1})};
    // fifo: a first (same arrival, id order); it finishes at 450, inside the second round; b starts at
    // the next decision, 600, and ends at 900.
    ReplayResult r = replay(jobs, c, options(sched::PolicyKind::fifo));
    CHECK(result(r, "a").finish_time_s == Approx(450));
    CHECK(result(r, "b").start_time_s == Approx(600));
    CHECK(result(r, "b").finish_time_s == Approx(900));
    // Deciding again when a job finishes, b starts at 450.
    ReplayOptions events = options(sched::PolicyKind::fifo);
    events.reschedule_on_events = true;
    r = replay(jobs, c, events);
    CHECK(result(r, "b").finish_time_s == Approx(750));
}

TEST_CASE("A job arriving while every GPU is busy waits for the next decision after they free up", "[replay]") {
    const ReplayResult r = replay({rjob("a", 0, 1000, {1}), rjob("b", 100, 200, {1})}, one_gpu_each({"A"}),
                                  options(sched::PolicyKind::fifo));
    CHECK(result(r, "b").start_time_s == Approx(1200));
    CHECK(result(r, "b").jct_s() == Approx(1300));
    CHECK(result(r, "b").starvation_s() == Approx(1100));
}

TEST_CASE("A cluster that goes idle within a round decides again at the next arrival", "[replay]") {
    // a runs 50-150 and leaves the cluster idle; b arriving at 200 starts then, not at 350.
    ReplayResult r = replay({rjob("a", 50, 100, {1}), rjob("b", 200, 100, {1})}, one_gpu_each({"A"}),
                            options(sched::PolicyKind::fifo));
    CHECK(result(r, "b").start_time_s == 200);
    CHECK(result(r, "b").finish_time_s == Approx(300));
    REQUIRE(r.rounds.size() == 2);
    CHECK(r.rounds[0].time_s == 50);
    CHECK(r.rounds[0].length_s == Approx(150));  // the round ends at the decision that follows it
    // Arriving at 140, while a still runs, b waits for the next decision, 350.
    r = replay({rjob("a", 50, 100, {1}), rjob("b", 140, 100, {1})}, one_gpu_each({"A"}), options(sched::PolicyKind::fifo));
    CHECK(result(r, "b").start_time_s == 350);
}

TEST_CASE("A replay whose work needs more rounds than it decides is refused, or stopped when migrations stall it", "[replay]") {
    ReplayOptions o = options(sched::PolicyKind::srtf, 100);
    o.max_rounds = 10;
    // 'a' is present 0-150 s at least, 'b' 500-1400 s (1800 units at 2/s), 'c' 1000-1100 s: 1050 s,
    // 10.5 rounds of 100 s at least (the idle 150-500 s is jumped over); on one GPU c cannot run beside
    // b, so they need 1150 GPU-seconds: 11.5 rounds.
    const std::vector<ReplayJob> jobs = {rjob("a", 0, 300, {2}), rjob("b", 500, 1800, {2}), rjob("c", 1000, 200, {2})};
    CHECK_THROWS_WITH(replay(jobs, one_gpu_each({"A"}), o),
                      "the trace needs at least 11.5 rounds of 100 s (its jobs need 1150 GPU-seconds at least, 1150 s "
                      "of the cluster's 1 GPU), more than the 10 a replay decides: give a round length of at least "
                      "115 s (at most 1e7), or a shorter trace");
    o.max_rounds = 8;
    CHECK_THROWS_WITH(replay({jobs[1]}, one_gpu_each({"A"}), o),
                      "the trace needs at least 9 rounds of 100 s (its jobs are present 900 s at least; job 'b' "
                      "cannot finish before 1400 s), more than the 8 a replay decides: give a round length of at "
                      "least 113 s (at most 1e7), or a shorter trace");
    o.max_rounds = 20;
    CHECK(replay(jobs, one_gpu_each({"A"}), o).rounds.size() >= 11);
    // Capacity: two 1000 s jobs from 0 on one GPU are each present 1000 s at least, but the GPU serves
    // one at a time: 2000 GPU-seconds, 20 rounds (the time bound alone said 10, and the replay ran all
    // its rounds before stopping with a misleading "migrations" message).
    o.max_rounds = 15;
    const std::vector<ReplayJob> pair = {rjob("p", 0, 2000, {2}), rjob("q", 0, 2000, {2})};
    CHECK_THROWS_WITH(replay(pair, one_gpu_each({"A"}), o),
                      "the trace needs at least 20 rounds of 100 s (its jobs need 2000 GPU-seconds at least, 2000 s "
                      "of the cluster's 1 GPU), more than the 15 a replay decides: give a round length of at least "
                      "134 s (at most 1e7), or a shorter trace");
    // A job that may share a GPU (a utilisation given) may take half of one: 1000 GPU-seconds, 10 rounds.
    std::vector<ReplayJob> shared = pair;
    for (auto& rj : shared) rj.job.util_pct = 40;
    CHECK_NOTHROW(replay(shared, one_gpu_each({"A"}), options(sched::PolicyKind::fifo, 200)));
    o.max_rounds = 20;
    CHECK(replay(pair, one_gpu_each({"A"}), o).rounds.size() >= 20);
    // srtf moves L and S between a fast and a slow GPU, and each move costs a 1e6 s restart: neither
    // finishes within 1000 rounds, though their work needs 3 and 8.
    o.max_rounds = 1000;
    o.round.migration_restart_s = 1e6;
    CHECK_THROWS_WITH(replay({rjob("L", 0, 1600, {2, 1}), rjob("S", 100, 500, {2, 1})}, one_gpu_each({"fast", "slow"}), o),
                      Catch::Contains("stopped after 1000 rounds under srtf"));
}

TEST_CASE("A job that moves loses its migration time", "[replay]") {
    // srtf on a fast (2/s) and a slow (1/s) GPU, 30 s to restart, no checkpoint. L (6000 units) runs
    // alone on the fast GPU for a round; S (1200) arrives and takes it at 300; L moves to the slow GPU
    // (30 s lost: 870 done at 600, 1170 at 900); S ends at 900; L moves back (30 s lost) and needs
    // 4830 / 2 more: it ends at 900 + 30 + 2415 = 3345.
    const ReplayResult r = replay({rjob("L", 0, 6000, {2, 1}), rjob("S", 100, 1200, {2, 1})},
                                  one_gpu_each({"fast", "slow"}), options(sched::PolicyKind::srtf));
    CHECK(result(r, "S").finish_time_s == Approx(900));
    CHECK(result(r, "L").finish_time_s == Approx(3345));
    CHECK(result(r, "L").migrations == 2);
    CHECK(r.summary.migrations == 2);
}

TEST_CASE("FFT Table 1 through replay: 345 s for fft, about 426.7 s (64/9 min) for Gavel's allocation",
          "[replay]") {
    // Two 16-epoch jobs, 8 and 1 epochs/min on two GPUs, one each, free migration.
    const ReplayCluster c = one_gpu_each({"GPU0", "GPU1"});
    const std::vector<ReplayJob> jobs = {rjob("I0", 0, 16, {8.0 / 60, 1.0 / 60}), rjob("I1", 0, 16, {8.0 / 60, 1.0 / 60})};
    ReplayOptions o = options(sched::PolicyKind::fft, 60);
    o.round.migration_restart_s = 0;
    const ReplayResult fft = replay(jobs, c, o);
    CHECK(fft.summary.avg_jct_s * 2 == Approx(345));
    o.round.policy = sched::PolicyKind::gavel;
    o.round_length_s = 15;
    const ReplayResult gavel = replay(jobs, c, o);
    CHECK(gavel.summary.avg_jct_s * 2 == Approx(64.0 / 9 * 60).epsilon(0.03));
    // With 15 s rounds the lagging job's rho (Eq. 5) grows before the other finishes; the two jobs are
    // alike in every JCT term, so any compensation swaps them, and FFT shares like Gavel: still no worse.
    o.round.policy = sched::PolicyKind::fft;
    const ReplayResult fft15 = replay(jobs, c, o);
    CHECK(fft15.summary.avg_jct_s <= gavel.summary.avg_jct_s);
}

TEST_CASE("Finish-time fairness compares with 1/N of the cluster, N averaged over the job's life", "[replay]") {
    // Two identical jobs on one GPU, fifo: each alone would take 100 s; with two active all along the
    // first one's life, its fair share is half the GPU (200 s); it finishes at 100: FTF 0.5. The second
    // starts at the next decision (300) and ends at 400; two jobs were active for 100 s of its 400:
    // N = 500 / 400 = 1.25, isolated 125 s.
    const ReplayResult r = replay({rjob("a", 0, 100, {1}), rjob("b", 0, 100, {1})}, one_gpu_each({"A"}),
                                  options(sched::PolicyKind::fifo));
    CHECK(result(r, "a").ftf() == Approx(0.5));
    CHECK(result(r, "b").jct_s() == Approx(400));
    CHECK(result(r, "b").isolated_s == Approx(125));
    CHECK(result(r, "b").ftf() == Approx(400.0 / 125));
}

TEST_CASE("A trace job that only down nodes could hold is left out, not waited for", "[replay]") {
    ReplayCluster c = one_gpu_each({"A", "B"});
    c.nodes[1].gpus = 8;
    c.nodes[1].down = true;
    ThroughputTable table;
    table.types = {"A", "B"};
    table.rows[{"m", 1}] = {1, 1};
    std::vector<TraceJob> trace(2);
    trace[0].id = "small";
    trace[0].duration_s = 10;
    trace[0].model = "m";
    trace[1].id = "big";
    trace[1].num_gpus = 8;
    trace[1].duration_s = 10;
    trace[1].model = "m";
    JobCounts skipped;
    const auto jobs = build_jobs(trace, table, c, {}, skipped);
    CHECK(skipped.too_big == 1);
    REQUIRE(jobs.size() == 1);
    CHECK(replay(jobs, c, options(sched::PolicyKind::tiresias)).summary.jobs == 1);
}

TEST_CASE("A Sia/Pollux workload: jobs train their application's samples at the fitted samples/s", "[replay]") {
    const auto trace = read_trace({"w.csv", "name,time,application,num_replicas,batch_size\n"
                                            "bert-0,90.0,bert,2,64\n"
                                            "yolo-1,101.0,yolov3,1,8\n"});
    REQUIRE(trace.size() == 2);
    CHECK(trace[0].id == "bert-0");
    CHECK(trace[0].submit_time_s == 90);
    CHECK(trace[0].num_gpus == 2);
    CHECK(trace[0].batch_size == 64);
    CHECK(trace[0].duration_s == 0);
    CHECK(trace[1].model == "yolov3");

    // Pollux's step time, gamma 1: 32 per GPU computes in 0.02 + 0.001 * 32 = 0.052 s, and two GPUs on
    // one node exchange in alpha_r + beta_r * (2 - 2) = 0.05 s: 64 samples per 0.102 s.
    ThroughputTable table;
    table.types = {"T4"};
    table.fits = {fit::test::pollux_fit("bert", "T4", 0, 40, 0, 4)};
    const ReplayCluster c = one_gpu_each({"T4"});
    ReplayCluster two = c;
    two.nodes[0].gpus = 2;
    JobOptions o;
    o.applications = {{"bert", {1000, 2}}};
    JobCounts skipped;
    // yolov3 has no fit: an error naming the job, unless such jobs are to be left out.
    CHECK_THROWS_WITH(build_jobs(trace, table, two, o, skipped), Catch::Contains("yolo-1") && Catch::Contains("yolov3"));
    o.skip_unknown_models = true;
    const auto jobs = build_jobs(trace, table, two, o, skipped);
    CHECK(skipped.unknown_model == 1);
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].job.work == Approx(2000));
    CHECK(jobs[0].job.throughput[0] == Approx(64 / 0.102));
    // An application whose work is not known is an error, not a guess.
    o.applications.clear();
    CHECK_THROWS_WITH(build_jobs(trace, table, two, o, skipped), Catch::Contains("--app-work"));
}

TEST_CASE("Application work: Sia's six, and a CSV that adds to them or replaces one", "[replay]") {
    const auto base = sia_applications();
    CHECK(base.at("cifar10").samples() == Approx(50048 * 100.0));
    const auto more = read_application_work({"w.csv", "application,samples_per_epoch,epochs\ncifar10,50000,10\ngpt,1e6,1\n"}, base);
    CHECK(more.at("cifar10").samples() == Approx(500000));
    CHECK(more.at("gpt").samples() == Approx(1e6));
    CHECK(more.at("imagenet").epochs == 90);
    CHECK_THROWS_WITH(read_application_work({"w.csv", "application,samples_per_epoch,epochs\nx,0,1\n"}, base),
                      Catch::Contains("samples_per_epoch"));
    // One application twice in a file: refused, not the last row taken.
    CHECK_THROWS_WITH(read_application_work({"w.csv", "application,samples_per_epoch,epochs\na,1000,10\na,2000,10\n"}, base),
                      Catch::Contains("application 'a' is given twice"));
}

TEST_CASE("A job whose FTF is 1 but for rounding is fair: one slower than its fair share by more is not", "[replay]") {
    std::vector<JobResult> jobs(3);
    for (auto& j : jobs) j.finish_time_s = 1000, j.start_time_s = 0;
    jobs[0].isolated_s = 1000;
    jobs[1].isolated_s = 1000 * (1 - 1e-12);  // FTF 1.000000000001: rounding
    jobs[2].isolated_s = 990;                 // FTF 1.0101
    const Summary s = summarize("fft", jobs, {}, 1);
    CHECK(s.unfair_fraction == Approx(1.0 / 3));
    CHECK(s.max_ftf == Approx(1000.0 / 990));
}

TEST_CASE("A throughput table gives each type its own largest listed count, scaled: names match with case ignored", "[replay]") {
    // V100 is listed at 1 GPU only, K80 at 4: at 4 GPUs V100 runs 4 x 2, K80 its own 10; P100's
    // explicit 0 at 4 GPUs stands (it cannot run there), though it runs at 1.
    const ThroughputTable t = read_throughputs(
        {"t.csv", "model,gpu,throughput,num_gpus\nm,V100,2,1\nm,P100,3,1\nm,K80,10,4\nm,P100,0,4\n"});
    CHECK(t.lookup("m", 4) == std::vector<double>{8, 0, 10});
    CHECK(t.lookup("m", 2) == std::vector<double>{4, 6, 0});
    CHECK(t.lookup("m", 8) == std::vector<double>{16, 0, 20});
    CHECK_THROWS_WITH(read_throughputs({"t.csv", "model,gpu,throughput\nm,V100,2\nm,v100,8\n"}),
                      "a second throughput for m on 1 GPU of V100: expected one value each");
}

namespace {

/// The error `read` throws, as "line:col: message".
template <typename F>
std::string error_of(F read) {
    try {
        read();
    } catch (const DataError& e) {
        return std::to_string(e.pos().line) + ":" + std::to_string(e.pos().col) + ": " + e.what();
    }
    return "no error";
}

}  // namespace

TEST_CASE("A throughput table refuses a row without a model or GPU name", "[replay]") {
    CHECK(error_of([] { read_throughputs({"t.csv", "model,gpu,throughput\n,V100,2\nm,K80,1\n"}); }) ==
          "2:1: expected a model name in column 'model', got an empty cell");
    CHECK(error_of([] { read_throughputs({"t.csv", "model,gpu,throughput\nm,V100,2\n  ,K80,1\n"}); }) ==
          "3:1: expected a model name in column 'model', got an empty cell");
    CHECK(error_of([] { read_throughputs({"t.csv", "model,gpu,throughput\nm,,2\n"}); }) ==
          "2:3: expected a GPU type name in column 'gpu', got an empty cell");
    CHECK(error_of([] { read_throughputs({"t.csv", "job_type,scale_factor,v100_steps_per_s\n,1,2\n"}); }) ==
          "2:1: expected a job type name in column 'job_type', got an empty cell");
    CHECK_THAT(error_of([] { read_throughputs({"t.json", "{\"v100\": {\"('', 1)\": {\"null\": 2}}}"}); }),
               Catch::Contains("expected a job type name in key"));
}

TEST_CASE("A throughput table refuses a column that is a slip of one it reads, others pass", "[replay]") {
    // num_gpu read as absent would make every row one GPU's.
    CHECK(error_of([] { read_throughputs({"t.csv", "model,gpu,throughput,num_gpu\nm,V100,12,4\n"}); }) ==
          "1:22: column 'num_gpu' is not read, did you mean 'num_gpus'?");
    CHECK(error_of([] { read_throughputs({"t.csv", "model,gpu,throughput,gpus\nm,V100,12,4\n"}); }) ==
          "1:22: column 'gpus' is not read, did you mean 'num_gpus'?");  // not 'gpu', which it has
    const ThroughputTable t = read_throughputs({"t.csv", "model,gpu,throughput,num_gpus,note\nm,V100,12,4,x\n"});
    CHECK(t.rows.count({"m", 4}) == 1);
}

TEST_CASE("A cluster file: version 1, known node keys, whole nodes, names the actions can hold", "[replay]") {
    const catalog::GpuCatalog cat = catalog::named_catalog("default");
    auto read = [&](const std::string& text) { return [&cat, text] { cluster_from_yaml({"c.yaml", text}, cat); }; };
    const std::string node = "nodes:\n  - {name: v1, gpu: V100, gpus: 4";
    CHECK(cluster_from_yaml({"c.yaml", "kind: cluster\nversion: 1\n" + node + ", free: 4}\n"}, cat).nodes.at(0).gpus == 4);
    CHECK(cluster_from_yaml({"c.yaml", node + "}\n"}, cat).nodes.size() == 1);  // version may be left out
    CHECK(error_of(read("version: 2\n" + node + "}\n")) == "1:10: unsupported version '2' (this release reads version 1)");
    CHECK(error_of(read(node + ", gpuz: 3}\n")) == "2:36: unknown key 'gpuz' in 'nodes', did you mean 'gpu' or 'gpus'?");
    CHECK(error_of(read(node + ", free: 2}\n")) ==
          "2:42: node 'v1' has 2 of its 4 GPUs free, but replay simulates whole nodes: give free: 4 or leave it out, "
          "and list only the GPUs the trace may use in gpus");
    CHECK_THAT(error_of(read("nodes:\n  - {name: 'v;1', gpu: V100, gpus: 4}\n")), Catch::StartsWith("2:12: node name 'v;1' holds ';'"));
}

TEST_CASE("Policies that cannot run a trace are refused before any policy runs", "[replay]") {
    std::vector<ReplayJob> jobs = {rjob("one", 0, 100, {1, 1}), rjob("pair", 10, 100, {1, 1})};
    jobs[1].job.num_gpus = 2;
    const ReplayCluster c = one_gpu_each({"A", "B"});
    ReplayCluster two = c;
    for (auto& n : two.nodes) n.gpus = 2;
    long calls = 0;
    CHECK_THROWS_WITH(replay_all(jobs, two, options(sched::PolicyKind::fft),
                                 {sched::PolicyKind::fft, sched::PolicyKind::allox}, 1,
                                 [&](long, double, long, double) { ++calls; }),
                      "policy 'allox' schedules single-GPU jobs only (one job per device, as AlloX formulates it): "
                      "job 'pair' needs 2 GPUs");
    CHECK(calls == 0);  // fft, first in line, never ran
}

TEST_CASE("A trace line split by tabs is read as Gavel's, and a short one says how many fields it has", "[replay]") {
    const std::string nine = "ResNet-18 (batch size 16)\tcmd\tdir\t--num_steps\tFalse\t100\t1\t1\t-1\n";
    CHECK(error_of([&] { read_trace({"g.tsv", nine}); }) ==
          "1:63: a tab-separated line, read as Gavel's trace, has 9 fields, not its 10 (job type, command, working "
          "directory, num-steps argument, needs data dir, total steps, scale factor, priority weight, SLO, arrival time)");
    CHECK_THAT(error_of([] { read_trace({"t.csv", "job_id,submit_time_s,num_gpus,duration_s,model\nj1,0,1\n"}); }),
               Catch::StartsWith("2:7: expected 5 fields as in the header, got 3"));
}

TEST_CASE("Decisions fall at t0 + k round lengths: a job arriving on one joins it, however the length rounds", "[replay]") {
    // 0.1 added up 8 times is 0.7999999999999999 and 60.1 added 22 times falls short of 1322.2: a job
    // arriving there waited a whole round more with a GPU free. 3 x 0.3 is 0.8999999999999999 itself,
    // short of 0.9 by the last digit, the same instant.
    // 3 x 0.1 is 0.30000000000000004, past 0.3 by the last digit: the job starts at 0.3, not waiting 6e-17 s.
    for (const auto& [length, arrival] :
         std::vector<std::pair<double, double>>{{0.1, 0.8}, {60.1, 1322.2}, {0.3, 0.9}, {0.1, 0.3}}) {
        ReplayCluster c = one_gpu_each({"A"});
        c.nodes[0].gpus = 2;
        const ReplayResult r = replay({rjob("a", 0, 2000, {1}), rjob("b", arrival, 1, {1})}, c,
                                      options(sched::PolicyKind::fifo, length));
        INFO("round length " << length);
        CHECK(result(r, "b").start_time_s == arrival);
        CHECK(result(r, "b").starvation_s() == 0);
        CHECK(result(r, "b").finish_time_s == Approx(arrival + 1));
    }
    // With reschedule_on_events the clock restarts at a finish: decisions at 0, 0.1, 0.2; a ends at
    // 0.25 and c starts there; the decisions after it fall at 0.25 + k x 0.1.
    ReplayOptions o = options(sched::PolicyKind::fifo, 0.1);
    o.reschedule_on_events = true;
    const ReplayResult r = replay({rjob("a", 0, 0.25, {1}), rjob("c", 0, 5, {1})}, one_gpu_each({"A"}), o);
    REQUIRE(r.rounds.size() > 30);
    CHECK(r.rounds[2].time_s == 0.2);
    CHECK(r.rounds[3].time_s == 0.25);
    CHECK(r.rounds[30].time_s == 0.25 + 27 * 0.1);
    CHECK(result(r, "c").finish_time_s == Approx(5.25));
}

TEST_CASE("A gang job's isolated JCT counts only the types with its GPUs: alone on the cluster its FTF is 1", "[replay]") {
    // 4 GPUs: only K80 (4 of them, 4 units/s together) can hold it; V100 has 2 (12 units/s at 4 GPUs,
    // 6 if it could time-share 2 of them). Its 4000 units take 1000 s, the best the cluster can do.
    ReplayCluster c = one_gpu_each({"K80", "V100"});
    c.nodes[0].gpus = 4;
    c.nodes[1].gpus = 2;
    ReplayJob j = rjob("a", 0, 4000, {4, 12});
    j.job.num_gpus = 4;
    for (auto p : {sched::PolicyKind::fft, sched::PolicyKind::fifo, sched::PolicyKind::opportunistic}) {
        const ReplayResult r = replay({j}, c, options(p));
        INFO(sched::policy_name(p));
        CHECK(result(r, "a").jct_s() == Approx(1000));
        CHECK(result(r, "a").isolated_s == Approx(1000));
        CHECK(r.summary.max_ftf == Approx(1));
        CHECK(r.summary.unfair_fraction == 0);
    }
    // The same by set_isolated: a 2-GPU job may count V100 (2 up), time-sharing it with another job.
    std::vector<JobResult> jobs(1);
    jobs[0].finish_time_s = 1000;
    jobs[0].num_gpus = 2;
    jobs[0].work = 6000;
    set_isolated(jobs, {{2, 12}}, {4, 2});
    CHECK(jobs[0].isolated_s == Approx(500));
}

TEST_CASE("A trace column that looks like a slip of one read gets a warning, others pass", "[replay]") {
    std::vector<std::string> warnings;
    const auto trace = read_trace({"t.csv", "job_id,submit_time_s,num_gpus,duration_s,modle,memory_gb,user,status\n"
                                            "a,0,1,1000,m,20,u,ok\n"},
                                  &warnings);
    CHECK(trace[0].model.empty());  // not read: drawn later, which is what the warning is for
    CHECK(warnings == std::vector<std::string>{"t.csv:1:42: column 'modle' is not read, did you mean 'model'?",
                                               "t.csv:1:48: column 'memory_gb' is not read, did you mean 'memory_gib'?"});
    warnings.clear();
    (void)read_trace({"w.csv", "name,time,application,num_replicas,batch_size,bach_size\nj,0,bert,1,32,8\n"}, &warnings);
    CHECK(warnings == std::vector<std::string>{"w.csv:1:47: column 'bach_size' is not read, did you mean 'batch_size'?"});
}

TEST_CASE("A trace's memory_gib goes with its jobs: has takes the least memory that holds them", "[replay]") {
    const auto trace = read_trace({"t.csv", "job_id,submit_time_s,num_gpus,duration_s,model,memory_gib\n"
                                            "a,0,1,1000,m,20\nb,0,1,1000,m,\nc,0,1,1000,m,200\n"});
    REQUIRE(trace.size() == 3);
    CHECK(trace[0].memory_gib == 20);
    CHECK(trace[1].memory_gib == 0);  // an empty cell: not given
    CHECK(error_of([] { read_trace({"t.csv", "job_id,submit_time_s,num_gpus,duration_s,memory_gib\na,0,1,10,0\n"}); }) ==
          "2:10: expected a number from 0.01 to 100000 in column 'memory_gib', got '0'");
    ReplayCluster c = one_gpu_each({"K80", "P100", "V100"});
    c.types[0].memory_gib = 12;
    c.types[1].memory_gib = 16;
    c.types[2].memory_gib = 32;
    ThroughputTable table;
    table.types = {"K80", "P100", "V100"};
    table.rows[{"m", 1}] = {1, 1.5, 2};
    JobCounts counts;
    const auto jobs = build_jobs(trace, table, c, {"K80"}, counts);
    CHECK(counts.too_much_memory == 1);  // c: 200 GiB, more than any type holds
    CHECK(counts.skipped() == 1);
    CHECK(counts.memory_unknown == 1);   // b
    REQUIRE(jobs.size() == 2);
    CHECK(jobs[0].job.memory_gib == 20);
    CHECK(counts.memory_taken_to_fit == 0);  // every type's memory is known
    // a needs 20 GiB, more than the reference K80 holds: its 1000 s were not measured there, but on its
    // fastest type that holds it (V100), so its work is 1000 s at V100's 2. b's is the K80's.
    CHECK(jobs[0].job.work == Approx(2000));
    CHECK(jobs[1].job.work == Approx(1000));
    // has: a needs 20 GiB, so V100 (32) is the least that holds it; b, taken to fit anywhere, gets K80.
    const ReplayResult r = replay(jobs, c, options(sched::PolicyKind::has));
    CHECK(result(r, "a").jct_s() == Approx(1000));
    CHECK(result(r, "b").jct_s() == Approx(1000));
    // Types whose memory is not known (no catalog entry) take a job's memory_gib on trust: counted, and
    // named, for a warning.
    c.types[1].memory_gib = 0;
    c.types[2].memory_gib = 0;
    JobCounts unknown;
    const auto trusted = build_jobs(trace, table, c, {"K80"}, unknown);
    CHECK(unknown.too_much_memory == 0);      // c is taken to fit on P100 or V100
    CHECK(unknown.memory_taken_to_fit == 2);  // a and c
    CHECK(unknown.memory_unknown_types == std::set<std::string>{"P100", "V100"});
    // A reference the cluster lacks (K80s' trace on P100 and V100): its memory as the tool finds it in
    // the catalog rules out a 20 GiB job's having run there.
    ReplayCluster newer = one_gpu_each({"P100", "V100"});
    newer.types[0].memory_gib = 16;
    newer.types[1].memory_gib = 32;
    JobOptions k80{"K80"};
    k80.reference_memory_gib = 12;
    JobCounts elsewhere;
    CHECK(build_jobs(trace, table, newer, k80, elsewhere)[0].job.work == Approx(2000));  // V100's 2, not K80's 1
}

TEST_CASE("Progress reports the share of the trace's work done, not of its jobs", "[replay]") {
    // A short job (300 s) and a long one (3000 s: 6000 units at 2 a second) on two GPUs, each alone on
    // its own: once the short one is done, half the jobs are finished but a fifth of the work in seconds
    // (600 of 3300, the long one at 300 s a round), where work units would say 900 of 6300.
    const std::vector<ReplayJob> jobs{rjob("short", 0, 300, {1}), rjob("long", 0, 6000, {2})};
    ReplayCluster c = one_gpu_each({"A"});
    c.nodes[0].gpus = 2;
    std::vector<std::pair<long, double>> seen;  // (finished, share) per call
    replay(jobs, c, options(sched::PolicyKind::fifo), [&](long, double, long finished, double share) {
        seen.emplace_back(finished, share);
    });
    REQUIRE(seen.size() == 10);
    CHECK(seen[0].first == 1);
    CHECK(seen[0].second == Approx(600.0 / 3300));
    for (size_t i = 1; i < seen.size(); ++i) CHECK(seen[i].second >= seen[i - 1].second);
    CHECK(seen.back() == std::pair<long, double>{2, 1.0});
}
