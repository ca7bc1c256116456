#include <hetsched/alloc/bounds.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace hetsched::alloc {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// What one layer of `t` adds to a stage's busy time over the iteration.
double per_layer(const BoundType& t, double m) { return m * t.layer_s + t.sync_s; }

/// What a stage is held by transfers beyond its layers' busy time (all 0 when overlapped).
struct TransferHold {
    double every = 0;     ///< every stage: its 2m transfers over at least one link (k ≥ 2)
    double boundary = 0;  ///< one stage of each type of a mix: 2m over a link between types
};

/// The holds of `stages` stages of `kinds` types (kinds ≤ 1: no boundary). A "type" may stand for
/// several (completion_time_bound's fastest candidate), so every stage's link is the fastest of any.
TransferHold transfer_hold(const BoundJob& job, double stages, double kinds) {
    if (!job.blocking || stages < 2) return {};
    const double m2 = 2.0 * static_cast<double>(job.micro_batches);
    return {m2 * std::min(job.link_s, job.cross_link_s), kinds > 1 ? m2 * job.cross_link_s : 0.0};
}

/// Whole layers one stage of `t` holds when it may be busy at most `busy`, `hold` of it on transfers.
double room(const BoundType& t, double m, double busy, double hold = 0) {
    return std::min(static_cast<double>(t.max_layers), std::floor((busy - hold) / per_layer(t, m)));
}

/// Layers the `t.stages` stages of `t` hold under `busy`, one of them the boundary stage of a mix;
/// -1 when a stage cannot take even one.
double type_room(const BoundType& t, double m, double busy, const TransferHold& h, bool mix) {
    const double each = room(t, m, busy, h.every), edge = mix ? room(t, m, busy, std::max(h.every, h.boundary)) : each;
    if (each < 1 || edge < 1) return -1;
    return (t.stages - (mix ? 1 : 0)) * each + (mix ? edge : 0);
}

/// Layers all stages hold under `busy`; 0 when a stage cannot take even one.
double held(const std::vector<BoundType>& types, double m, double busy, const TransferHold& h, bool mix) {
    double total = 0;
    for (const auto& t : types) {
        const double r = type_room(t, m, busy, h, mix);
        if (r < 0) return 0;
        total += r;
    }
    return total;
}

/// The least Σ τ_s of a split whose stages of type t hold at most room_of(t) layers in all (-1: a
/// stage cannot hold one): one layer per stage, the rest to the fastest stages first; infinity when
/// they cannot. `sorted` by layer_s.
template <class Room>
double least_total_within(const std::vector<BoundType>& sorted, double layers, Room&& room_of) {
    double left = layers, total = 0;
    for (const auto& t : sorted) total += t.stages * t.layer_s, left -= t.stages;
    for (const auto& t : sorted) {
        const double r = room_of(t);
        if (r < 0) return kInf;
        const double take = std::min(left, r - t.stages);
        total += take * t.layer_s;
        left -= take;
        if (left <= 0) return total;
    }
    return kInf;
}

/// The least Σ τ_s of a split under `busy`.
double least_total(const std::vector<BoundType>& sorted, double m, double layers, double busy, const TransferHold& h,
                   bool mix) {
    return least_total_within(sorted, layers, [&](const BoundType& t) { return type_room(t, m, busy, h, mix); });
}

/// The least Σ τ_s + c·max τ_s over every split: at some cap B on τ (a breakpoint x·layer_s, where
/// the least Σ τ under the cap drops), least Σ τ within B plus c·B.
double least_chain(const std::vector<BoundType>& sorted, double layers, double c) {
    double best = kInf;
    for (const auto& b : sorted)
        for (long x = 1; x <= b.max_layers; ++x) {
            const double cap = static_cast<double>(x) * b.layer_s;
            const double total = least_total_within(sorted, layers, [&](const BoundType& t) {
                const double r = std::min(static_cast<double>(t.max_layers), std::floor(cap * (1 + 1e-12) / t.layer_s));
                return r < 1 ? -1 : t.stages * r;
            });
            best = std::min(best, total + c * cap);
        }
    return best;
}

}  // namespace

