/// Fuzzes the throughput profile reader (hetsched, Sia placements and Sia scalability formats).
#include "fuzz_input.hpp"

#include <hetsched/fit/profile.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace hetsched;
    if (size == 0) return 0;
    // The first byte picks the file name the format is told from, and whether times are needed.
    static const char* const names[] = {"profile.csv", "bert/placements-aws.csv", "bert/scalability-dgx.csv",
                                        "placements-quad.csv"};
    fit::ProfileOptions opt;
    opt.need_times = (data[0] & 4) == 0;
    if (data[0] & 8) opt.app = "bert", opt.gpu = "T4";
    fuzz::refuse_only_typed([&] { fit::read_profile(fuzz::as_input(data + 1, size - 1, names[data[0] % 4]), opt); });
    return 0;
}
