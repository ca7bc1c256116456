#include <hetsched/model/profile_units.hpp>

#include <hetsched/io/number_format.hpp>
#include <hetsched/model/step_time.hpp>

namespace hetsched::model {

std::vector<std::string> implausible_profile_times(const LayerProfile& profile, const catalog::ModelSpec& m,
                                                   const Training& t, const catalog::GpuCatalog& catalog,
                                                   double efficiency) {
    constexpr double kSlowest = 0.01, kOverRoofline = 100;
    std::vector<std::string> out;
    for (const auto& [name, times] : profile.by_gpu) {
        const catalog::GpuType* g = catalog.lookup(name);
        if (!g) continue;
        double sum = 0;
        long n = 0;
        for (double f : times.forward)
            if (f >= 0) sum += f, ++n;
        if (n == 0) continue;
        const double mean = sum / static_cast<double>(n);
        const Training on_type = on_gpu(t, *g);
        const MicroBatchWork work = micro_batch_work(m, on_type, profile.micro_batch);
        const double tflops = matmul_tflops(*g, on_type);
        const double roof = roofline_s(*g, tflops, work.layer_forward / profile.tp, work.layer_forward_bytes / profile.tp,
                                       efficiency);
        if (mean < kSlowest || mean < kOverRoofline * roof) continue;
        out.push_back("profile '" + profile.source + "': " + name + "'s layers take " + io::format_number(mean, 3) +
                      " s a forward on average, " + io::format_number(mean / roof, 3) + " times the " +
                      io::format_number(roof * 1e3, 3) + " ms the compute model gives (" + io::format_number(tflops, 4) + " TFLOPS at " +
                      io::format_number(100 * efficiency, 3) +
                      "%): are they milliseconds? (forward_s and backward_s are seconds per micro-batch)");
    }
    return out;
}

}  // namespace hetsched::model
