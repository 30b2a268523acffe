#include "core/experiments/moe_settings.h"

namespace tw {

MoeParams params_of(const MoeSettings& s) {
  MoeParams p = s.params;
  p.capacity_factor = s.capacity_factor;
  p.router_bias = s.router_bias;
  p.seed = static_cast<uint64_t>(s.seed);
  return p;
}

}  // namespace tw
