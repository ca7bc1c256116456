#include <hetsched/alloc/cost_search.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <tuple>

#include <hetsched/alloc/bounds.hpp>
#include <hetsched/alloc/incumbents.hpp>
#include <hetsched/alloc/plan_pipeline.hpp>
#include <hetsched/alloc/search_layout.hpp>
#include <hetsched/cli/error.hpp>
#include <hetsched/place/stage_capacity.hpp>

namespace hetsched::alloc {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Thrown inside the search at one of its limits; run() keeps the best plans so far.
struct Stopped {
    const char* why;
};

class Search {
public:
    Search(const SearchSpace& s, const SearchOptions& o)
        : space_(s), opt_(o), best_(o.top, o.objective) {
        for (const auto& c : s.types) {
            names_.push_back(c.name);
            catalog_names_.push_back(s.catalog->find(c.name).name);
            // The bounds count the types of a plan by candidate: one type twice would count as a mix.
            if (std::count(catalog_names_.begin(), catalog_names_.end(), catalog_names_.back()) > 1)
                throw UsageError("GPU type " + catalog_names_.back() + " is a search candidate twice");
        }
        started_ = std::chrono::steady_clock::now();
    }

    SearchResult run() {
        if (opt_.memo)
            opt_.memo->bind(placement_context(*space_.job, *space_.catalog, catalog_names_, space_.problem, opt_.placer,
                                              opt_.placer_limit));
        layouts_ = build_search_layouts(space_, stats_);
        pipeline_ = std::make_unique<PlanPipeline>(names_, opt_, started_);
        try {
            switch (opt_.method) {
            case SearchMethod::espresso: espresso(); break;
            case SearchMethod::exhaustive: exhaustive(); break;
            case SearchMethod::homogeneous: homogeneous(); break;
            }
            settle_all();
        } catch (const Stopped& s) {
            stats_.complete = false;
            stats_.stopped_by = s.why;
            settle_all();  // plans counted as evaluated are taken in
        }
        pipeline_.reset();
        if (placer_stopped_ && stats_.complete) {  // a placement cut short is not proven best
            stats_.complete = false;
            stats_.stopped_by = placer_clock_stopped_ ? "time limit" : kPlacerNodeLimit;  // more time may help
        }
        SearchResult r;
        r.plans = best_.take();
        // --beta's guess cut what may beat the best plan found: not a proof, and what it cut counts in
        // the bound. (It prunes only against a plan found.)
        if (stats_.complete && !r.plans.empty() && beta_bound_ < best_.value(r.plans.front())) {
            stats_.complete = false;
            stats_.stopped_by = "beta";
        }
        // Complete: the best plan is optimal for the placer (every plan was placed or cut by an
        // admissible bound). Stopped: nothing left unexplored beats the least bound over it.
        double bound = stats_.complete ? kInf : opt_.method == SearchMethod::espresso ? frontier_bound() : space_lower_bound();
        bound = std::min({bound, stopped_bound_, beta_bound_});
        if (!r.plans.empty()) bound = std::min(bound, best_.value(r.plans.front()));
        stats_.lower_bound = std::isinf(bound) ? 0 : bound;
        stats_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
        r.stats = stats_;
        r.fastest_too_slow = std::move(fastest_too_slow_);
        return r;
    }

private:
    bool placer_stopped_ = false;  ///< an exact placer stopped with its best so far
    bool placer_clock_stopped_ = false;  ///< one of them at the time limit (the others at their node limit)
    double stopped_bound_ = kInf;  ///< the least bound of the plans whose placement was stopped
    double beta_bound_ = kInf;     ///< the least admissible bound of what --beta's guess pruned
    const SearchSpace& space_;
    SearchOptions opt_;
    Incumbents best_;
    std::optional<PlanRecord> fastest_too_slow_;
    std::vector<std::string> names_;
    std::vector<std::string> catalog_names_;  ///< each candidate's name as the catalog spells it
    std::vector<SearchLayout> layouts_;
    SearchStats stats_;
    std::chrono::steady_clock::time_point started_;
    size_t current_ = 0;  ///< espresso: the layout whose tree is being explored

    struct Node {
        double priority;
        long seq;  ///< FIFO among equal priorities, for determinism
        std::vector<int> counts;
        int placed;
        size_t next;
        bool operator>(const Node& o) const { return std::tie(priority, seq) > std::tie(o.priority, o.seq); }
    };
    std::vector<Node> frontier_;  ///< espresso: the current tree's open nodes, a heap
    std::optional<Node> working_; ///< and the one taken from it
    std::unique_ptr<PlanPipeline> pipeline_;  ///< last, so its workers stop before the layouts they read go

