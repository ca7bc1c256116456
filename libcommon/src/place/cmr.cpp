/// Espresso's resource-aware stage placer (Alg. 2) with its compute-memory ratio (Eq. 10).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <hetsched/place/estimator.hpp>
#include <hetsched/place/methods.hpp>
#include <hetsched/place/stage_capacity.hpp>

namespace hetsched::place {
namespace {

constexpr size_t kNone = std::numeric_limits<size_t>::max();

/// l_c: the most layers whose gradient sync and optimizer step on `type` at position `pos` fit in
/// `budget` seconds.
double layers_within(const Problem& p, size_t type, int pos, double budget) {
    const double per_layer = p.tail_s(type, pos, 1) - p.tail_s(type, pos, 0);
    if (per_layer <= 0) return std::numeric_limits<double>::infinity();
    return std::max(1.0, std::floor((budget - p.tail_s(type, pos, 0)) / per_layer));
}

/// Whether stages pos..k-1 can hold `need` more layers, at least one each, when the types left
/// (`left`, counts per type) take them in the best order. The best order is an assignment of stages to
/// positions; two cheap bounds settle most questions: the types placed roomiest-last (one order, so a
/// lower bound) and each position's roomiest type left (counts ignored, so an upper bound). Only
/// between them is the best order worked out exactly.
class CapacityAhead {
public:
    explicit CapacityAhead(const Problem& p) : p_(p), k_(p.stages()), rooms_(room_of(p)) {
        for (size_t t = 0; t < p.types.size(); ++t) by_room_.push_back(t);
        const size_t last = static_cast<size_t>(k_ - 1);
        std::stable_sort(by_room_.begin(), by_room_.end(), [&](size_t a, size_t b) {
            return p.types[a].max_layers[last] < p.types[b].max_layers[last];
        });
    }
    bool holds(int pos, const std::vector<int>& left, long need) {
        const long ordered = in_order(pos, left);
        if (ordered >= 0 && ordered >= need) return true;
        if (roomiest(pos, left) < need) return false;
        const long most = most_layers_ahead(rooms_, pos, left);
        return most >= 0 && most >= need;
    }

private:
    const Problem& p_;
    int k_;
    RoomByPosition rooms_;
    std::vector<size_t> by_room_;  ///< types, least room on the last stage first

    long room(size_t t, int pos) const { return p_.types[t].max_layers[static_cast<size_t>(pos)]; }

