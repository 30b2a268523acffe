#pragma once
// Table: the CSV form of a figure (header row + data rows). Panels set it explicitly when an issue
// prescribes the columns (e.g. `d_k, max_p_scaled, ...`); otherwise it is derived from the figure's items.

#include <string>
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

}  // namespace tw::plot