    long layers() const { return space_.job->model.layers; }
    double z() const { return static_cast<double>(space_.iterations); }
    bool cost_objective() const { return opt_.objective == Objective::cost; }
    /// Price of one stage of candidate `t` per second.
    double stage_price_s(const SearchLayout& l, size_t t) const { return l.c.stage_price_s[t]; }
    int max_stages(const SearchLayout& l, size_t t) const { return l.c.max_stages[t]; }

    /// The objective's value for an iteration time and a price per second of the whole plan.
    double value_of(double iteration_s, double price_s) const {
        return cost_objective() ? z() * iteration_s * price_s : z() * iteration_s;
    }

    /// Charges `n` to the effort budget; Stopped once it is gone.
    void spend(long n) {
        if (opt_.effort_limit > 0 && stats_.effort + n > opt_.effort_limit) throw Stopped{"effort limit"};
        stats_.effort += n;
    }

    double elapsed_s() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    }

    /// What no plan of any layout beats: the least root bound (the layouts BP dropped hold no plan).
    double space_lower_bound() const {
        double lo = kInf;
        for (const auto& l : layouts_) {
            const std::vector<int> none(names_.size(), 0);
            const double t = completion_time_bound(l, none, 0, l.pp);
            lo = std::min(lo, completion_value_bound(l, none, 0, l.pp, t));
        }
        return std::isinf(lo) ? 0 : lo;
    }

    /// Counts a node or plan against the node limit; checks the clock and reports progress now and then.
    void count_node() {
        const long done = stats_.nodes_expanded + stats_.plans_evaluated;
        if (done >= opt_.node_limit) throw Stopped{"node limit"};
        if (done % 256 != 0) return;
        const double seconds = elapsed_s();
        if (opt_.time_limit_s > 0 && seconds > opt_.time_limit_s) throw Stopped{"time limit"};
        if (!opt_.progress || done % 4096 != 0) return;
        SearchProgress p;
        p.trees_done = static_cast<long>(current_);
        p.trees = static_cast<long>(layouts_.size());
        p.nodes = stats_.nodes_expanded;
        p.plans = stats_.plans_evaluated;
        p.incumbent = std::isinf(best_.threshold()) ? 0 : best_.threshold();
        // Trees go in order of their root bound, so the current tree's bounds every tree left.
        const double root = opt_.method == SearchMethod::espresso && current_ < layouts_.size()
                                ? layouts_[current_].root_bound : space_lower_bound();
        p.bound = std::isinf(best_.threshold()) ? root : std::min(root, best_.threshold());
        p.seconds = seconds;
        opt_.progress(p);
    }

    /// The least bound over what a stopped espresso search left: the open nodes of the current tree
    /// and the trees after it.
    double frontier_bound() {
        double lo = kInf;
        if (current_ < layouts_.size()) {
            const SearchLayout& l = layouts_[current_];
            if (frontier_.empty() && !working_) lo = l.root_bound;  // its tree not begun
            for (const Node& n : frontier_) lo = std::min(lo, node_bound(l, n.counts, n.placed, n.next));
            if (working_) lo = std::min(lo, node_bound(l, working_->counts, working_->placed, working_->next));
        }
        for (size_t i = current_ + 1; i < layouts_.size(); ++i) lo = std::min(lo, layouts_[i].root_bound);
        return lo;
    }

    /// The objective's lower bound over the completions of a node: infinity when none holds the model
    /// or meets the SLO.
    double node_bound(const SearchLayout& l, const std::vector<int>& counts, int placed, size_t next) const {
        const int left = l.pp - placed;
        double t = 0, value = 0;
        if (left == 0) {
            value = leaf_bound(l, counts, &t);
        } else {
            if (!can_hold(l, counts, next, left)) return kInf;
            t = completion_time_bound(l, counts, next, left);
            value = completion_value_bound(l, counts, next, left, t);
        }
        if (std::isinf(t) || (cost_objective() && space_.slo_s > 0 && z() * t > space_.slo_s)) return kInf;
        return value;
    }

    // ---- bounds over a partial plan: `counts` fixed for types before `next`, `left` stages to add ----

