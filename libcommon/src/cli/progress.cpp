#include <hetsched/cli/progress.hpp>

#include <cstdio>
#include <unistd.h>

namespace hetsched::cli {

bool progress_wanted(bool quiet) { return !quiet && isatty(STDERR_FILENO) == 1; }

Progress::Progress(std::string label, long total, bool enabled)
    : label_(std::move(label)), total_(total), enabled_(enabled) {}

Progress::~Progress() { finish(); }

void Progress::update(long done) {
    if (!enabled_) return;
    auto now = std::chrono::steady_clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    drawn_ = true;
    if (total_ > 0)
        std::fprintf(stderr, "\r%s: %ld/%ld (%.0f%%)\x1b[K", label_.c_str(), done, total_,
                     100.0 * static_cast<double>(done) / static_cast<double>(total_));
    else
        std::fprintf(stderr, "\r%s: %ld\x1b[K", label_.c_str(), done);
    std::fflush(stderr);
}

void Progress::finish() {
    if (enabled_ && drawn_) std::fprintf(stderr, "\r\x1b[K");
    drawn_ = false;
}

}  // namespace hetsched::cli
