/// Branch and bound over stage types and layer splits, exact for the estimator. A partial placement
/// (stages 0..s-1 fixed) is cut when a lower bound on every completion is no better than the best
/// complete placement so far. The bounds follow from the 1F1B dependencies (DeepSpeed's blocking
/// schedule runs the same operations in the same order):
///   - stage j cannot start before the first micro-batch crossed stages 0..j-1, works m (f_j + b_j),
///     and the last backward must travel back through 0..j-1 (the fill-and-drain bound below, less
///     its waits): T >= sum_{i<j} (f_i + b_i + 2 c_i) + m (f_j + b_j);
///   - its all-reduce starts after its own last backward: T >= sum_{i<j} (f_i + c_i) + m (f_j + b_j) + ar_j;
///   - link j carries the m activations one after another, and the last micro-batch's gradient comes
///     back through it and the stages before; in between it crosses every later layer forward and
///     backward: T >= sum_{i<=j} (f_i + b_i) + 2 sum_{i<j} c_i + (m + 1) c_j + sum_{i>j} (f_i + b_i);
///   - the R layers still to place need, on the stages left, at least m R / sum_u (1 / tau_u), tau_u the
///     fastest layer on type u (the continuous relaxation of balancing them);
///   - a placed stage j also idles twice: after its first forward it runs the forwards 1F1B puts
///     before its first backward (A_j - 1 of them), and that backward waits for micro-batch 0's way to
///     the last stage and back, chain_j (the placed stages after j, their links, and the R layers left
///     at their fastest); after its last forward it runs W_j backwards before its last, which waits for
///     the last micro-batch's way there and back:
///       T >= fb_j + m (f_j + b_j) + max(0, chain_j - (A_j - 1) f_j) + max(0, chain_j - W_j b_j),
///     the two waits apart when A_j < m (else one span: max(0, chain_j - (m - 1) min(f_j, b_j))). For equal
///     stages this is (m + k - 1)(f + b), the pipeline's fill and drain, which the bounds above leave out.
///     Placing stage s tightens it for every stage before s, whose chain it lengthens.
#include <algorithm>
#include <cmath>
#include <limits>

#include <hetsched/cli/error.hpp>
#include <hetsched/place/estimator.hpp>
#include <hetsched/place/methods.hpp>

namespace hetsched::place {
namespace {

class ExactSearch {
public:
    ExactSearch(const Problem& p, const std::vector<size_t>* order, long limit, const std::function<bool()>& stop)
        : p_(p), order_(order), limit_(limit), stop_(stop), k_(p.stages()), m_(static_cast<double>(p.micro_batches)) {
        for (size_t t = 0; t < p.types.size(); ++t) {
            left_.push_back(p.types[t].stages);
            inv_tau_.push_back(1.0 / p.min_layer_s(t));
            cap_.push_back(*std::max_element(p.types[t].max_layers.begin(), p.types[t].max_layers.end()));
        }
        cur_.order.resize(static_cast<size_t>(k_));
        cur_.layers.resize(static_cast<size_t>(k_));
        for (int j = 0; j < k_; ++j) orders_.push_back(stage_order(j, k_, p.micro_batches));
        placed_.resize(static_cast<size_t>(k_));
    }

    PlaceResult run(const PlaceResult& incumbent) {
        result_ = incumbent;
        try {
            dfs(0, 0, 0, 0);
        } catch (const Stop& s) {
            result_.stopped = true;  // the best so far, unproven
            result_.node_limit = s.node_limit;
        }
        result_.nodes = std::min(nodes_, limit_);  // the node past the limit is not visited
        return result_;
    }

private:
    /// Stages [0, s) are placed and hold `first` layers; `fb` = sum (f + b + 2c) and `f` = sum (f + c)
    /// over them, the link after stage s-1 not yet included.
    void dfs(int s, long first, double fb, double f) {
        if (++nodes_ > limit_) {
            // With a placement in hand (at least CMR's) the search stops with the best so far.
            if (!result_.placement.empty()) throw Stop{true};
            throw UsageError("the exact search passed its limit of " + std::to_string(limit_) +
                             " nodes before it found any placement; raise --search-limit");
        }
        if (stop_ && nodes_ % 1024 == 0 && stop_()) throw Stop{false};
        const long rest = p_.layers - first;
        const int stages_after = k_ - s - 1;
        for (size_t t = 0; t < p_.types.size(); ++t) {
            if (order_ ? (*order_)[static_cast<size_t>(s)] != t : left_[t] == 0) continue;
            const size_t prev = s > 0 ? cur_.order[static_cast<size_t>(s - 1)] : 0;
            // The stage before is the last placed of its type: its index is how many of it are placed, less one.
            const double link = s > 0 ? p_.transfer_s(prev, t, p_.types[prev].stages - left_[prev] - 1) : 0;
            --left_[t];
            double speed_after = 0, fastest_after = 0;
            long cap_after = 0;
            if (order_) {
                for (int j = s + 1; j < k_; ++j) {
                    const size_t u = (*order_)[static_cast<size_t>(j)];
                    speed_after += inv_tau_[u];
                    fastest_after = std::max(fastest_after, inv_tau_[u]);
                    cap_after += p_.types[u].max_layers[static_cast<size_t>(j)];
                }
            } else {
                for (size_t u = 0; u < p_.types.size(); ++u) {
                    speed_after += left_[u] * inv_tau_[u];
                    if (left_[u] > 0) fastest_after = std::max(fastest_after, inv_tau_[u]);
                    cap_after += left_[u] * cap_[u];
                }
            }
            const long hi = std::min(p_.types[t].max_layers[static_cast<size_t>(s)], rest - stages_after);
            const long lo = stages_after == 0 ? rest : std::max(1L, rest - cap_after);
            cur_.order[static_cast<size_t>(s)] = t;
            if (lo <= hi) {
                // Try the share that balances speed first, then further and further from it.
                const double share = stages_after == 0 ? static_cast<double>(rest)
                                                        : static_cast<double>(rest) * inv_tau_[t] / (inv_tau_[t] + speed_after);
                const long mid = std::clamp(static_cast<long>(std::lround(share)), lo, hi);
                for (long d = 0; mid - d >= lo || mid + d <= hi; ++d) {
                    if (mid + d <= hi) branch(s, t, mid + d, first, fb, f, link, speed_after, fastest_after);
                    if (d > 0 && mid - d >= lo) branch(s, t, mid - d, first, fb, f, link, speed_after, fastest_after);
                }
            }
            ++left_[t];
        }
    }