    std::vector<BoundType> bound_types(const SearchLayout& l, const std::vector<int>& counts) const {
        std::vector<BoundType> out = l.c.types;
        for (size_t t = 0; t < out.size(); ++t) out[t].stages = counts[t];
        return out;
    }

    double completion_time_bound(const SearchLayout& l, const std::vector<int>& counts, size_t next, int left) const {
        return alloc::completion_time_bound(l.c, {counts, next, left});
    }
    long completion_capacity(const SearchLayout& l, const std::vector<int>& counts, size_t next, int left) const {
        return alloc::completion_capacity(l.c, {counts, next, left});
    }
    /// Lower bound of the objective over every completion.
    double completion_value_bound(const SearchLayout& l, const std::vector<int>& counts, size_t next, int left,
                                  double time_bound) const {
        if (!cost_objective()) return z() * time_bound;
        return alloc::completion_cost_bound(l.c, {counts, next, left}, time_bound, z());
    }

    /// Eq. 4-7: the least HomoConfig cost (or time) over the types that can fill the remaining stages,
    /// with Eq. 5's lower bound W / (p·Σ r) and p = m / (m + k − 1). Only orders the queue.
    double priority(const SearchLayout& l, const std::vector<int>& counts, size_t next, int left) const {
        double price0 = 0, speed0 = 0;
        for (size_t t = 0; t < counts.size(); ++t) {
            price0 += counts[t] * stage_price_s(l, t);
            speed0 += counts[t] / l.c.types[t].layer_s;
        }
        const double m = static_cast<double>(l.c.job.micro_batches);
        const double work = static_cast<double>(layers()) * (m + l.pp - 1);  // W / p in layer-times
        auto homo = [&](size_t t) {
            const double speed = speed0 + left / l.c.types[t].layer_s, price = price0 + left * stage_price_s(l, t);
            return value_of(work / speed, price);
        };
        if (left == 0) return value_of(work / speed0, price0);
        double best = kInf, any = kInf;
        for (size_t t = next; t < counts.size(); ++t) {
            any = std::min(any, homo(t));
            if (max_stages(l, t) >= left) best = std::min(best, homo(t));
        }
        return std::isinf(best) ? any : best;
    }

    // ---- complete plans ----

    /// The lower bound of a complete multiset's objective; infinity when it cannot hold the model.
    /// `by_position`: each stage's room that of its position (an assignment per candidate busy time),
    /// tighter and dearer.
    double leaf_bound(const SearchLayout& l, const std::vector<int>& counts, double* time_bound, bool by_position = false) const {
        const std::vector<BoundType> types = bound_types(l, counts);
        const double busy = by_position ? least_busy_by_position(l.c.job, types, l.room) : 0;
        const double t = std::isinf(busy) ? kInf : iteration_lower_bound(l.c.job, types, busy);
        if (time_bound) *time_bound = t;
        double price = 0;
        for (size_t i = 0; i < counts.size(); ++i) price += counts[i] * stage_price_s(l, i);
        return value_of(t, price);
    }

    /// Counts a plan as evaluated and hands it to the placer; its result is taken in
    /// PlanPipeline::kInFlight plans later (or at settle_all()).
    void evaluate(SearchLayout& l, const std::vector<int>& counts, double bound) {
        count_node();
        spend(l.pp);
        ++stats_.plans_evaluated;
        pipeline_->submit({&l, counts, bound});
        while (pipeline_->due()) settle_oldest();
    }

    void settle_all() {
        while (pipeline_->in_flight() > 0) settle_oldest();
    }