double iteration_lower_bound(const BoundJob& job, const std::vector<BoundType>& types, double min_busy) {
    std::vector<BoundType> sorted;
    double capacity = 0, rho = 1, busy_hi = 0, k = 0, kinds = 0;
    const double L = static_cast<double>(job.layers), m = static_cast<double>(job.micro_batches);
    for (const auto& t : types) {
        if (t.stages <= 0) continue;
        sorted.push_back(t);
        capacity += static_cast<double>(t.stages) * static_cast<double>(t.max_layers);
        rho = std::min(rho, t.backward_share);
        busy_hi = std::max(busy_hi, static_cast<double>(t.max_layers) * per_layer(t, m));
        k += t.stages;
        kinds += 1;
    }
    if (sorted.empty() || capacity < L || k > L) return kInf;
    std::sort(sorted.begin(), sorted.end(), [](const BoundType& a, const BoundType& b) { return a.layer_s < b.layer_s; });
    const TransferHold hold = transfer_hold(job, k, kinds);
    const bool mix = kinds > 1;
    busy_hi += std::max(hold.every, hold.boundary);

    // The least busy time at which the stages hold every layer.
    double lo = 0, hi = busy_hi * (1 + 1e-12);
    for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; ++i) {
        const double mid = (lo + hi) / 2;
        (held(sorted, m, mid, hold, mix) >= L ? hi : lo) = mid;
    }
    // T(busy) = max(busy, latency(busy)) with latency non-increasing in busy: bisect for the crossing.
    const double same = std::min(job.link_s, job.cross_link_s);
    // The first stage also syncs the tied embedding with the last (between nodes when they differ in
    // type) before it is done.
    const double tied = k < 2 ? 0.0 : kinds > 1 ? job.tied_cross_s : sorted.front().tied_alone_s;
    const double fixed =
        job.ends_s + 2 * (kinds - 1) * job.cross_link_s + 2 * (k - kinds) * same + job.first_sync_s + tied;
    // The stage with the largest τ (at least the mean) adds, beyond micro-batch 0's crossing, either
    // its m−1 remaining backwards, or its m−1 remaining passes less the warm-up forwards (at most
    // k−1, each at most a (1−ρ) share) that can fill its wait for the first gradient.
    const double extra = std::max((m - 1) * rho, m - 1 - (k - 1) * (1 - rho)) / k;
    // A link carries every micro-batch one way, one after another: the last activation over link j
    // arrives m transfers after the first forward ends before it, then still crosses every stage after
    // it and back, link j again, and every stage before it (the same with gradients the other way).
    // So beyond micro-batch 0's round trip, link j adds m − 1 more transfers; j a link between types
    // when there are two or more.
    const double queued = k > 1 ? (m - 1) * (kinds > 1 ? job.cross_link_s : same) : 0.0;
    auto latency = [&](double busy) {
        const double total = least_total(sorted, m, L, busy, hold, mix);
        return std::max(total * (1 + extra), total + queued) + fixed;
    };
    double a = std::max(hi, min_busy), b = std::max(a, busy_hi * (1 + 1e-12));
    if (latency(a) <= a) {
        b = a;
    } else if (latency(b) >= b) {
        a = b;
    } else {
        for (int i = 0; i < 200 && b - a > 1e-13 * b; ++i) {
            const double mid = (a + b) / 2;
            (latency(mid) > mid ? a : b) = mid;
        }
    }
    // a is at or before the crossing and b after it; the minimum of max(busy, latency) lies between.
    double bound = std::min(std::max(b, latency(b)), std::max(a, latency(a)));
    // The same chains with the largest τ itself, not the mean that stands for it above: stage b runs
    // w_b ≤ min(k − 1, m) warm-up forwards, so T ≥ Σ τ + (m − 1)·τ_b − w_b·f_b (its first backward waits
    // for micro-batch 0's round trip, and all it has left comes after) ≥ Σ τ + c·max τ, over every split.
    const double c = std::max((m - 1) * rho, m - 1 - std::min(k - 1, m) * (1 - rho));
    if (c > 0) bound = std::max(bound, least_chain(sorted, L, c) + fixed);
    const double link = kinds > 1 ? job.cross_link_s : k > 1 ? same : 0.0;
    return std::max(bound, m * link) * (1 - 1e-9);
}