    /// Stage s on type t with c layers; `link` is the one from stage s-1, not yet in `fb` and `f`.
    void branch(int s, size_t t, long c, long first, double fb, double f, double link, double speed_after,
                double fastest_after) {
        const double fs = p_.forward_s(t, s, first, c), bs = p_.backward_s(t, s, first, c);
        const double busy = m_ * (fs + bs);
        const long rest = p_.layers - first - c;
        const double later = rest > 0 ? static_cast<double>(rest) / fastest_after : 0;
        const double link_bound = fb + (m_ + 1) * link + fs + bs + later;
        fb += 2 * link;
        f += link;
        double bound = std::max(f + busy + p_.tail_s(t, s, c), link_bound);  // (fb + busy: fill_and_drain_bound)
        if (rest > 0) bound = std::max(bound, fb + fs + bs + m_ * static_cast<double>(rest) / speed_after);
        placed_[static_cast<size_t>(s)] = {fs, bs, link, fb};
        bound = std::max(bound, fill_and_drain_bound(s, later));
        if (!result_.placement.empty() && bound >= result_.iteration_s) return;
        cur_.layers[static_cast<size_t>(s)] = c;
        if (s + 1 < k_) {
            dfs(s + 1, first + c, fb + fs + bs, f + fs);
            return;
        }
        const double time = iteration_time(p_, cur_, costs_, schedule_);
        ++result_.evaluated;
        if (result_.placement.empty() || time < result_.iteration_s) {
            result_.placement = cur_;
            result_.iteration_s = time;
        }
    }

    /// The largest fill-and-drain bound over stages 0..s (placed_), the R layers after s taking `later`
    /// at the least: see the file's comment.
    double fill_and_drain_bound(int s, double later) const {
        double bound = 0, chain = later;  // chain: from stage j's forward of a micro-batch to its backward
        for (int j = s; j >= 0; --j) {
            const Placed& x = placed_[static_cast<size_t>(j)];
            bound = std::max(bound, x.before + busy_and_waits(x.forward, x.backward, chain, p_.micro_batches,
                                                              orders_[static_cast<size_t>(j)]));
            chain += x.forward + x.backward + 2 * x.link_in;
        }
        return bound;
    }

    /// A placed stage: its forward and backward, the link into it, and fb up to it (its link included).
    struct Placed {
        double forward = 0, backward = 0, link_in = 0, before = 0;
    };

    const Problem& p_;
    /// Unwinds the search when stop_ says so, or at the node limit.
    struct Stop {
        bool node_limit;
    };
    const std::vector<size_t>* order_;
    long limit_;
    const std::function<bool()>& stop_;
    int k_;
    double m_;
    std::vector<int> left_;
    std::vector<double> inv_tau_;
    std::vector<long> cap_;
    Placement cur_;
    PlaceResult result_;
    long nodes_ = 0;
    std::vector<StageCosts> costs_;
    Schedule schedule_;
    std::vector<StageOrder> orders_;  ///< each stage's A and W (its schedule's order)
    std::vector<Placed> placed_;
};

}  // namespace

PlaceResult place_exact(const Problem& p, const std::vector<size_t>* order, const PlaceResult& incumbent, long limit,
                        const std::function<bool()>& stop) {
    return ExactSearch(p, order, limit, stop).run(incumbent);
}

}  // namespace hetsched::place