    /// Takes in the oldest plan in flight: placed (by a worker, or here) and offered to the incumbents.
    void settle_oldest() {
        PlanPipeline::Plan f;
        const place::PlaceResult r = pipeline_->take_oldest(f);
        if (r.stopped) {  // its placement may beat the one found: only the plan's own bound holds
            placer_stopped_ = true;
            placer_clock_stopped_ = placer_clock_stopped_ || !r.node_limit;
            stopped_bound_ = std::min(stopped_bound_, f.bound);
        }
        SearchLayout& l = *f.layout;
        const std::vector<int>& counts = f.counts;
        if (r.placement.empty()) {
            ++stats_.plans_unplaceable;
            return;
        }
        PlanRecord rec;
        rec.dp = l.dp;
        rec.pp = l.pp;
        rec.stages = counts;
        // The placement's type indices follow the problem's types: the plan's types in candidate order.
        std::vector<std::string> types;
        for (size_t t = 0; t < counts.size(); ++t)
            if (counts[t] > 0) types.push_back(catalog_names_[t]);
        for (size_t s = 0; s < r.placement.order.size(); ++s) {
            rec.order.push_back(types[r.placement.order[s]]);
            rec.layers.push_back(r.placement.layers[s]);
        }
        rec.iteration_s = r.iteration_s;
        rec.total_s = z() * r.iteration_s;
        for (size_t t = 0; t < counts.size(); ++t)
            rec.price_per_hour += counts[t] * l.dp * space_.types[t].price_per_hour;
        rec.cost = z() * r.iteration_s * rec.price_per_hour / 3600;
        rec.lower_bound_cost = cost_objective() ? f.bound : 0;
        if (cost_objective() && space_.slo_s > 0 && rec.total_s > space_.slo_s) {
            ++stats_.plans_too_slow;
            if (!fastest_too_slow_ || rec.total_s < fastest_too_slow_->total_s) fastest_too_slow_ = std::move(rec);
            return;
        }
        best_.offer(std::move(rec));
    }

    /// Prunes a complete plan by its bounds (counted), else evaluates it. The bounds by position are
    /// worked out only for the plans the cheaper ones leave.
    void visit_leaf(SearchLayout& l, const std::vector<int>& counts) {
        if (!l.seed.empty() && counts == l.seed) return;  // placed before the tree
        double bound = 0;
        for (bool by_position : {false, true}) {
            double time_bound = 0;
            bound = leaf_bound(l, counts, &time_bound, by_position);
            if (std::isinf(time_bound)) {
                ++stats_.pruned_capacity;
                return;
            }
            if (cost_objective() && space_.slo_s > 0 && z() * time_bound > space_.slo_s) {
                ++stats_.pruned_time;
                return;
            }
            if (bound > best_.threshold()) {
                ++stats_.pruned_cost;
                return;
            }
        }
        evaluate(l, counts, bound);
    }

    // ---- espresso: Alg. 1 ----

    /// Whether some completion of a partial plan can hold the model: by each type's largest room, then
    /// with each stage's room that of its position, the stages left as one type with the roomiest
    /// allowed candidate's room at every position (so no completion holds more), in the best order (an
    /// exact assignment).
    bool can_hold(const SearchLayout& l, const std::vector<int>& counts, size_t next, int left) const {
        if (completion_capacity(l, counts, next, left) < layers()) return false;
        place::RoomByPosition rooms(l.room.begin(), l.room.begin() + static_cast<long>(next));
        std::vector<int> stages(counts.begin(), counts.begin() + static_cast<long>(next));
        rooms.push_back(&l.roomiest_from[next]);
        stages.push_back(left);
        return place::most_layers_ahead(rooms, 0, stages) >= layers();
    }

    /// Whether a partial plan is cut (counted by rule).
    bool prune(const SearchLayout& l, const std::vector<int>& counts, int placed, size_t next) {
        const int left = l.pp - placed;
        if (!can_hold(l, counts, next, left)) {
            ++stats_.pruned_capacity;  // TCP, capacity
            return true;
        }
        const double t = completion_time_bound(l, counts, next, left);
        if (cost_objective() && space_.slo_s > 0 && z() * t > space_.slo_s) {  // TCP, time
            ++stats_.pruned_time;
            return true;
        }
        const double admissible = completion_value_bound(l, counts, next, left, t);
        if (admissible > best_.threshold()) {  // CP
            ++stats_.pruned_cost;
            return true;
        }
        if (cost_objective() && opt_.beta > 0 && placed > 0 && beta_bound(l, counts) > best_.threshold()) {
            // A guess, not a bound: what it cut is bounded only by the admissible bound it passed.
            ++stats_.pruned_cost_beta;
            beta_bound_ = std::min(beta_bound_, admissible);
            return true;
        }
        return false;
    }

    /// The paper's CP estimate: the partial plan's stages hold β of the layers their memory allows,
    /// and its GPUs are paid for the time they take to run them (Eq. 5 without the bubble factor).
    double beta_bound(const SearchLayout& l, const std::vector<int>& counts) const {
        double held = 0, speed = 0, price = 0;
        for (size_t t = 0; t < counts.size(); ++t) {
            held += counts[t] * std::floor(opt_.beta * static_cast<double>(l.c.types[t].max_layers));
            speed += counts[t] / l.c.types[t].layer_s;
            price += counts[t] * stage_price_s(l, t);
        }
        held = std::min(held, static_cast<double>(layers()));
        return z() * static_cast<double>(l.c.job.micro_batches) * held / speed * price;
    }