    /// -1 when the order leaves a stage without room for one layer.
    long in_order(int pos, const std::vector<int>& left) const {
        long total = 0;
        for (size_t t : by_room_)
            for (int n = 0; n < left[t]; ++n) {
                const long r = room(t, pos++);
                if (r <= 0) return -1;
                total += r;
            }
        return total;
    }
    long roomiest(int pos, const std::vector<int>& left) const {
        long total = 0;
        for (; pos < k_; ++pos) {
            long most = 0;
            for (size_t t = 0; t < left.size(); ++t)
                if (left[t] > 0) most = std::max(most, room(t, pos));
            total += most;
        }
        return total;
    }
};

/// AdjustToCoverAllLayers: hand the missing layers to stages 1..k-1 one at a time, round robin, while
/// memory allows (the paper's rule); surplus layers are taken back from the last stage forwards.
bool cover_all_layers(const Problem& p, Placement& pl) {
    const size_t k = pl.order.size();
    long total = 0;
    for (long c : pl.layers) total += c;
    while (total > p.layers) {
        bool moved = false;
        for (size_t s = k - 1; s >= 1 && total > p.layers; --s)
            if (pl.layers[s] > 1) --pl.layers[s], --total, moved = true;
        if (!moved) return false;
    }
    while (total < p.layers) {
        bool moved = false;
        for (size_t s = 1; s < k && total < p.layers; ++s)
            if (pl.layers[s] < p.types[pl.order[s]].max_layers[s]) ++pl.layers[s], ++total, moved = true;
        if (!moved) return false;
    }
    return true;
}

/// Alg. 2 lines 6-14 for one l0. Beyond the paper, a type is only picked when the types left can still
/// hold the remaining layers (`ahead`), so tight allocations do not end in a dead end.
Placement build_candidate(const Problem& p, long l0, const std::vector<size_t>* order, CapacityAhead& ahead) {
    const int k = p.stages();
    const size_t n = p.types.size();
    std::vector<int> left(n);
    double capability = 0;
    for (size_t t = 0; t < n; ++t) {
        left[t] = p.types[t].stages;
        capability += p.types[t].stages * p.types[t].tflops;
    }
    // L_f: the layers each type would take if the stages were balanced by computing capability.
    std::vector<long> balanced(n);
    for (size_t t = 0; t < n; ++t)
        balanced[t] = static_cast<long>(std::floor(static_cast<double>(p.layers) * p.types[t].tflops / capability));

    // The type for stage `s`: the least CMR(t, s) = F/M x max(l_m, l_c)/l_c among the types left that
    // hold `need` layers there; l_c is what fits the sync budget (stage 0: its own l0 layers).
    long held = 0;  // the most layers stages 0..s-1 can hold (stage 0 keeps l0)
    auto pick = [&](int s, long need, double budget) {
        if (order) {
            const size_t t = (*order)[static_cast<size_t>(s)];
            return p.types[t].max_layers[static_cast<size_t>(s)] >= need ? t : kNone;
        }
        size_t best = kNone;
        double best_cmr = std::numeric_limits<double>::infinity();
        for (size_t t = 0; t < n; ++t) {
            const StageType& g = p.types[t];
            const double lm = static_cast<double>(g.max_layers[static_cast<size_t>(s)]);
            if (left[t] == 0 || lm < static_cast<double>(need)) continue;
            --left[t];
            const bool room = ahead.holds(s + 1, left, p.layers - held - (s == 0 ? l0 : static_cast<long>(lm)));
            ++left[t];
            if (!room) continue;
            const double lc = s == 0 ? static_cast<double>(l0) : layers_within(p, t, s, budget);
            const double alpha = std::isinf(lc) ? 1.0 : std::max(lm, lc) / lc;  // no sync: nothing to overlap
            const double cmr = g.tflops / g.memory_gib * alpha;
            if (cmr < best_cmr) best = t, best_cmr = cmr;
        }
        return best;
    };

    Placement pl;
    const size_t t0 = pick(0, l0, 0);
    if (t0 == kNone) return {};
    pl.order.push_back(t0);
    pl.layers.push_back(l0);
    --left[t0];
    held = l0;
    double overlap = p.tail_s(t0, 0, l0);  // T_0^ol: stage 0's own sync (and optimizer step)
    long first = l0;
    for (int s = 1; s < k; ++s) {
        const size_t prev = pl.order.back();
        const long prev_layers = pl.layers.back();
        overlap += p.backward_s(prev, s - 1, first - prev_layers, prev_layers);  // T_s^ol = T_{s-1}^ol + T^b_{s-1}
        const size_t t = pick(s, 1, overlap);
        if (t == kNone) return {};
        // Provisional counts never run past the model: the stages after s keep at least one layer each,
        // so the next stage's backward time is looked up over layers that exist.
        const long room = p.layers - first - (k - 1 - s);
        const long l = std::max(1L, std::min({p.types[t].max_layers[static_cast<size_t>(s)], balanced[t], room}));
        pl.order.push_back(t);
        pl.layers.push_back(l);
        --left[t];
        held += p.types[t].max_layers[static_cast<size_t>(s)];
        first += l;
    }
    if (!cover_all_layers(p, pl)) return {};
    return pl;
}

/// Beyond the paper: the split of a fixed stage order with the least busiest stage, where a stage's busy
/// time is its micro-batches' forwards and backwards plus its gradient sync: bisection on that time,
/// each stage in turn taking the most layers that keep within it (and within its room, leaving one for
/// each stage after it). Empty when the rooms cannot hold the model, or when the fill finds no split
/// that keeps every stage within `bar` (one pass instead of the bisection): a stage's busy time bounds
/// the iteration from below, so with layers of equal cost (the compute model) no split of the order
/// then beats `bar`; with a profile's uneven layers the greedy fill can miss such a split, and the
/// order is only lost as a start. The bisection stops within 1% of the least busiest stage: a start
/// that refinement then tunes by the estimate, which also sees transfers and the pipeline's fill
/// (1e-6 placed the same share of bench/eval_placestages' cases within 5%, at more cost).
Placement least_busy_split(const Problem& p, const std::vector<size_t>& order,
                           double bar = std::numeric_limits<double>::infinity()) {
    const size_t k = order.size();
    const double m = static_cast<double>(p.micro_batches);
    auto busy = [&](size_t s, long first, long n) {
        const size_t t = order[s];
        const int pos = static_cast<int>(s);
        return m * (p.forward_s(t, pos, first, n) + p.backward_s(t, pos, first, n)) + p.tail_s(t, pos, n);
    };
    Placement pl;
    pl.order = order;
    pl.layers.assign(k, 0);
    auto fill = [&](double limit) {
        long first = 0;
        for (size_t s = 0; s < k; ++s) {
            const long after = static_cast<long>(k - 1 - s);
            long most = std::min(p.types[order[s]].max_layers[s], p.layers - first - after);
            if (s + 1 == k && most < p.layers - first) return false;
            if (most < 1 || busy(s, first, s + 1 == k ? p.layers - first : 1) > limit) return false;
            long lo = 1;  // busy(lo) within the limit; the most layers that keep within it
            if (s + 1 == k) {
                lo = most;
            } else {
                while (lo < most) {
                    const long mid = (lo + most + 1) / 2;
                    if (busy(s, first, mid) <= limit) lo = mid;
                    else most = mid - 1;
                }
            }
            pl.layers[s] = lo;
            first += lo;
        }
        return first == p.layers;
    };
    double hi = 0;
    for (size_t s = 0; s < k; ++s) hi += busy(s, 0, p.layers);
    hi = std::min(hi, bar);
    if (!fill(hi)) return {};
    double lo = 0;
    for (int i = 0; i < 40 && hi - lo > 1e-2 * hi; ++i) {
        const double mid = (lo + hi) / 2;
        (fill(mid) ? hi : lo) = mid;
    }
    fill(hi);
    return pl;
}

/// Whether the placement as it now stands beats `time` (then `time` becomes its estimate).
bool improves(const Problem& p, const Placement& pl, double& time, long& evaluated, std::vector<StageCosts>& costs,
              Schedule& schedule) {
    const double t = iteration_time_below(p, pl, time * (1 - 1e-12), costs, schedule);
    ++evaluated;
    if (t >= time * (1 - 1e-12)) return false;
    time = t;
    return true;
}

/// Moves `n` layers from stage `from` to stage `to` when both keep within one layer and their room.
bool move_layers(const Problem& p, Placement& pl, size_t from, size_t to, long n) {
    if (pl.layers[from] - n < 1 || pl.layers[to] + n > p.types[pl.order[to]].max_layers[to]) return false;
    pl.layers[from] -= n;
    pl.layers[to] += n;
    return true;
}

/// Stages `a` and `b` of different types trade places, without then with their layers, keeping the
/// first trade `better()` accepts; false (and nothing changed) when neither is accepted.
template <class Better>
bool trade_places(const Problem& p, Placement& pl, size_t a, size_t b, Better&& better) {
    if (pl.order[a] == pl.order[b]) return false;
    for (bool with_layers : {false, true}) {
        std::swap(pl.order[a], pl.order[b]);
        if (with_layers) std::swap(pl.layers[a], pl.layers[b]);
        if (feasible(p, pl) && better()) return true;
        std::swap(pl.order[a], pl.order[b]);
        if (with_layers) std::swap(pl.layers[a], pl.layers[b]);
    }
    return false;
}

/// Beyond the paper: moves layers across stage boundaries of the chosen plan while the estimate
/// improves (steps of several layers first, then single layers), and lets neighbouring stages of
/// different types trade places with or without their layers: the split refinement the paper leaves
/// to HPH's integer program.
double refine_split(const Problem& p, Placement& pl, double time, long& evaluated, std::vector<StageCosts>& costs,
                    Schedule& schedule, bool swap_order) {
    const size_t k = pl.order.size();
    auto better = [&]() { return improves(p, pl, time, evaluated, costs, schedule); };
    for (long step = std::max<long>(1, p.layers / static_cast<long>(4 * k)); step >= 1; step /= 2) {
        for (bool improved = true; improved;) {
            improved = false;
            for (size_t b = 0; b + 1 < k; ++b) {
                for (int dir : {1, -1}) {
                    const size_t from = dir > 0 ? b : b + 1, to = dir > 0 ? b + 1 : b;
                    if (move_layers(p, pl, from, to, step)) {
                        if (better()) improved = true;
                        else move_layers(p, pl, to, from, step);
                    }
                }
                if (swap_order && trade_places(p, pl, b, b + 1, better)) improved = true;
            }
        }
    }
    return time;
}

/// Moves the stage at `from`, its layers with it, to position `to`.
void move_stage(Placement& pl, size_t from, size_t to) {
    const size_t t = pl.order[from];
    const long l = pl.layers[from];
    pl.order.erase(pl.order.begin() + static_cast<long>(from));
    pl.layers.erase(pl.layers.begin() + static_cast<long>(from));
    pl.order.insert(pl.order.begin() + static_cast<long>(to), t);
    pl.layers.insert(pl.layers.begin() + static_cast<long>(to), l);
}

/// The two stages whose sync and optimizer step end last in `pl`'s schedule.
std::pair<size_t, size_t> last_two_done(const Problem& p, const Placement& pl, std::vector<StageCosts>& costs,
                                        Schedule& schedule, long& evaluated) {
    iteration_time(p, pl, costs, schedule);
    ++evaluated;
    std::vector<size_t> by_done(pl.order.size());
    for (size_t s = 0; s < by_done.size(); ++s) by_done[s] = s;
    std::partial_sort(by_done.begin(), by_done.begin() + 2, by_done.end(), [&](size_t x, size_t y) {
        return schedule.stage_end[x] > schedule.stage_end[y];
    });
    return {by_done[0], by_done[1]};
}

/// Beyond the paper: after refine_split, moves that neighbours' trades cannot make, tried in this
/// order, the first that improves the estimate kept, until none does:
/// - a layer from any stage to any other (a layer from the last stage to the first without passing
///   through worse splits; a split bound by a stage's sync after the flush sheds from that stage);
/// - the busiest stage (forward + backward) trades places with any stage of another type;
/// - any stage moves, its layers with it, to another position (a fast type's stage to the front,
///   where the last backward ends and its sync is exposed);
/// - the two stages done last each shed a layer at once, to any one or two others (two stages of one
///   type on a slow sync improve only together).
/// Not `wide`: only the busiest stage's moves (a layer to any stage; a trade), O(k) estimates a round.
/// With the grouped and sandwich orders and four starts, the wide moves take the placer to every case
/// of bench/eval_placestages within 5% of the optimum (see place_cmr).
double polish(const Problem& p, Placement& pl, double time, long& evaluated, std::vector<StageCosts>& costs,
              Schedule& schedule, bool swap_order, bool wide) {
    const size_t k = pl.order.size();
    auto better = [&]() { return improves(p, pl, time, evaluated, costs, schedule); };
    auto busiest_stage = [&]() {
        const std::vector<StageCosts> now = stage_costs(p, pl);
        size_t busiest = 0;
        for (size_t s = 1; s < k; ++s)
            if (now[s].forward + now[s].backward > now[busiest].forward + now[busiest].backward) busiest = s;
        return busiest;
    };
    auto shed_from = [&](size_t from) {
        for (size_t to = 0; to < k; ++to) {
            if (to == from || !move_layers(p, pl, from, to, 1)) continue;
            if (better()) return true;
            move_layers(p, pl, to, from, 1);
        }
        return false;
    };
    auto shed_busiest = [&]() { return shed_from(busiest_stage()); };
    auto shed = [&]() {
        for (size_t from = 0; from < k; ++from)
            if (shed_from(from)) return true;
        return false;
    };
    auto trade_busiest = [&]() {
        const size_t busiest = busiest_stage();
        for (size_t other = 0; other < k; ++other)
            if (other != busiest && trade_places(p, pl, busiest, other, better)) return true;
        return false;
    };
    auto try_move = [&](size_t from, size_t to) {
        // In place, undone by the inverse move; skipped when only stages of its own type lie between.
        const auto lo = pl.order.begin() + static_cast<long>(std::min(from, to));
        const auto hi = pl.order.begin() + static_cast<long>(std::max(from, to)) + 1;
        if (std::all_of(lo, hi, [&](size_t t) { return t == pl.order[from]; })) return false;
        move_stage(pl, from, to);
        if (feasible(p, pl) && better()) return true;
        move_stage(pl, to, from);
        return false;
    };
    auto reposition = [&]() {
        for (size_t from = 0; from < k; ++from)
            for (size_t to = 0; to < k; ++to)
                if (try_move(from, to)) return true;
        return false;
    };
    auto shed_two = [&]() {
        if (k < 3) return false;
        const auto [a, b] = last_two_done(p, pl, costs, schedule, evaluated);
        for (size_t c = 0; c < k; ++c)
            for (size_t d = c; d < k; ++d) {
                if (c == a || c == b || d == a || d == b || !move_layers(p, pl, a, c, 1)) continue;
                if (move_layers(p, pl, b, d, 1)) {
                    if (better()) return true;
                    move_layers(p, pl, d, b, 1);
                }
                move_layers(p, pl, c, a, 1);
            }
        return false;
    };
    for (size_t round = 0; round < 2 * k; ++round) {
        if (!wide) {
            if (!shed_busiest() && !(swap_order && trade_busiest())) break;
        } else if (!shed() && !(swap_order && (trade_busiest() || reposition())) && !shed_two()) {
            break;
        }
    }
    return time;
}

/// The k-th least time among the orders found so far; infinity while there are fewer.
double kth_best(const std::map<std::vector<size_t>, std::pair<double, Placement>>& by_order, size_t k) {
    if (by_order.size() < k) return std::numeric_limits<double>::infinity();
    std::vector<double> times;
    for (const auto& kv : by_order) times.push_back(kv.second.first);
    std::nth_element(times.begin(), times.begin() + static_cast<long>(k - 1), times.end());
    return times[k - 1];
}

/// Every order that runs each type's stages together, one per permutation of the types (at most
/// kGroupedTypes! of them; with more types, only the fastest first), and each of those with its first
/// stage moved to the end: the optimum often opens and closes the pipeline with one type, whose fast
/// sync is exposed on the first stage (its last backward ends the pipeline), and keeps slow-sync types
/// in the middle.
std::vector<std::vector<size_t>> grouped_orders(const Problem& p) {
    constexpr size_t kGroupedTypes = 4;
    std::vector<size_t> types = order_by_compute(p);  // slowest first, one entry per stage
    std::reverse(types.begin(), types.end());
    types.erase(std::unique(types.begin(), types.end()), types.end());
    auto expand = [&](const std::vector<size_t>& by_type) {
        std::vector<size_t> order;
        for (size_t t : by_type) order.insert(order.end(), static_cast<size_t>(p.types[t].stages), t);
        return order;
    };
    std::vector<std::vector<size_t>> orders{expand(types)};
    auto sandwich = [&](const std::vector<size_t>& by_type) {
        if (p.types[by_type.front()].stages < 2 || by_type.size() < 2) return;
        std::vector<size_t> order = expand(by_type);
        std::rotate(order.begin(), order.begin() + 1, order.end());
        orders.push_back(order);
    };
    sandwich(types);
    if (types.size() > kGroupedTypes) return orders;
    std::vector<size_t> perm = types;
    std::sort(perm.begin(), perm.end());
    do
        if (perm != types) {
            orders.push_back(expand(perm));
            sandwich(perm);
        }
    while (std::next_permutation(perm.begin(), perm.end()));
    return orders;
}

}  // namespace

Placement cmr_candidate(const Problem& p, long l0, const std::vector<size_t>* order) {
    CapacityAhead ahead(p);
    return build_candidate(p, l0, order, ahead);
}

PlaceResult place_cmr(const Problem& p, const std::vector<size_t>* order) {
    const int k = p.stages();
    long l_max = 0;  // the most layers any candidate type holds on stage 0
    if (order) l_max = p.types[order->front()].max_layers[0];
    else
        for (const auto& t : p.types) l_max = std::max(l_max, t.max_layers[0]);
    l_max = std::min(l_max, p.layers - (k - 1));

    // Alg. 2's loop keeps the best candidate; beyond the paper, the best candidate of each of the
    // starts_kept best distinct stage orders is refined and polished, and the best wins. Up to
    // kWideStages stages every start is polished with every move; beyond, only the best, with the
    // busiest stage's moves: the wider moves cost O(k^2) estimates of O(k x micro-batches) each per
    // round, and on bench_planalloc_scale (up to 80 stages) they made the slowest 13B search twice as
    // slow. Four starts up to kWideStages: on bench/eval_placestages (seeds 1-8 and 42, 2,000 cases
    // each) every case within 5% of the optimum (worst +4.5%); with 3, one case at +5.3% (seed 2), at
    // 0.78 times the estimates. Beyond, three: a fourth made bench_planalloc_scale 1.7 times as slow.
    constexpr int kWideStages = 8;
    const bool wide = k <= kWideStages;
    const size_t starts_kept = wide ? 4 : 3;
    std::map<std::vector<size_t>, std::pair<double, Placement>> by_order;
    PlaceResult best;
    std::vector<StageCosts> costs;
    Schedule schedule;
    CapacityAhead ahead(p);
    for (long l0 = 1; l0 <= l_max; ++l0) {
        Placement pl = build_candidate(p, l0, order, ahead);
        if (pl.empty()) continue;
        // A candidate counts only if it beats its order's best, or (a new order) the starts_kept-th best
        // order, which only falls; the schedule's lower bound rules most out without simulating.
        const auto it = by_order.find(pl.order);
        const double bar = it != by_order.end() ? it->second.first : kth_best(by_order, starts_kept);
        const double time = iteration_time_below(p, pl, bar, costs, schedule);
        ++best.evaluated;
        if (time >= bar) continue;
        if (it != by_order.end()) it->second = {time, std::move(pl)};
        else by_order.emplace(pl.order, std::make_pair(time, pl));
    }
    std::vector<std::pair<double, Placement>> starts;
    for (auto& kv : by_order) starts.push_back(std::move(kv.second));
    auto by_time = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::sort(starts.begin(), starts.end(), by_time);
    if (starts.size() > starts_kept) starts.resize(starts_kept);
    // Beyond the paper: CMR splits its orders by its own rules; the least-busy split of the same order
    // may start closer to the best.
    for (auto& [time, pl] : starts) {
        Placement even = least_busy_split(p, pl.order, time);
        if (even.empty()) continue;
        const double t = iteration_time_below(p, even, time, costs, schedule);
        ++best.evaluated;
        if (t < time) time = t, pl = std::move(even);
    }
    std::sort(starts.begin(), starts.end(), by_time);  // the last start is the bar below
    // And CMR's orders interleave types by their ratio, where the optimum often runs each type's stages
    // together: those orders, split least-busy, compete for the starts too. An order whose least busy
    // split cannot beat the last start is dropped after one pass of the split.
    if (!order)
        for (const std::vector<size_t>& grouped : grouped_orders(p)) {
            const bool known = std::any_of(starts.begin(), starts.end(),
                                           [&](const auto& st) { return st.second.order == grouped; });
            const double bar = starts.size() < starts_kept ? std::numeric_limits<double>::infinity() : starts.back().first;
            Placement pl = known ? Placement{} : least_busy_split(p, grouped, bar);
            if (pl.empty()) continue;
            const double time = iteration_time_below(p, pl, bar, costs, schedule);
            ++best.evaluated;
            if (time >= bar) continue;
            starts.emplace_back(time, std::move(pl));
            std::sort(starts.begin(), starts.end(), by_time);
            if (starts.size() > starts_kept) starts.resize(starts_kept);
        }
    for (auto& [time, pl] : starts) {
        double refined = refine_split(p, pl, time, best.evaluated, costs, schedule, order == nullptr);
        if (wide) refined = polish(p, pl, refined, best.evaluated, costs, schedule, order == nullptr, true);
        if (best.placement.empty() || refined < best.iteration_s) best.placement = pl, best.iteration_s = refined;
    }
    if (!wide && !best.placement.empty())
        best.iteration_s =
            polish(p, best.placement, best.iteration_s, best.evaluated, costs, schedule, order == nullptr, false);
    return best;
}

}  // namespace hetsched::place