double least_busy_by_position(const BoundJob& job, const std::vector<BoundType>& types,
                              const place::RoomByPosition& room) {
    const double m = static_cast<double>(job.micro_batches);
    std::vector<int> counts;
    double k = 0, kinds = 0;
    for (const auto& t : types) {
        counts.push_back(t.stages);
        if (t.stages > 0) k += t.stages, kinds += 1;
    }
    // Every stage is held by its transfers (the boundary stages more, which this bound leaves out).
    const double every = transfer_hold(job, k, kinds).every;
    std::vector<double> times;  // candidate busy times: x whole layers on a stage of some type
    for (const auto& t : types) {
        if (t.stages <= 0) continue;
        for (long x = 1; x <= t.max_layers; ++x) times.push_back(static_cast<double>(x) * per_layer(t, m) + every);
    }
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    std::vector<std::vector<long>> clipped(types.size());
    place::RoomByPosition rooms;
    for (const auto& c : clipped) rooms.push_back(&c);
    // Layers every order holds at most when no stage is busy past `busy`.
    auto held = [&](double busy) {
        for (size_t t = 0; t < types.size(); ++t) {
            const double most = std::max(0.0, std::floor((busy * (1 + 1e-12) - every) / per_layer(types[t], m)));
            clipped[t] = *room[t];
            for (long& r : clipped[t]) r = std::min(r, static_cast<long>(std::min(most, 1e15)));
        }
        return place::most_layers_ahead(rooms, 0, counts);
    };
    if (times.empty() || held(times.back()) < job.layers) return kInf;
    size_t lo = 0, hi = times.size() - 1;  // held(times[hi]) suffices
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (held(times[mid]) >= job.layers) hi = mid;
        else lo = mid + 1;
    }
    return times[hi] * (1 - 1e-12);
}

BoundType bound_type_of(const place::StageType& st, const place::Problem& base) {
    BoundType b;
    b.layer_s = kInf;
    for (size_t i = 0; i + 1 < st.forward.size(); ++i) {
        const double f = st.forward[i + 1] - st.forward[i], bw = st.backward[i + 1] - st.backward[i];
        b.layer_s = std::min(b.layer_s, f + bw);
        b.backward_share = std::min(b.backward_share, bw / (f + bw));
    }
    for (long n : st.max_layers) b.max_layers = std::max(b.max_layers, n);
    b.sync_s = st.allreduce_s_per_param * base.layer_params;
    b.tied_alone_s = st.tied_alone_s;
    return b;
}

BoundJob bound_job_of(const place::ProblemFactory& f) {
    BoundJob j;
    j.layers = f.base().layers;
    j.micro_batches = f.micro_batches();
    double head = kInf, tail = kInf, sync = kInf;
    const place::Problem& base = f.base();
    for (const place::StageType* t : f.built()) {
        head = std::min(head, t->head_forward + t->head_backward);
        tail = std::min(tail, t->tail_forward + t->tail_backward);
        sync = std::min(sync, t->allreduce_s_per_param * (base.head_params + base.layer_params));
    }
    j.first_sync_s = std::isinf(sync) ? 0 : sync;
    j.tied_cross_s = f.fastest_tied_cross_s();
    j.ends_s = std::isinf(head) ? 0 : head + tail;
    j.link_s = f.fastest_link_s();
    j.cross_link_s = f.fastest_cross_link_s();
    j.blocking = base.schedule == place::ScheduleKind::blocking;
    return j;
}

double min_price_per_speed(double price0, double speed0, int stages, const std::vector<RatioItem>& items) {
    long available = 0;
    for (const auto& it : items) available += it.available;
    if (available < stages) return kInf;
    if (stages == 0) return speed0 > 0 ? price0 / speed0 : kInf;
    std::vector<size_t> idx(items.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    double lambda = kInf;
    // Start from the best single type; each step picks the stages minimising Σ(price − λ·speed).
    for (int iter = 0; iter < 50; ++iter) {
        if (std::isinf(lambda)) {
            std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
                return items[a].price / items[a].speed < items[b].price / items[b].speed;
            });
        } else {
            std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
                return items[a].price - lambda * items[a].speed < items[b].price - lambda * items[b].speed;
            });
        }
        double price = price0, speed = speed0;
        int left = stages;
        for (size_t i : idx) {
            const int take = std::min(left, items[i].available);
            price += take * items[i].price;
            speed += take * items[i].speed;
            left -= take;
            if (left == 0) break;
        }
        const double next = price / speed;
        if (!(next < lambda * (1 - 1e-12))) return std::min(lambda, next);
        lambda = next;
    }
    return lambda;
}

