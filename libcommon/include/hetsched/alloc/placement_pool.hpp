#pragma once
/// Places plans on other threads ahead of the search that will ask for them. The search itself stays
/// one sequential loop that decides what to place, prune and keep in the same order whatever the
/// thread count; the pool only has some placements ready, or under way, when the loop gets to them.
/// So the plans found and every statistic are those of a single-threaded run.
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <hetsched/place/methods.hpp>

namespace hetsched::alloc {

class PlacementPool {
public:
    /// Places one plan; called on a worker or on the caller's thread, so it must be safe to run
    /// several at once.
    using Task = std::function<place::PlaceResult()>;

    /// `workers` threads besides the caller's (at least 1).
    explicit PlacementPool(int workers);
    ~PlacementPool();
    PlacementPool(const PlacementPool&) = delete;
    PlacementPool& operator=(const PlacementPool&) = delete;

    /// Queues plan `key` (logic_error if the pool still holds that key); workers begin the least
    /// `priority` first, ties in the order offered.
    void offer(long key, double priority, Task task);
    /// Forgets plan `key` (the search cut it): left unplaced when no worker has begun it.
    void drop(long key);
    /// The placement of plan `key`: a worker's result, or placed on this thread when no worker has
    /// begun it; while a worker places it, this thread places queued plans. False when `key` was never
    /// offered (or dropped).
    bool take(long key, place::PlaceResult& out);

private:
    enum class State { queued, running, done, dropped };
    struct Entry {
        Task task;
        State state = State::queued;
        place::PlaceResult result;
        std::exception_ptr error;
        std::tuple<double, long, long> slot;  ///< its place in `queue_` while queued
    };

    void work();
    /// Stops and joins the workers (plans queued are left unplaced).
    void stop();
    /// Places the most urgent queued plan with `lock` released meanwhile, and keeps its result.
    void run_next(std::unique_lock<std::mutex>& lock);

    std::mutex mutex_;
    std::condition_variable wake_;      ///< workers: a plan was queued, or stop
    std::condition_variable finished_;  ///< the caller: a worker finished a plan
    std::set<std::tuple<double, long, long>> queue_;  ///< (priority, order offered, key)
    std::unordered_map<long, Entry> entries_;
    long offered_ = 0;
    bool stop_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace hetsched::alloc
