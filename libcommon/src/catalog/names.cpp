#include <algorithm>
#include <cctype>

#include <hetsched/catalog/gpu_catalog.hpp>

namespace hetsched::catalog {

std::string normalize_name(const std::string& s) {
    std::string out;
    for (unsigned char c : s)
        if (std::isalnum(c)) out += static_cast<char>(std::tolower(c));
    return out;
}

namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j)
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

}  // namespace

std::vector<std::string> close_names(const std::string& wanted, const std::vector<std::string>& candidates) {
    const std::string w = normalize_name(wanted);
    std::vector<std::pair<size_t, std::string>> scored;
    for (const auto& c : candidates) {
        const std::string n = normalize_name(c);
        size_t d = edit_distance(w, n);
        if (!w.empty() && n.find(w) != std::string::npos) d = 0;  // a fragment of the name
        if (d <= std::max<size_t>(2, n.size() / 3)) scored.emplace_back(d, c);
    }
    std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<std::string> out;
    for (size_t i = 0; i < scored.size() && i < 3; ++i) out.push_back(scored[i].second);
    return out;
}

std::string did_you_mean(const std::string& wanted, const std::vector<std::string>& candidates) {
    auto near = close_names(wanted, candidates);
    if (near.empty()) return "";
    std::string out = ", did you mean ";
    for (size_t i = 0; i < near.size(); ++i)
        out += (i ? (i + 1 == near.size() ? " or " : ", ") : "") + ("'" + near[i] + "'");
    return out + "?";
}

}  // namespace hetsched::catalog
