#include <hetsched/io/csv_table.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <csv.h>
#include <set>

#include <hetsched/io/names.hpp>
#include <hetsched/io/number_range.hpp>

namespace hetsched::io {
namespace {

struct ParseState {
    int line = 1, col = 1;              // position of the byte being fed
    int start_line = 1, start_col = 1;  // where the current field began
    bool at_field_start = true;
    std::vector<CsvCell> current;
    std::vector<std::vector<CsvCell>> rows;
    std::vector<CsvCell> ends;          // per row, where it ends (its line break, or the end of the file)
};

void on_field(void* data, size_t len, void* ctx) {
    auto* st = static_cast<ParseState*>(ctx);
    st->current.push_back({std::string(static_cast<const char*>(data), len), st->start_line, st->start_col});
    st->at_field_start = true;
}

void on_row(int, void* ctx) {
    auto* st = static_cast<ParseState*>(ctx);
    st->rows.push_back(std::move(st->current));
    st->ends.push_back({{}, st->line, st->col});
    st->current.clear();
    st->at_field_start = true;
}

/// `text` with each comment line emptied (its line break kept, so lines keep their numbers): a line
/// that begins with # where a record begins (not inside a quoted field), before the header too,
/// whatever quotes or commas it holds. The parser skips empty lines. `last_before` is the last comment
/// before the first record, and its line: numpy.savetxt writes its header as one ("# gpu,layer").
std::string without_comments(const std::string& text, CsvCell& last_before) {
    std::string out;
    out.reserve(text.size());
    const size_t bom = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
    out.append(text, 0, bom);
    bool quoted = false, line_start = true, record_seen = false;
    int line = 1, col = 1;  // as the parser counts them: a line at each LF, a column at every other byte
    for (size_t i = bom; i < text.size(); ++i) {
        if (line_start && !quoted && text[i] == '#') {
            const size_t end = text.find_first_of("\r\n", i);
            if (!record_seen) last_before = {text.substr(i, end == std::string::npos ? end : end - i), line, col};
            if (end == std::string::npos) break;
            col += static_cast<int>(end - i);
            i = end;  // the line break itself is kept
        } else if (line_start && text[i] != '\n' && text[i] != '\r') {
            record_seen = true;
        }
        if (text[i] == '"') quoted = !quoted;
        if (text[i] == '\n') ++line, col = 1;
        else ++col;
        line_start = text[i] == '\n' || text[i] == '\r';  // CR alone ends a line too
        out += text[i];
    }
    return out;
}

/// The column names a commented-out header line gives ("# gpu, layer" -> gpu, layer), read as a CSV
/// header is (quoted names, spaces trimmed); none when the line is no CSV row.
std::vector<std::string> commented_names(const std::string& comment) {
    const size_t from = comment.find_first_not_of("# \t");
    if (from == std::string::npos) return {""};
    std::vector<std::string> names;
    try {
        const CsvTable row = CsvTable::parse({"comment", comment.substr(from) + "\n"});
        for (const auto& h : row.header()) names.push_back(h.text);
    } catch (const DataError&) {
        names.clear();
    }
    return names;
}

std::string column_list(const std::vector<CsvCell>& header) {
    std::string out;
    for (const auto& h : header) out += (out.empty() ? "" : ", ") + h.text;
    return out;
}

}  // namespace

CsvTable CsvTable::parse(const TextInput& in) {
    csv_parser p;
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0) throw std::bad_alloc();
    ParseState st;
    CsvCell commented;
    const std::string t = without_comments(in.text, commented);
    size_t i = (t.compare(0, 3, "\xEF\xBB\xBF") == 0) ? 3 : 0;
    char prev = '\n';
    for (; i < t.size(); ++i) {
        char c = t[i];
        // A field starts at its first byte; an empty field that ends its line, at that line's end.
        if (st.at_field_start && ((c != '\r' && c != '\n') || prev == ',')) {
            st.start_line = st.line;
            st.start_col = st.col;
            st.at_field_start = false;
        }
        if (csv_parse(&p, &c, 1, on_field, on_row, &st) != 1) {
            csv_free(&p);
            throw DataError("malformed CSV quoting", {in.name, st.line, st.col});
        }
        prev = c;
        if (c == '\n') {
            ++st.line;
            st.col = 1;
        } else {
            ++st.col;
        }
    }
    if (csv_fini(&p, on_field, on_row, &st) != 0) {
        csv_free(&p);
        throw DataError("unterminated quoted field at end of file", {in.name, st.line, st.col});
    }
    csv_free(&p);

