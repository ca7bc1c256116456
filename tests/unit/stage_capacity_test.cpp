#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include <hetsched/place/stage_capacity.hpp>

using namespace hetsched::place;

namespace {

/// The most layers over every order of the stages, by enumeration.
long every_order(const Problem& p, int pos, const std::vector<int>& left) {
    std::vector<size_t> order;
    for (size_t t = 0; t < left.size(); ++t) order.insert(order.end(), static_cast<size_t>(left[t]), t);
    long best = -1;
    do {
        long total = 0;
        for (size_t i = 0; i < order.size() && total >= 0; ++i) {
            const long room = p.types[order[i]].max_layers[static_cast<size_t>(pos) + i];
            total = room > 0 ? total + room : -1;  // every stage holds a layer
        }
        best = std::max(best, total);
    } while (std::next_permutation(order.begin(), order.end()));
    return best;
}

}  // namespace

TEST_CASE("most_layers_ahead finds the best order of the stages left", "[place]") {
    std::mt19937 rng(11);
    for (int trial = 0; trial < 400; ++trial) {
        Problem p;
        const int k = 1 + static_cast<int>(rng() % 8);
        const size_t n = 1 + rng() % 4;
        p.types.resize(n);
        for (auto& t : p.types) {
            // Room that grows with the position (1F1B keeps fewer micro-batches in flight further on)
            // for most types, and arbitrary room for some, so that no simple order is always best.
            const bool arbitrary = rng() % 3 == 0;
            long base = static_cast<long>(rng() % 6);
            for (int s = 0; s < k; ++s)
                t.max_layers.push_back(arbitrary ? static_cast<long>(rng() % 9) : base += static_cast<long>(rng() % 3));
        }
        p.types[0].stages = k;  // stages() counts them
        const int pos = static_cast<int>(rng() % static_cast<unsigned>(k));
        std::vector<int> left(n, 0);
        for (int s = pos; s < k; ++s) ++left[rng() % n];
        INFO("trial " << trial);
        CHECK(most_layers_ahead(room_of(p), pos, left) == every_order(p, pos, left));
    }
}

TEST_CASE("most_layers_ahead of no positions is 0", "[place]") {
    Problem p;
    p.types.resize(2);
    p.types[0].stages = 3;
    for (auto& t : p.types) t.max_layers = {4, 5, 6};
    CHECK(most_layers_ahead(room_of(p), 3, {0, 0}) == 0);
    CHECK(most_layers_ahead(room_of(p), 1, {1, 1}) == 11);
    CHECK(most_layers_ahead(room_of(p), 0, {1, 1}) == -1);
    p.types[1].max_layers = {0, 0, 2};  // type 1 fits only last
    CHECK(most_layers_ahead(room_of(p), 0, {2, 1}) == 11);
    CHECK(most_layers_ahead(room_of(p), 0, {1, 2}) == -1);
}
