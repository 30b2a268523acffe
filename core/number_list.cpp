#include "core/number_list.h"

#include <cmath>
#include <cstdlib>

namespace tw {

std::string parse_number_list(const std::string& text, std::vector<double>* out, size_t min_count, size_t max_count) {
  out->clear();
  const char* p = text.c_str();
  while (*p) {
    while (*p == ' ' || *p == ',' || *p == '[' || *p == ']' || *p == '\t' || *p == ';') ++p;
    if (!*p) break;
    char* end = nullptr;
    const double v = std::strtod(p, &end);
    if (end == p) return std::string("cannot read a number at \"") + std::string(p).substr(0, 12) + "\"";
    if (!std::isfinite(v)) return "every number must be finite";
    out->push_back(v);
    if (out->size() > max_count) return "at most " + std::to_string(max_count) + " numbers";
    p = end;
  }
  if (out->size() < min_count) return "enter at least " + std::to_string(min_count) + " numbers, comma-separated";
  return "";
}

}  // namespace tw
