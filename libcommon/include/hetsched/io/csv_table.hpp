#pragma once
/// CSV tables read by column name (libcsv in strict mode does the tokenizing), with every cell's
/// line and column kept so that a bad value is reported where it sits.
#include <string>
#include <vector>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/text_input.hpp>

namespace hetsched::io {

/// One cell: its text and where it starts in the file.
struct CsvCell {
    std::string text;
    int line = 0;
    int col = 0;
};

/// A parsed table: the header row, then data rows of the same width.
class CsvTable {
public:
    /// Parses `in` (UTF-8 BOM and CRLF accepted, blank lines skipped). Throws DataError on malformed
    /// quoting or a row whose width differs from the header's.
    static CsvTable parse(const TextInput& in);

    const std::string& name() const { return name_; }
    const std::vector<CsvCell>& header() const { return header_; }
    size_t rows() const { return rows_.size(); }
    const std::vector<CsvCell>& row(size_t i) const { return rows_[i]; }

    /// The index of column `column`, or -1.
    int find(const std::string& column) const;
    /// The index of column `column`; DataError naming the columns present when it is absent.
    int require(const std::string& column) const;
    /// DataError at the comment when the last comment before the first row names `column`: a header
    /// written as a comment, as numpy.savetxt writes it.
    void check_not_commented(const std::string& column) const;

    /// Cell (row, column) as a finite number in [lo, hi] (blanks around it allowed); DataError at the
    /// cell naming the column, the range and what came otherwise.
    double number(size_t row, int column, double lo, double hi) const;
    /// Cell as a finite number in (0, hi]; DataError at the cell otherwise.
    double positive(size_t row, int column, double hi) const;
    /// Cell as a whole number in [lo, hi]; DataError at the cell otherwise.
    long integer(size_t row, int column, long lo, long hi) const;
    /// Cell as 0/1/true/false/yes/no (any case; 1.0 and 0.0 as pandas writes them); DataError otherwise.
    bool boolean(size_t row, int column) const;
    const CsvCell& cell(size_t row, int column) const { return rows_[row][static_cast<size_t>(column)]; }
    /// Position of a cell, for errors the caller raises about its value.
    SourcePos where(size_t row, int column) const;

private:
    std::string name_;
    std::vector<CsvCell> header_;
    std::vector<std::vector<CsvCell>> rows_;
    CsvCell commented_header_;  ///< the last comment before the first row (a header written as one)
};

/// Writes rows as CSV, quoting only the cells that need it.
class CsvWriter {
public:
    explicit CsvWriter(const std::vector<std::string>& header) { add_row(header); }
    void add_row(const std::vector<std::string>& cells);
    const std::string& text() const { return text_; }

private:
    std::string text_;
};

}  // namespace hetsched::io
