#pragma once
/// Lower bounds on what any placement of a job onto a multiset of pipeline stages can achieve, for
/// the allocator's pruning. They hold for every placer, because they only use facts the 1F1B
/// estimator cannot beat: a stage is busy for all its micro-batches, the first micro-batch crosses
/// every stage and back, and transfers and gradient syncs only add time.
#include <vector>

#include <hetsched/place/problem_builder.hpp>
#include <hetsched/place/stage_capacity.hpp>

namespace hetsched::alloc {

/// One GPU type as the bounds see it, at one (dp, stages) layout.
struct BoundType {
    double layer_s = 0;          ///< fastest forward + backward of one layer, per micro-batch
    double sync_s = 0;           ///< gradient all-reduce time one layer adds to its stage
    double backward_share = 1;   ///< smallest backward / (forward + backward) of a layer
    long max_layers = 0;         ///< most layers a stage of this type holds at any position
    int stages = 0;              ///< stages of this type
    double tied_alone_s = 0;     ///< tied-embedding sync when every stage is of this type
};

/// What the bound knows about the job beyond the stage types.
struct BoundJob {
    long layers = 0;
    long micro_batches = 1;
    double ends_s = 0;   ///< fastest embedding + fastest output layer, forward and backward
    double link_s = 0;        ///< fastest activation transfer between two stages of one type
    double cross_link_s = 0;  ///< fastest activation transfer between stages of different types
    double first_sync_s = 0;  ///< fastest gradient sync of the first stage's embedding and one layer
    double tied_cross_s = 0;  ///< fastest tied-embedding sync of the first and last stage between nodes
    /// DeepSpeed's blocking schedule: each of the 2m transfers over a link (m activations, m gradients)
    /// holds the stages at both ends, so it adds to both stages' busy time.
    bool blocking = false;
};

/// Lower bound on the iteration time of any placement of the job's layers onto the stages `types`
/// (infinity when the stages cannot hold the layers). With x_s ≥ 1 the whole layers of stage s,
/// τ_s = x_s·a_s its per-micro-batch time, c_s = m·a_s + r_s (busy time plus gradient sync per layer),
/// k stages of d distinct types, ρ the smallest backward share, sync_0 the first stage's all-reduce
/// and, with tied embeddings, its sync with the last stage (between nodes when d > 1):
///   T ≥ x_s·c_s + h_s for every s            (m micro-batches, then its all-reduce; h_s = 0 when
///                                             overlapped; when blocking, 2m transfers over the fastest
///                                             link for every stage (k ≥ 2), and 2m over the fastest
///                                             link between types for one stage of each type of a mix,
///                                             as every run of a type meets another type at one end)
///   T ≥ Σ τ_s·(1 + e/k) + ends + links + sync_0, e = max((m−1)·ρ, m−1−(k−1)·(1−ρ))
///                                            (micro-batch 0 crosses every stage and link forward and
///                                             back, d−1 of the links between types; the stage with
///                                             the largest τ, at least the mean, owes m−1 more
///                                             backwards, or m−1 passes less the 1F1B warm-up
///                                             forwards that fill its wait for the first gradient;
///                                             the first stage's all-reduce starts after all that)
///   T ≥ Σ τ_s + e'·max τ_s + ends + links + sync_0, e' = max((m−1)·ρ, m−1−min(k−1, m)·(1−ρ))
///                                            (the same chains with the largest τ itself, over every
///                                             split: the least Σ τ under a cap B plus e'·B, at each
///                                             breakpoint B = x·layer_s)
///   T ≥ Σ τ_s + ends + links + sync_0 + (m−1)·link
///                                            (a link carries every micro-batch one way in turn; the
///                                             last then crosses every stage and link around it, as
///                                             micro-batch 0 did; a cross-type link when d > 1)
///   T ≥ m·link
/// minimised over every split of whole layers, fast stages filled first, with the busy time at least
/// `min_busy` (see least_busy_by_position).
double iteration_lower_bound(const BoundJob& job, const std::vector<BoundType>& types, double min_busy = 0);

/// The least busy time max_s x_s·c_s at which the stages hold every layer when each stage's room is
/// that of its position (StageType::max_layers), not its type's largest: over every order of the
/// stages (an exact assignment of positions to stages per candidate time). `room[t]` by position for
/// `types[t]`, whose `stages` give the counts. Infinity when no order holds the layers.
double least_busy_by_position(const BoundJob& job, const std::vector<BoundType>& types,
                              const place::RoomByPosition& room);

/// The bound's view of one built stage type (its `stages` left 0).
BoundType bound_type_of(const place::StageType& t, const place::Problem& base);

/// The bound's view of the job at a factory's layout, over the types the factory has built.
BoundJob bound_job_of(const place::ProblemFactory& f);

/// One type a completion may draw stages from.
struct RatioItem {
    double price = 0;   ///< per stage (its dp GPUs), any unit
    double speed = 0;   ///< layers per second of one stage (1 / (m·layer_s + sync_s))
    int available = 0;  ///< stages still allowed by the quota
};

/// min (price0 + Σ price) / (speed0 + Σ speed) over choices of exactly `stages` more stages from
/// `items` (Dinkelbach's method; exact, since each step is a sort). Infinity when too few are left.
/// Times L·iterations it bounds the cost of every completion: T ≥ L / Σ speed.
double min_price_per_speed(double price0, double speed0, int stages, const std::vector<RatioItem>& items);

/// The candidate types of one (dp, stages) layout as the completion bounds see them.
struct CandidateBounds {
    BoundJob job;
    std::vector<BoundType> types;       ///< per candidate, `stages` 0
    std::vector<double> stage_price_s;  ///< one stage (its dp GPUs), per second
    std::vector<int> max_stages;        ///< stages the candidate's quota allows
};

/// A partial plan: `counts[t]` stages of the candidates before `next` are fixed, and `left` more
/// stages are still to be drawn from candidates `next` onwards.
struct PartialPlan {
    const std::vector<int>& counts;
    size_t next = 0;
    int left = 0;
};

/// Lower bound on the iteration time of any completion of `p`: the `left` stages as the fastest,
/// roomiest candidate still allowed (infinity when too few stages are allowed).
double completion_time_bound(const CandidateBounds& c, const PartialPlan& p);

/// The most layers any completion of `p` holds (the roomiest allowed candidates first, within
/// quotas); -1 when the quotas cannot supply `left` more stages.
long completion_capacity(const CandidateBounds& c, const PartialPlan& p);

/// Lower bound on the cost of `iterations` iterations of any completion of `p` whose iteration time
/// is at least `time_bound`: the largest of the busy bound (T ≥ h + L / Σ speed, priced at the least
/// price per speed), the time bound times the cheapest completion's price, and the room bound
/// (completion_room_cost).
double completion_cost_bound(const CandidateBounds& c, const PartialPlan& p, double time_bound, double iterations);

/// The room bound: memory caps what a stage holds, so a completion whose stages are each busy at most
/// B (B ≥ x_s·c_s + h, h what every stage's transfers hold it when blocking) holds min(room, (B − h) / c)
/// layers per stage, and must still hold them all. Its price is
/// then at least the cheapest such completion's (the two-constraint LP, stage count and layers held,
/// solved through its Lagrangian dual), and its cost at least B times that price, minimised over the
/// busy times at which some stage's room changes. Per iteration; infinity when no completion holds
/// the model.
double completion_room_cost(const CandidateBounds& c, const PartialPlan& p);

}  // namespace hetsched::alloc
