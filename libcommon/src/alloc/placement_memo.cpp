#include <hetsched/alloc/placement_memo.hpp>

#include <stdexcept>

namespace hetsched::alloc {

std::optional<place::PlaceResult> PlacementMemo::find(int dp, int pp, const std::vector<int>& counts) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = placed_.find(Key{dp, pp, counts});
    if (it == placed_.end()) return std::nullopt;
    return it->second;
}

void PlacementMemo::store(int dp, int pp, const std::vector<int>& counts, const place::PlaceResult& r) {
    const std::lock_guard<std::mutex> lock(mutex_);
    placed_.emplace(Key{dp, pp, counts}, r);
}

void PlacementMemo::bind(const std::string& context) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (context_.empty()) context_ = context;
    else if (context != context_)
        throw std::logic_error("a placement memo was shared by searches of different jobs or options");
}

size_t PlacementMemo::size() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return placed_.size();
}

}  // namespace hetsched::alloc
