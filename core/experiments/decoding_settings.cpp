#include "core/experiments/decoding_settings.h"

#include <cmath>

#include "core/base/i18n.h"
#include "core/number_list.h"

namespace tw {

DecodingInputs params_of(const DecodingSettings& s) {
  DecodingInputs in;
  if (std::string e = parse_number_list(s.logits_p, &in.logits_p, 2, 32); !e.empty()) {
    in.error = subst(tr("logits $p$: {0}"), {e});
    return in;
  }
  if (std::string e = parse_number_list(s.logits_q, &in.logits_q, 2, 32); !e.empty()) {
    in.error = subst(tr("logits $q$: {0}"), {e});
    return in;
  }
  if (in.logits_p.size() != in.logits_q.size()) {
    in.error = subst(tr("logits $p$ and $q$ need the same number of entries ({0} vs {1})"),
                     {std::to_string(in.logits_p.size()), std::to_string(in.logits_q.size())});
    return in;
  }
  for (const std::vector<double>* l : {&in.logits_p, &in.logits_q})
    for (double v : *l)
      if (std::abs(v) > 1e4) {
        in.error =
            tr("logits must be within \xC2\xB1"
               "1e4");
        return in;
      }
  in.error = validate(s.sampling);
  return in;
}

}  // namespace tw