namespace {

/// Stages of every completion of `p`: those fixed and those left.
double plan_stages(const PartialPlan& p) {
    double stages = p.left;
    for (int n : p.counts) stages += n;
    return stages;
}

/// Busy time one layer on a stage of candidate `t` costs over the iteration (m passes and its sync).
double busy_per_layer(const CandidateBounds& c, size_t t) {
    return per_layer(c.types[t], static_cast<double>(c.job.micro_batches));
}

}  // namespace

double completion_time_bound(const CandidateBounds& c, const PartialPlan& p) {
    std::vector<BoundType> types = c.types;
    for (size_t t = 0; t < types.size(); ++t) types[t].stages = p.counts[t];
    if (p.left > 0) {
        BoundType fast;
        fast.layer_s = kInf;
        fast.sync_s = kInf;
        fast.stages = p.left;
        int available = 0;
        for (size_t t = p.next; t < types.size(); ++t) {
            if (c.max_stages[t] <= 0) continue;
            available += c.max_stages[t];
            fast.layer_s = std::min(fast.layer_s, c.types[t].layer_s);
            fast.sync_s = std::min(fast.sync_s, c.types[t].sync_s);
            fast.backward_share = std::min(fast.backward_share, c.types[t].backward_share);
            fast.max_layers = std::max(fast.max_layers, c.types[t].max_layers);
        }
        if (available < p.left) return kInf;
        types.push_back(fast);
    }
    return iteration_lower_bound(c.job, types);
}

long completion_capacity(const CandidateBounds& c, const PartialPlan& p) {
    long held = 0;
    for (size_t t = 0; t < p.counts.size(); ++t) held += p.counts[t] * c.types[t].max_layers;
    std::vector<std::pair<long, int>> room;
    for (size_t t = p.next; t < p.counts.size(); ++t) room.emplace_back(c.types[t].max_layers, c.max_stages[t]);
    std::sort(room.rbegin(), room.rend());
    int left = p.left;
    for (auto [layers_per_stage, n] : room) {
        const int take = std::min(left, n);
        held += take * layers_per_stage;
        left -= take;
    }
    return left > 0 ? -1 : held;
}

double completion_cost_bound(const CandidateBounds& c, const PartialPlan& p, double time_bound, double iterations) {
    double price0 = 0, speed0 = 0;
    for (size_t t = 0; t < p.counts.size(); ++t) {
        price0 += p.counts[t] * c.stage_price_s[t];
        speed0 += p.counts[t] / busy_per_layer(c, t);
    }
    std::vector<RatioItem> items;
    std::vector<std::pair<double, int>> cheapest;
    for (size_t t = p.next; t < p.counts.size(); ++t) {
        items.push_back({c.stage_price_s[t], 1 / busy_per_layer(c, t), c.max_stages[t]});
        cheapest.emplace_back(c.stage_price_s[t], c.max_stages[t]);
    }
    // Product bound: the time bound times the cheapest completion's price.
    std::sort(cheapest.begin(), cheapest.end());
    double price = price0;
    int left = p.left;
    for (auto [each, n] : cheapest) {
        const int take = std::min(left, n);
        price += take * each;
        left -= take;
    }
    if (left > 0) return kInf;
    // Busy bound: a stage held h by its transfers holds at most (T − h)·speed layers, so
    // T ≥ h + L / Σ speed, and cost ≥ z·(L·(price / speed) at its least + h·the cheapest price).
    const double hold = transfer_hold(c.job, plan_stages(p), 0).every;
    const double busy =
        iterations * (static_cast<double>(c.job.layers) * min_price_per_speed(price0, speed0, p.left, items) + hold * price);
    return std::max({busy, iterations * time_bound * price, iterations * completion_room_cost(c, p)});
}

