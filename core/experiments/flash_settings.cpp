#include "core/experiments/flash_settings.h"

namespace tw {

FlashWalkParams params_of(const FlashSettings& s) {
  FlashWalkParams p = s.walk;
  p.seed = static_cast<uint64_t>(s.seed);
  return p;
}

}  // namespace tw
