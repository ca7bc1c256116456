#pragma once
/// A one-line progress display on stderr for long runs (replay, large searches). It draws only when
/// stderr is a terminal and the user did not ask for quiet, and at most ten times a second.
#include <chrono>
#include <deque>
#include <string>
#include <utility>

namespace hetsched::cli {

class Progress {
public:
    /// `total` 0 means unknown (a counter without percentage).
    Progress(std::string label, long total, bool enabled);
    ~Progress();
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    /// Reports `done` units finished, with `detail` after the count; with a total, the time left is
    /// estimated from the recent rate (over the last quarter of the run, at least two seconds) of
    /// `share` (0 to 1) when the caller knows the part of the work done better than the units counted,
    /// else of done / total. Cheap to call on every step.
    void update(long done, const std::string& detail = "", double share = -1);
    /// Clears the line.
    void finish();

private:
    std::string label_;
    long total_;
    bool enabled_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point last_{};
    std::deque<std::pair<double, double>> shares_;  ///< (seconds since start, share) as drawn
};

/// Whether a progress display should be shown: stderr is a TTY and not quiet.
bool progress_wanted(bool quiet);

}  // namespace hetsched::cli
