#include "core/number_list.h"

#include <cmath>
#include <cstdlib>

#include "core/base/i18n.h"

namespace tw {

std::string parse_number_list(const std::string& text, std::vector<double>* out, size_t min_count, size_t max_count) {
  out->clear();
  const char* p = text.c_str();
  while (*p) {
    while (*p == ' ' || *p == ',' || *p == '[' || *p == ']' || *p == '\t' || *p == ';') ++p;
    if (!*p) break;
    char* end = nullptr;
    const double v = std::strtod(p, &end);
    if (end == p) return subst(tr("cannot read a number at \"{0}\""), {std::string(p).substr(0, 12)});
    if (!std::isfinite(v)) return tr("every number must be finite");
    out->push_back(v);
    if (out->size() > max_count) return subst(tr("at most {0} numbers"), {std::to_string(max_count)});
    p = end;
  }
  if (out->size() < min_count)
    return subst(tr("enter at least {0} numbers, comma-separated"), {std::to_string(min_count)});
  return "";
}

}  // namespace tw