    void espresso() {
        // Trees in order of their root bound, so a cheap incumbent comes early.
        for (auto& l : layouts_) {
            const std::vector<int> none(names_.size(), 0);
            const double t = completion_time_bound(l, none, 0, l.pp);
            l.root_bound = completion_value_bound(l, none, 0, l.pp, t);
        }
        std::stable_sort(layouts_.begin(), layouts_.end(),
                         [](const SearchLayout& a, const SearchLayout& b) { return a.root_bound < b.root_bound; });
        if (cost_objective()) seed_cheapest();
        else seed_fastest();
        settle_all();  // the seeds' costs prune from the first tree on
        long seq = 0;
        const auto later = std::greater<Node>();
        for (current_ = 0; current_ < layouts_.size(); ++current_) {
            SearchLayout& l = layouts_[current_];
            if (l.root_bound > best_.threshold()) {
                ++stats_.trees_pruned;
                continue;
            }
            frontier_.assign(1, {0, seq++, std::vector<int>(names_.size(), 0), 0, 0});
            bool root = true;
            while (!frontier_.empty()) {
                std::pop_heap(frontier_.begin(), frontier_.end(), later);
                working_ = std::move(frontier_.back());
                frontier_.pop_back();
                const Node& n = *working_;
                if (n.placed == l.pp) {
                    visit_leaf(l, n.counts);
                    continue;
                }
                count_node();
                spend(1);
                ++stats_.nodes_expanded;
                if (prune(l, n.counts, n.placed, n.next)) {
                    if (root) ++stats_.trees_pruned;
                    root = false;
                    continue;
                }
                root = false;
                const size_t t = n.next;
                const int most = std::min(l.pp - n.placed, max_stages(l, t));
                for (int y = 0; y <= most; ++y) {
                    const int placed = n.placed + y;
                    if (placed < l.pp && t + 1 == names_.size()) continue;  // cannot be completed
                    Node child{0, seq++, n.counts, placed, t + 1};
                    child.counts[t] = y;
                    child.priority = priority(l, child.counts, child.next, l.pp - placed);
                    frontier_.push_back(std::move(child));
                    std::push_heap(frontier_.begin(), frontier_.end(), later);
                }
            }
            working_.reset();
            settle_all();  // the next tree's root is judged against this tree's plans
        }
    }

    /// For the cost objective: an incumbent before the trees, so that cost pruning bites from the start
    /// (best-first by Eq. 4 can wander long among cheap stages that cannot hold a large model). In
    /// the layouts with the least root bounds, one dive from the root to a leaf, each step to the child
    /// with the least bound; the leaf is placed unless its bounds rule it out.
    void seed_cheapest() {
        constexpr size_t kSeeds = 8;
        for (size_t i = 0; i < layouts_.size() && i < kSeeds; ++i) {
            SearchLayout& l = layouts_[i];
            std::vector<int> counts(names_.size(), 0);
            int placed = 0;
            for (size_t t = 0; t < names_.size() && placed <= l.pp; ++t) {
                const int most = std::min(l.pp - placed, max_stages(l, t));
                const int least = t + 1 == names_.size() ? l.pp - placed : 0;  // the last type completes it
                int pick = -1;
                double best = kInf;
                for (int y = least; y <= most; ++y) {
                    counts[t] = y;
                    const double b = node_bound(l, counts, placed + y, t + 1);
                    if (b < best) best = b, pick = y;
                }
                if (pick < 0) break;
                counts[t] = pick;
                placed += pick;
            }
            if (placed != l.pp) continue;
            const long before = stats_.plans_evaluated;
            visit_leaf(l, counts);
            if (stats_.plans_evaluated > before) l.seed = counts;  // placed: the tree skips it
        }
    }

