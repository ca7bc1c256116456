#include <hetsched/cli/progress.hpp>

#include <algorithm>
#include <cstdio>
#include <unistd.h>

namespace hetsched::cli {

bool progress_wanted(bool quiet) { return !quiet && isatty(STDERR_FILENO) == 1; }

Progress::Progress(std::string label, long total, bool enabled)
    : label_(std::move(label)), total_(total), enabled_(enabled) {}

Progress::~Progress() { finish(); }

void Progress::update(long done, const std::string& detail, double share) {
    if (!enabled_) return;
    auto now = std::chrono::steady_clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    drawn_ = true;
    const char* sep = detail.empty() ? "" : ", ";
    if (total_ > 0) {
        std::string eta;
        const double elapsed = std::chrono::duration<double>(now - start_).count();
        if (share < 0) share = static_cast<double>(done) / static_cast<double>(total_);
        // The rate since the oldest sample inside the window (a run's pace changes: a replay's first
        // rounds have many jobs to decide, its last few).
        const double window = std::max(2.0, elapsed / 4);
        if (shares_.empty()) shares_.emplace_back(0.0, 0.0);  // the start
        while (shares_.size() > 1 && elapsed - shares_[1].first >= window) shares_.pop_front();
        const auto [then, share_then] = shares_.front();
        shares_.emplace_back(elapsed, share);
        const double rate = elapsed > then ? (share - share_then) / (elapsed - then) : 0;
        if (share > 0 && share < 1 && rate > 0 && (1 - share) / rate < 1e9) {
            const long left = static_cast<long>((1 - share) / rate);
            char buf[48];
            std::snprintf(buf, sizeof buf, ", about %ld:%02ld:%02ld left", left / 3600, left / 60 % 60, left % 60);
            eta = buf;
        }
        std::fprintf(stderr, "\r%s: %ld/%ld (%.0f%%)%s%s%s\x1b[K", label_.c_str(), done, total_,
                     100.0 * static_cast<double>(done) / static_cast<double>(total_), sep, detail.c_str(), eta.c_str());
    } else {
        std::fprintf(stderr, "\r%s: %ld%s%s\x1b[K", label_.c_str(), done, sep, detail.c_str());
    }
    std::fflush(stderr);
}

void Progress::finish() {
    if (enabled_ && drawn_) std::fprintf(stderr, "\r\x1b[K");
    drawn_ = false;
}

}  // namespace hetsched::cli
