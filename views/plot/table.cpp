#include "views/plot/table.h"

#include <charconv>
#include <cmath>

namespace tw::plot {

std::string format_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  // Core computes in float: print such values as the shortest float text so 0.1f reads "0.1", not
  // "0.100000001490116"; anything else gets the shortest double text. Both read back exactly.
  const float f = static_cast<float>(v);
  std::to_chars_result r;
  if (static_cast<double>(f) == v)
    r = std::to_chars(buf, buf + sizeof buf, f);
  else
    r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

namespace {
void append_cell(std::string& out, double v) { out += format_number(v); }

void append_cell(std::string& out, std::string_view s) {
  const bool quote =
      s.find_first_of(",\"\n\r") != std::string::npos || (!s.empty() && (s.front() == ' ' || s.back() == ' '));
  if (!quote) {
    out += s;
    return;
  }
  out += '"';
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

// A Cell (owned text) or a CellRef (borrowed text).
template <class... Kinds>
void append_cell(std::string& out, const std::variant<Kinds...>& cell) {
  std::visit([&out](const auto& v) { append_cell(out, v); }, cell);
}

// One CSV line of header names, Cells or CellRefs: joined by ',', ended by '\n'.
template <class Cells>
void append_line(std::string& out, const Cells& cells) {
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i) out += ',';
    append_cell(out, cells[i]);
  }
  out += '\n';
}
}  // namespace

void append_csv_line(std::string& out, std::span<const CellRef> cells) { append_line(out, cells); }

std::string to_csv(const Table& table) {
  std::string out;
  append_line(out, table.header);
  for (const auto& row : table.rows) append_line(out, row);
  return out;
}

}  // namespace tw::plot