    CsvTable table;
    table.name_ = in.name;
    table.commented_header_ = std::move(commented);
    if (st.rows.empty()) {
        const CsvCell& last = table.commented_header_;
        if (!last.text.empty())  // only comments: the header may be one of them
            throw DataError("no header row: the last comment ('" + last.text + "') may be it, with its '#' removed",
                            {in.name, last.line, last.col});
        throw DataError("empty CSV: expected a header row", {in.name, 1, 1});
    }
    table.header_ = std::move(st.rows.front());
    for (auto& h : table.header_) {  // tolerate spaces around header names
        size_t a = h.text.find_first_not_of(" \t"), b = h.text.find_last_not_of(" \t");
        h.text = a == std::string::npos ? "" : h.text.substr(a, b - a + 1);
    }
    for (size_t c = 0; c < table.header_.size(); ++c)  // a reader takes one column of a name
        for (size_t d = 0; d < c; ++d)
            if (!table.header_[c].text.empty() && table.header_[c].text == table.header_[d].text) {
                // A first row of data repeats values: the header may be the comment before it.
                const auto names = commented_names(table.commented_header_.text);
                const std::set<std::string> distinct(names.begin(), names.end());
                if (names.size() == table.header_.size() && distinct.size() == names.size())
                    table.check_not_commented(names.front());
                throw DataError("column '" + table.header_[c].text + "' appears twice (columns " + std::to_string(d + 1) +
                                    " and " + std::to_string(c + 1) + "): expected one column of each name",
                                {in.name, table.header_[c].line, table.header_[c].col});
            }
    for (size_t r = 1; r < st.rows.size(); ++r) {
        auto& row = st.rows[r];
        if (row.size() != table.header_.size()) {  // at the first field missing, or the first one too many
            const CsvCell& at = row.size() < table.header_.size() ? st.ends[r] : row[table.header_.size()];
            throw DataError("expected " + std::to_string(table.header_.size()) + " fields as in the header, got " +
                                std::to_string(row.size()),
                            {in.name, at.line, at.col});
        }
        table.rows_.push_back(std::move(row));
    }
    return table;
}

int CsvTable::find(const std::string& column) const {
    for (size_t i = 0; i < header_.size(); ++i)
        if (header_[i].text == column) return static_cast<int>(i);
    return -1;
}

int CsvTable::require(const std::string& column) const {
    int i = find(column);
    if (i >= 0) return i;
    // A column one character off the missing one is where to look (ffn_hiden for ffn_hidden).
    for (const auto& h : header_)
        if (!likely_slip(h.text, {column}).empty())
            throw DataError("missing column '" + column + "': '" + h.text + "' looks mistyped for it",
                            {name_, h.line, h.col});
    check_not_commented(column);
    throw DataError("missing column '" + column + "' (columns are: " + column_list(header_) + ")", {name_, header_.empty() ? 1 : header_.front().line, 1});
}

void CsvTable::check_not_commented(const std::string& column) const {
    const auto names = commented_names(commented_header_.text);
    // The comment names the column, and the row read as the header shares no name with it (a real
    // header below a comment that lists columns is no header commented out).
    const auto named = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) != names.end(); };
    if (named(column) && std::none_of(header_.begin(), header_.end(), [&](const CsvCell& h) { return named(h.text); }))
        throw DataError("the header is commented out ('" + commented_header_.text +
                            "'): remove its '#' (numpy.savetxt: comments='')",
                        {name_, commented_header_.line, commented_header_.col});
}

SourcePos CsvTable::where(size_t row, int column) const {
    const CsvCell& c = cell(row, column);
    return {name_, c.line, c.col};
}

namespace {

std::string trimmed(const std::string& s) {
    const size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

}  // namespace

double CsvTable::number(size_t row, int column, double lo, double hi) const {
    const std::string& text = cell(row, column).text;
    const std::optional<double> v = parse_finite(trimmed(text));
    if (!v || *v < lo || *v > hi)
        throw DataError(expected_number(lo, hi) + " in column '" + header_[static_cast<size_t>(column)].text +
                            "', got '" + shown_value(text) + "'",
                        where(row, column));
    return *v;
}

double CsvTable::positive(size_t row, int column, double hi) const {
    const std::string& text = cell(row, column).text;
    const std::optional<double> v = parse_finite(trimmed(text));
    if (!v || !(*v > 0) || *v > hi)
        throw DataError(expected_positive(hi) + " in column '" + header_[static_cast<size_t>(column)].text +
                            "', got '" + shown_value(text) + "'",
                        where(row, column));
    return *v;
}

long CsvTable::integer(size_t row, int column, long lo, long hi) const {
    const std::string& text = cell(row, column).text;
    const std::optional<long> v = parse_whole(trimmed(text), lo, hi);
    if (!v)
        throw DataError(expected_integer(lo, hi) + " in column '" + header_[static_cast<size_t>(column)].text +
                            "', got '" + shown_value(text) + "'",
                        where(row, column));
    return *v;
}

bool CsvTable::boolean(size_t row, int column) const {
    const std::string& s = cell(row, column).text;
    // Also as spreadsheets (TRUE), Python (True) and pandas, which writes a 0/1 column with gaps as
    // floats (1.0), write them.
    const size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");  // a quoted " 1"
    const std::string w = a == std::string::npos ? "" : folded_name(s.substr(a, b - a + 1));
    if (w == "1" || w == "1.0" || w == "true" || w == "yes") return true;
    if (w == "0" || w == "0.0" || w == "false" || w == "no") return false;
    throw DataError("expected 0 or 1 (or true/false, yes/no) in column '" + header_[static_cast<size_t>(column)].text +
                        "', got '" + s + "'",
                    where(row, column));
}

void CsvWriter::add_row(const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
        if (i) text_ += ',';
        const std::string& c = cells[i];
        if (c.find_first_of(",\"\r\n") == std::string::npos) {
            text_ += c;
            continue;
        }
        text_ += '"';
        for (char ch : c) {
            if (ch == '"') text_ += '"';
            text_ += ch;
        }
        text_ += '"';
    }
    text_ += '\n';
}

}  // namespace hetsched::io
