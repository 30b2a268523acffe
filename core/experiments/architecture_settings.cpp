#include "core/experiments/architecture_settings.h"

#include "core/base/i18n.h"

namespace tw {

ArchitectureConfig params_of(const ArchitectureSettings& s) {
  ArchitectureConfig c;
  c.name = tr("your model");
  c.d_model = s.d_model, c.layers = s.layers, c.heads = s.heads, c.kv_heads = s.kv_heads;
  c.head_dim = s.heads > 0 ? s.d_model / s.heads : 0;
  c.d_ff = s.d_ff, c.gated = s.gated, c.tied = s.tied, c.vocab = s.vocab, c.context = 4096;
  return c;
}

}  // namespace tw
