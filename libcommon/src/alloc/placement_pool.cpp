#include <hetsched/alloc/placement_pool.hpp>

#include <stdexcept>
#include <string>
#include <utility>

namespace hetsched::alloc {

PlacementPool::PlacementPool(int workers) {
    try {
        for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
    } catch (...) {  // a thread that could not start: stop those that did
        stop();
        throw;
    }
}

void PlacementPool::stop() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
    threads_.clear();
}

PlacementPool::~PlacementPool() { stop(); }

void PlacementPool::offer(long key, double priority, Task task) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (entries_.count(key)) throw std::logic_error("PlacementPool: plan " + std::to_string(key) + " offered twice");
        Entry& e = entries_[key];
        e.task = std::move(task);
        e.slot = {priority, offered_++, key};
        queue_.insert(e.slot);
    }
    wake_.notify_one();
}

void PlacementPool::drop(long key) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = entries_.find(key);
    if (it == entries_.end()) return;
    if (it->second.state == State::running) {
        it->second.state = State::dropped;  // forgotten when its placement is done
        return;
    }
    if (it->second.state == State::queued) queue_.erase(it->second.slot);
    entries_.erase(it);
}

bool PlacementPool::take(long key, place::PlaceResult& out) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end() || it->second.state == State::dropped) return false;
    if (it->second.state == State::queued) {
        queue_.erase(it->second.slot);
        Task task = std::move(it->second.task);
        entries_.erase(it);
        lock.unlock();
        out = task();
        return true;
    }
    // A worker is placing it: rather than idle, place the next queued plan here meanwhile (the search
    // asks for plans roughly in queue order, so it is likely wanted soon).
    while (entries_.at(key).state != State::done) {
        if (queue_.empty())
            finished_.wait(lock);
        else
            run_next(lock);
    }
    Entry e = std::move(entries_.at(key));
    entries_.erase(key);
    lock.unlock();
    if (e.error) std::rethrow_exception(e.error);
    out = std::move(e.result);
    return true;
}

void PlacementPool::run_next(std::unique_lock<std::mutex>& lock) {
    const long key = std::get<2>(*queue_.begin());
    queue_.erase(queue_.begin());
    Entry& e = entries_.at(key);
    e.state = State::running;
    Task task = std::move(e.task);
    lock.unlock();
    place::PlaceResult result;
    std::exception_ptr error;
    try {
        result = task();
    } catch (...) {
        error = std::current_exception();
    }
    lock.lock();
    Entry& done = entries_.at(key);  // a rehash may have moved it
    if (done.state == State::dropped) {
        entries_.erase(key);
        return;
    }
    done.state = State::done;
    done.result = std::move(result);
    done.error = error;
    finished_.notify_all();
}

void PlacementPool::work() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        wake_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (stop_) return;
        run_next(lock);
    }
}

}  // namespace hetsched::alloc
