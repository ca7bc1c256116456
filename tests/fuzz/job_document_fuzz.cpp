/// Fuzzes the job document reader (model, training and layout sections, presets, limits).
#include "fuzz_input.hpp"

#include <hetsched/model/job_document.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace hetsched;
    fuzz::refuse_only_typed([&] {
        model::JobSpec job;
        model::load_job_document(fuzz::as_input(data, size), model::JobOptions{}, job);
    });
    return 0;
}
