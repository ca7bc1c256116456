/// Fuzzes the cluster-state reader, and every state it accepts through a whole round and back to
/// text: a state the reader lets in must never crash the round, the placement or the writer.
#include "fuzz_input.hpp"

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/sched/state_document.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace hetsched;
    static const catalog::GpuCatalog catalog = catalog::named_catalog("default");
    fuzz::refuse_only_typed([&] {
        sched::StateDocument doc = sched::read_state(fuzz::as_input(data, size, "state.yaml"), catalog);
        sched::RoundOptions o;
        o.time_limit_s = 5;
        o.explain = size % 2;
        const sched::RoundResult r = sched::run_round(doc.state, o);
        (void)sched::actions_csv(r.state, r.actions);
        (void)sched::write_state(std::move(doc), r, o.explain);
    });
    return 0;
}
