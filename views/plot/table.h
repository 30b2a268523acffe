#pragma once
// Table: the CSV form of a figure (header row + data rows). Panels set it explicitly when an issue
// prescribes the columns (e.g. `d_k, max_p_scaled, ...`); otherwise it is derived from the figure's items.

#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tw::plot {

using Cell = std::variant<double, std::string>;  // numbers are written losslessly, text is quoted when needed

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<Cell>> rows;  // each row has header.size() cells

  bool empty() const { return header.empty(); }
  Table& add_row(std::vector<Cell> row) {
    rows.push_back(std::move(row));
    return *this;
  }
};

// Formats one number the way the CSV writer does: the shortest text that reads back to the same value
// (as float when the value is exactly a float, so 0.1f prints "0.1"); "inf", "-inf", "nan" otherwise.
std::string format_number(double v);

// The whole table as CSV text (RFC 4180 quoting, '\n' line ends, header first).
std::string to_csv(const Table& table);

// A cell that refers to text instead of owning it: what the streaming CSV writer passes around, so a figure's
// rows are formatted one at a time instead of being stored as a Table (a Cell is 40 bytes, the double it holds 8).
using CellRef = std::variant<double, std::string_view>;
// Appends one CSV line (cells joined by ',', quoted where needed, then '\n') to `out`.
void append_csv_line(std::string& out, std::span<const CellRef> cells);

}  // namespace tw::plot
