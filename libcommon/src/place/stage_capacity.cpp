#include <hetsched/place/stage_capacity.hpp>

#include <algorithm>
#include <limits>

namespace hetsched::place {

// Positions are given types one at a time, each along the longest augmenting path among the types:
// the new position goes to some type, which may hand one of its positions to another, and so on until
// a type with a stage to spare. Every step keeps the assignment of the positions so far optimal
// (successive shortest paths on a transportation problem), so the last assignment is the best order.
// O((k - pos)^2 · n + (k - pos) · n^3) for n types.
long most_layers_ahead(const RoomByPosition& rooms, int pos, const std::vector<int>& left) {
    const size_t n = left.size();
    const int k = n == 0 ? pos : static_cast<int>(rooms[0]->size());
    // A stage holds at least one layer: a position without room for one is priced far below any
    // total of real rooms, so that it is taken only when no order avoids it.
    constexpr long kNo = std::numeric_limits<long>::min() / 4, kNone = -(1L << 40);
    auto room = [&](size_t t, int s) {
        const long r = (*rooms[t])[static_cast<size_t>(s)];
        return r > 0 ? r : kNone;
    };
    std::vector<size_t> owner(static_cast<size_t>(k), 0), from(n);
    std::vector<int> used(n, 0), via(n * n);  // via[a·n + b]: the position an exchange a -> b moves
    std::vector<long> gain(n * n), dist(n);
    for (int j = pos; j < k; ++j) {
        // gain[a·n + b]: the most that moving one of a's positions to b adds.
        std::fill(gain.begin(), gain.end(), kNo);
        for (int s = pos; s < j; ++s) {
            const size_t a = owner[static_cast<size_t>(s)];
            for (size_t b = 0; b < n; ++b) {
                if (b == a || left[b] == 0) continue;
                const long g = room(b, s) - room(a, s);
                if (g > gain[a * n + b]) gain[a * n + b] = g, via[a * n + b] = s;
            }
        }
        for (size_t t = 0; t < n; ++t) dist[t] = left[t] > 0 ? room(t, j) : kNo, from[t] = n;
        // Bellman-Ford; the assignment so far is optimal, so no exchange cycle gains.
        for (size_t round = 1; round < n; ++round)
            for (size_t a = 0; a < n; ++a) {
                if (dist[a] == kNo) continue;
                for (size_t b = 0; b < n; ++b)
                    if (gain[a * n + b] != kNo && dist[a] + gain[a * n + b] > dist[b])
                        dist[b] = dist[a] + gain[a * n + b], from[b] = a;
            }
        size_t end = n;
        for (size_t t = 0; t < n; ++t)
            if (used[t] < left[t] && dist[t] != kNo && (end == n || dist[t] > dist[end])) end = t;
        if (end == n) return -1;  // the counts hold fewer stages than positions
        ++used[end];
        size_t first = end;  // walk back: each exchange hands a position of from[b] to b
        for (; from[first] != n; first = from[first])
            owner[static_cast<size_t>(via[from[first] * n + first])] = first;
        owner[static_cast<size_t>(j)] = first;
    }
    long total = 0;
    for (int s = pos; s < k; ++s) total += room(owner[static_cast<size_t>(s)], s);
    return total < 0 ? -1 : total;
}

RoomByPosition room_of(const Problem& p) {
    RoomByPosition out;
    for (const auto& t : p.types) out.push_back(&t.max_layers);
    return out;
}

}  // namespace hetsched::place