namespace {

/// One candidate type for the room bound at one busy time.
struct RoomItem {
    double price;  ///< per stage per second
    long holds;    ///< layers one stage holds within the busy time
    int available;
};

/// The least Σ price·n over exactly `stages` stages (n ≤ available) holding at least `need` layers,
/// as an LP: max over λ ≥ 0 of λ·need + the cheapest `stages` stages at price − λ·holds. The dual is
/// concave and piecewise linear, with its corners where two types swap places, so trying λ = 0 and
/// every swap point is exact. Infinity when even the roomiest stages hold too few.
double least_price_holding(std::vector<RoomItem>& items, int stages, double need) {
    std::sort(items.begin(), items.end(), [](const RoomItem& a, const RoomItem& b) { return a.holds > b.holds; });
    double most = 0;
    int left = stages;
    for (const auto& it : items) {
        const int take = std::min(left, it.available);
        most += static_cast<double>(take) * static_cast<double>(it.holds);
        left -= take;
    }
    if (left > 0 || most < need) return kInf;
    std::vector<double> lambdas{0};
    for (size_t i = 0; i < items.size(); ++i)
        for (size_t j = i + 1; j < items.size(); ++j)
            if (items[i].holds != items[j].holds) {
                const double l = (items[i].price - items[j].price) / static_cast<double>(items[i].holds - items[j].holds);
                if (l > 0) lambdas.push_back(l);
            }
    double best = -kInf;
    std::vector<double> reduced(items.size());
    std::vector<size_t> idx(items.size());
    for (double lambda : lambdas) {
        for (size_t i = 0; i < items.size(); ++i) {
            reduced[i] = items[i].price - lambda * static_cast<double>(items[i].holds);
            idx[i] = i;
        }
        std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return reduced[a] < reduced[b]; });
        double value = lambda * need;
        left = stages;
        for (size_t i : idx) {
            const int take = std::min(left, items[i].available);
            value += take * reduced[i];
            left -= take;
        }
        best = std::max(best, value);
    }
    return best;
}

}  // namespace

double completion_room_cost(const CandidateBounds& c, const PartialPlan& p) {
    const double m = static_cast<double>(c.job.micro_batches), L = static_cast<double>(c.job.layers);
    const double hold = transfer_hold(c.job, plan_stages(p), 0).every;  // what every stage's transfers add
    double price0 = 0, floor_busy = 0;
    std::vector<double> busy;  // where a present type's room changes: x whole layers on one of its stages
    for (size_t t = 0; t < p.counts.size(); ++t) {
        const bool fixed = t < p.next && p.counts[t] > 0, open = t >= p.next && c.max_stages[t] > 0 && p.left > 0;
        if (!fixed && !open) continue;
        const double each = per_layer(c.types[t], m);
        if (fixed) {
            price0 += p.counts[t] * c.stage_price_s[t];
            floor_busy = std::max(floor_busy, each + hold);  // every stage holds a layer
        }
        for (long x = 1; x <= c.types[t].max_layers; ++x) busy.push_back(static_cast<double>(x) * each + hold);
    }
    std::sort(busy.begin(), busy.end());
    std::vector<RoomItem> items;
    // The price of the cheapest completion holding the rest within busy time b (infinity: none).
    auto price_within = [&](double b) {
        double held = 0;
        items.clear();
        for (size_t t = 0; t < p.counts.size(); ++t) {
            const double each = per_layer(c.types[t], m);
            const long holds =
                std::min(c.types[t].max_layers, static_cast<long>(std::floor((b * (1 + 1e-12) - hold) / each)));
            if (t < p.next) held += p.counts[t] * static_cast<double>(holds);
            else if (c.max_stages[t] > 0 && holds >= 1) items.push_back({c.stage_price_s[t], holds, c.max_stages[t]});
        }
        if (p.left == 0) return held >= L ? price0 : kInf;
        return price0 + least_price_holding(items, p.left, L - held);
    };
    const double cheapest = busy.empty() ? kInf : price_within(busy.back());  // no busy time limits a room
    if (std::isinf(cheapest)) return kInf;
    // b·price(b) at each b where a room changes, b rising; price(b) never falls below `cheapest`, so
    // once b·cheapest reaches the best so far nothing later is lower.
    double best = kInf;
    for (double b : busy) {
        if (b < floor_busy) continue;
        if (b * cheapest >= best) break;
        best = std::min(best, b * price_within(b));
    }
    return best * (1 - 1e-12);
}

}  // namespace hetsched::alloc
