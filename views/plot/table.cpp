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
void append_text(std::string& out, std::string_view s) {
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
}  // namespace

void append_csv_line(std::string& out, std::span<const CellRef> cells) {
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i) out += ',';
    if (const double* d = std::get_if<double>(&cells[i]))
      out += format_number(*d);
    else
      append_text(out, std::get<std::string_view>(cells[i]));
  }
  out += '\n';
}

std::string to_csv(const Table& table) {
  std::string out;
  for (size_t i = 0; i < table.header.size(); ++i) {
    if (i) out += ',';
    append_text(out, table.header[i]);
  }
  out += '\n';
  for (const auto& row : table.rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      if (i) out += ',';
      if (const double* d = std::get_if<double>(&row[i]))
        out += format_number(*d);
      else
        append_text(out, std::get<std::string>(row[i]));
    }
    out += '\n';
  }
  return out;
}

}  // namespace tw::plot
