// eval_fitthroughput: held-out accuracy of each step-time model on profile folders, per app x GPU
// cluster, by K-fold cross-validation; and the time to fit every group.
//   eval_fitthroughput [--folds K] [--seed N] [--dump APP/CLUSTER] PROFILE_DIR...
// --dump prints one group's fitted parameters (* = pinned) and every sample with both predictions.
// PROFILE_DIR holds <app>/placements-<cluster>.csv and <app>/scalability-<cluster>.csv (Sia's layout).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <hetsched/fit/cross_validation.hpp>
#include <hetsched/fit/fitter.hpp>
#include <hetsched/fit/profile.hpp>
#include <hetsched/io/text_input.hpp>

using namespace hetsched;
namespace fs = std::filesystem;

int main(int argc, char** argv) {
    int folds = 5;
    std::uint64_t seed = 1;
    std::vector<std::string> dirs;
    std::string dump;  // --dump APP/CLUSTER: every sample with both models' predictions
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--folds" && i + 1 < argc) folds = std::stoi(argv[++i]);
        else if (a == "--seed" && i + 1 < argc) seed = std::stoull(argv[++i]);
        else if (a == "--dump" && i + 1 < argc) dump = argv[++i];
        else dirs.push_back(a);
    }
    if (dirs.empty()) dirs.push_back("../shared/data/profiles");
    // One group per app x cluster file pair (dgx and dgx-ext are the same GPU type, measured apart).
    std::map<std::string, std::vector<fit::Sample>> groups;
    for (const auto& dir : dirs)
        for (const auto& app : fs::directory_iterator(dir)) {
            if (!app.is_directory()) continue;
            for (const auto& f : fs::directory_iterator(app.path())) {
                const std::string name = f.path().filename().string();
                if (f.path().extension() != ".csv") continue;
                const std::string cluster = name.substr(name.find('-') + 1, name.size() - name.find('-') - 5);
                auto p = fit::read_profile(io::read_input(f.path().string()), {});
                auto& g = groups[app.path().filename().string() + "/" + cluster];
                for (auto& s : p.samples) s.gpu = cluster, g.push_back(s);
            }
        }
    // A measurement in both files of a cluster (dgx-ext's two files are copies) counts once, as in fitthroughput.
    for (auto& [name, g] : groups) g = fit::distinct_samples(g);
    const fit::ModelKind kinds[] = {fit::ModelKind::pollux, fit::ModelKind::icefrog_ddp};
    if (!dump.empty()) {
        const auto& samples = groups.at(dump);
        std::vector<fit::GroupFit> fits;
        for (auto k : kinds) {
            fits.push_back(fit::fit_group(k, samples));
            std::printf("%s:", fit::model_name(k).c_str());
            for (size_t i = 0; i < fits.back().params.size(); ++i)
                std::printf(" %s=%.4g%s", fit::param_info(k)[i].name.c_str(), fits.back().params[i],
                            fits.back().pinned[i].empty() ? "" : "*");
            std::printf("\n");
        }
        std::printf("nodes,gpus,per_node,batch,step,sync,pollux,icefrog\n");
        for (const auto& s : samples)
            std::printf("%d,%d,%d,%g,%.4f,%.4f,%.4f,%.4f\n", s.num_nodes, s.num_gpus, s.max_per_node, s.per_gpu_batch,
                        s.step_time_s, s.sync_time_s, fit::step_time(fits[0], s),
                        fit::step_time(fits[1], s));
        return 0;
    }
    std::printf("%-18s %6s", "app/cluster", "n");
    for (auto k : kinds) std::printf(" | %-12s train mean/max  held-out mean/max", fit::model_name(k).c_str());
    std::printf("\n");
    std::map<fit::ModelKind, std::vector<double>> means, maxes;
    for (const auto& [name, samples] : groups) {
        std::printf("%-18s %6zu", name.c_str(), samples.size());
        for (auto k : kinds) {
            auto f = fit::fit_group(k, samples);
            auto v = fit::cross_validate(k, samples, folds, seed);
            std::printf(" | %12s %6.2f %6.2f      %6.2f %6.2f  ", "", f.quality.mean_ape_pct, f.quality.max_ape_pct,
                        v.held_out.mean_ape_pct, v.held_out.max_ape_pct);
            means[k].push_back(v.held_out.mean_ape_pct);
            maxes[k].push_back(v.held_out.max_ape_pct);
        }
        std::printf("\n");
    }
    for (auto k : kinds) {
        double m = 0, mx = 0;
        int ok = 0;
        for (size_t i = 0; i < means[k].size(); ++i) {
            m += means[k][i] / means[k].size();
            mx = std::max(mx, maxes[k][i]);
            ok += means[k][i] <= 5 && maxes[k][i] <= 15;
        }
        std::printf("%s: held-out mean APE over groups %.2f%%, worst max %.2f%%, groups within 5%%/15%%: %d of %zu\n",
                    fit::model_name(k).c_str(), m, mx, ok, means[k].size());
    }
    // Time to fit every group once, per model: one after another, and as fitthroughput does (on all cores).
    std::vector<std::vector<fit::Sample>> all;
    for (const auto& [name, samples] : groups) all.push_back(samples);
    for (auto k : kinds) {
        auto t0 = std::chrono::steady_clock::now();
        for (const auto& samples : all) fit::fit_group(k, samples);
        const double serial = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        t0 = std::chrono::steady_clock::now();
        fit::fit_groups(k, all);
        const double parallel = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%s: fitting all %zu groups took %.3f s one by one, %.3f s on %u cores\n",
                    fit::model_name(k).c_str(), all.size(), serial, parallel, std::thread::hardware_concurrency());
    }
}
