#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>

#include <hetsched/alloc/placement_pool.hpp>

using namespace hetsched;

namespace {

place::PlaceResult result(double seconds) {
    place::PlaceResult r;
    r.iteration_s = seconds;
    return r;
}

}  // namespace

TEST_CASE("the placement pool hands back each offered plan's own result", "[alloc]") {
    alloc::PlacementPool pool(2);
    std::atomic<int> placed{0};
    for (long k = 0; k < 50; ++k)
        pool.offer(k, static_cast<double>(k), [k, &placed] {
            ++placed;
            return result(static_cast<double>(k) / 10);
        });
    for (long k = 0; k < 50; k += 2) pool.drop(k + 1);  // the odd ones are cut
    place::PlaceResult r;
    for (long k = 0; k < 50; k += 2) {
        REQUIRE(pool.take(k, r));
        CHECK(r.iteration_s == Approx(static_cast<double>(k) / 10));
    }
    CHECK_FALSE(pool.take(1, r));   // dropped
    CHECK_FALSE(pool.take(99, r));  // never offered
    CHECK(placed >= 25);
    CHECK(placed <= 50);
}

TEST_CASE("a placement that throws rethrows where its result is taken", "[alloc]") {
    alloc::PlacementPool pool(1);
    pool.offer(7, 0, []() -> place::PlaceResult { throw std::runtime_error("no room"); });
    place::PlaceResult r;
    CHECK_THROWS_WITH(pool.take(7, r), "no room");
}