    /// For the time objective, whose bounds are loose (transfers and bubbles they cannot see): each
    /// layout's fastest-types-first plan, split by Whale (one estimator run, not CMR's dozens), orders
    /// the layouts, and the best few are placed first, so a fast incumbent comes before the budget goes.
    void seed_fastest() {
        std::vector<size_t> by_speed(names_.size());
        for (size_t t = 0; t < by_speed.size(); ++t) by_speed[t] = t;
        for (auto& l : layouts_) {
            std::stable_sort(by_speed.begin(), by_speed.end(),
                             [&](size_t a, size_t b) { return l.c.types[a].layer_s < l.c.types[b].layer_s; });
            std::vector<int> counts(names_.size(), 0);
            int left = l.pp;
            for (size_t t : by_speed) {
                counts[t] = std::min(left, max_stages(l, t));
                left -= counts[t];
            }
            if (left > 0) continue;
            const place::Problem p = l.factory->problem(names_, counts);
            const place::PlaceResult r = place::place_whale(p, place::order_by_memory(p));
            if (r.placement.empty()) continue;
            l.seed = counts;
            l.estimate = r.iteration_s;
        }
        std::stable_sort(layouts_.begin(), layouts_.end(),
                         [](const SearchLayout& a, const SearchLayout& b) { return a.estimate < b.estimate; });
        constexpr size_t kSeeds = 8;
        for (size_t i = 0; i < layouts_.size(); ++i) {
            SearchLayout& l = layouts_[i];
            if (l.seed.empty()) continue;
            if (i >= kSeeds) {
                l.seed.clear();
                continue;
            }
            double time_bound = 0;
            const double bound = leaf_bound(l, l.seed, &time_bound);
            evaluate(l, l.seed, std::isinf(time_bound) ? kInf : bound);
        }
    }

    // ---- exhaustive: every multiset ----

    /// Every multiset of `left` more stages from candidates t.. within their quotas, each evaluated as it
    /// comes (the limits are checked plan by plan; a list first could outgrow memory).
    void enumerate(SearchLayout& l, std::vector<int>& counts, size_t t, int left) {
        if (t + 1 == counts.size()) {
            if (left > max_stages(l, t)) return;
            counts[t] = left;
            double time_bound = 0;
            const double bound = leaf_bound(l, counts, &time_bound);
            evaluate(l, counts, std::isinf(time_bound) ? kInf : bound);
            counts[t] = 0;
            return;
        }
        for (int y = 0; y <= std::min(left, max_stages(l, t)); ++y) {
            counts[t] = y;
            enumerate(l, counts, t + 1, left - y);
        }
        counts[t] = 0;
    }

    void exhaustive() {
        for (auto& l : layouts_) {
            std::vector<int> counts(names_.size(), 0);
            enumerate(l, counts, 0, l.pp);
        }
    }

    // ---- homogeneous (Sia+): one type, 2^n GPUs ----

    void homogeneous() {
        for (auto& l : layouts_) {
            const int gpus = l.dp * l.pp;
            if ((gpus & (gpus - 1)) != 0) continue;
            for (size_t t = 0; t < names_.size(); ++t) {
                if (max_stages(l, t) < l.pp) continue;
                std::vector<int> counts(names_.size(), 0);
                counts[t] = l.pp;
                double time_bound = 0;
                const double bound = leaf_bound(l, counts, &time_bound);
                evaluate(l, counts, std::isinf(time_bound) ? kInf : bound);
            }
        }
    }
};

}  // namespace

SearchMethod parse_search_method(const std::string& s) {
    if (s == "espresso") return SearchMethod::espresso;
    if (s == "exhaustive") return SearchMethod::exhaustive;
    if (s == "homogeneous") return SearchMethod::homogeneous;
    throw UsageError("unknown method '" + s + "' (expected espresso, exhaustive or homogeneous)");
}

std::string search_method_name(SearchMethod m) {
    switch (m) {
    case SearchMethod::espresso: return "espresso";
    case SearchMethod::exhaustive: return "exhaustive";
    case SearchMethod::homogeneous: return "homogeneous";
    }
    return "?";
}

int PlanRecord::gpus() const {
    int n = 0;
    for (int s : stages) n += s * dp;
    return n;
}

std::vector<int> dp_range(const SearchSpace& space) {
    const long mb = place::micro_batch_of(*space.job);
    const long batch = space.job->training.global_batch;
    long gpus = 0;
    for (const auto& c : space.types) gpus += c.quota;
    std::vector<int> out;
    // No layout past the model's limits (dp 2^16, 2^20 GPUs): quotas may allow more GPUs than a
    // layout takes, and such a plan was refused as bad data instead of left out.
    for (long dp = 1; dp <= std::min(gpus, model::limits::degree); dp *= 2)
        if (batch % (mb * dp) == 0) out.push_back(static_cast<int>(dp));
    return out;
}

SearchResult search_plans(const SearchSpace& space, const SearchOptions& o) { return Search(space, o).run(); }

}  // namespace hetsched::alloc
