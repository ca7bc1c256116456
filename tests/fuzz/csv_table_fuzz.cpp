/// Fuzzes the CSV reader under every table (profiles, memory checks, clusters, catalogs).
#include "fuzz_input.hpp"

#include <hetsched/io/csv_table.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace hetsched;
    fuzz::refuse_only_typed([&] {
        const io::CsvTable t = io::CsvTable::parse(fuzz::as_input(data, size));
        // Every cell through every typed accessor, as the readers use them.
        for (size_t r = 0; r < t.rows(); ++r)
            for (int c = 0; c < static_cast<int>(t.header().size()); ++c)
                for (int kind = 0; kind < 3; ++kind)
                    fuzz::refuse_only_typed([&] {
                        if (kind == 0) (void)t.number(r, c, -1e300, 1e300);
                        if (kind == 1) (void)t.integer(r, c, -(1L << 62), 1L << 62);
                        if (kind == 2) (void)t.boolean(r, c);
                    });
    });
    return 0;
}
