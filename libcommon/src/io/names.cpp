#include <hetsched/io/names.hpp>

#include <algorithm>
#include <cctype>

namespace hetsched::io {

bool same_name(const std::string& a, const std::string& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        const unsigned char x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
        if (x != y && !(x < 0x80 && y < 0x80 && std::tolower(x) == std::tolower(y))) return false;
    }
    return true;
}

std::string folded_name(const std::string& name) {
    std::string out = name;
    for (char& c : out)
        if (static_cast<unsigned char>(c) < 0x80) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::vector<std::string> name_words(const std::string& s) {
    std::vector<std::string> out;
    std::string word;
    for (unsigned char c : s + " ") {
        if (std::isalnum(c)) {
            word += static_cast<char>(std::tolower(c));
        } else if (!word.empty()) {
            out.push_back(word);
            word.clear();
        }
    }
    return out;
}

namespace {

/// Lower-case letters and digits only: how close two names look, for suggestions (never for matching).
std::string normalize_name(const std::string& s) {
    std::string out;
    for (unsigned char c : s)
        if (std::isalnum(c)) out += static_cast<char>(std::tolower(c));
    return out;
}

/// Edits from a to b: characters added, dropped or changed, and two neighbours swapped ("dwon" is one
/// edit from "down", as a typist's slip is).
size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], before[j - 2] + 1);
        }
        std::swap(before, prev);
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

}  // namespace

std::vector<std::string> close_names(const std::string& wanted, const std::vector<std::string>& candidates) {
    const std::string w = normalize_name(wanted);
    if (w.empty() || w.size() > 64) return {};  // nothing to compare, or not a name a person typed
    std::vector<std::string> word_prefixes;  // what was typed up to the end of each of its words
    for (size_t i = 0; i < wanted.size(); ++i) {
        const bool end = std::isalnum(static_cast<unsigned char>(wanted[i])) &&
                         (i + 1 == wanted.size() || !std::isalnum(static_cast<unsigned char>(wanted[i + 1])));
        if (end) word_prefixes.push_back(normalize_name(wanted.substr(0, i + 1)));
    }
    std::vector<std::string> typed_words = name_words(wanted);
    std::sort(typed_words.begin(), typed_words.end());
    struct Scored {
        size_t distance;
        size_t words_matched;  // a known name typed (with more words after it, or its words reordered): its length
        std::string name;
    };
    std::vector<Scored> scored;
    for (const auto& c : candidates) {
        const std::string n = normalize_name(c);
        size_t d = edit_distance(w, n), matched = 0;
        if (n.find(w) != std::string::npos) d = 0;  // a fragment of the name
        // The whole name with more words after it ("H100-SXM-80GB" for H100-SXM), not a shorter name
        // that only starts a word (A10 for "A100"); the longer such name first.
        if (std::find(word_prefixes.begin(), word_prefixes.end(), n) != word_prefixes.end()) d = 0, matched = n.size();
        // The name's words, all typed and no other, in another order ("a100-sxm-80gb" for A100-80GB-SXM).
        auto words = name_words(c);
        std::sort(words.begin(), words.end());
        if (!words.empty() && words == typed_words) d = 0, matched = n.size();
        if (d <= std::max<size_t>(2, n.size() / 3)) scored.push_back({d, matched, c});
    }
    std::stable_sort(scored.begin(), scored.end(), [](const Scored& x, const Scored& y) {
        return x.distance != y.distance ? x.distance < y.distance : x.words_matched > y.words_matched;
    });
    std::vector<std::string> out;
    // Behind a known name typed with more words, names that are not are noise.
    const bool known_name = !scored.empty() && scored[0].words_matched > 0;
    for (size_t i = 0; i < scored.size() && out.size() < 3; ++i)
        if (!known_name || scored[i].distance <= 2) out.push_back(scored[i].name);
    return out;
}

namespace {

/// Whether `short_name` shortens `name` word by word: as many '_'-separated words, each the same or
/// the start (3 characters or more) of the other's ("mem_gib" of memory_gib, "sub_time_s" of
/// submit_time_s).
bool shortens_words(const std::string& short_name, const std::string& name) {
    const auto words = [](const std::string& x) {
        std::vector<std::string> out(1);
        for (const char c : x)
            if (c == '_')
                out.emplace_back();
            else
                out.back().push_back(c);
        return out;
    };
    const std::vector<std::string> a = words(short_name), b = words(name);
    if (a.size() != b.size() || short_name == name) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i] && (a[i].size() < 3 || a[i].size() >= b[i].size() || b[i].compare(0, a[i].size(), a[i]) != 0))
            return false;
    return true;
}

}  // namespace

std::string likely_slip(const std::string& wanted, const std::vector<std::string>& candidates) {
    // Case folded and '-' read as '_', nothing dropped: "tags" is two edits from "tau_s", not one.
    const auto fold = [](const std::string& x) {
        std::string out = folded_name(x);
        std::replace(out.begin(), out.end(), '-', '_');
        return out;
    };
    const std::string w = fold(wanted);
    if (w.size() < 4 || w.size() > 64) return "";
    std::string found;
    for (const auto& c : candidates) {
        const std::string n = fold(c);
        // A slip, or the name's leading words alone ("memory" for memory_gib, "gpu_util" for gpu_util_pct).
        const bool leading_words = n.compare(0, w.size() + 1, w + "_") == 0;
        if (n.size() < 4 || (edit_distance(w, n) > 1 && !leading_words && !shortens_words(w, n))) continue;
        if (!found.empty()) return "";  // a slip of two names: say nothing
        found = c;
    }
    return found;
}

std::string did_you_mean(const std::string& wanted, const std::vector<std::string>& candidates) {
    auto near = close_names(wanted, candidates);
    if (near.empty()) return "";
    std::string out = ", did you mean ";
    for (size_t i = 0; i < near.size(); ++i)
        out += (i ? (i + 1 == near.size() ? " or " : ", ") : "") + ("'" + near[i] + "'");
    return out + "?";
}

std::string near_miss_warning(const std::string& name, const std::vector<std::string>& known, const SourcePos& at,
                              const std::string& noun, const std::string& not_read) {
    if (std::find(known.begin(), known.end(), name) != known.end()) return "";
    const std::string near = likely_slip(name, known);
    if (near.empty()) return "";
    return at.file + ":" + std::to_string(at.line) + ":" + std::to_string(at.col) + ": " + noun + " '" +
           escape_control(name) + "' " + not_read + ", did you mean '" + near + "'?";
}

}  // namespace hetsched::io
