#include "core/experiments/mask_settings.h"

#include "core/enum_names.h"

namespace tw {

namespace {
constexpr const char* kMaskBaseNames[] = {"causal", "bidirectional", "prefix-LM"};
static_assert(names_every(kMaskBaseNames, MaskBase::PrefixLM));
constexpr const char* kPadSideNames[] = {"left", "right"};
static_assert(names_every(kPadSideNames, PadSide::Right));
}  // namespace

std::span<const char* const> mask_base_names() { return kMaskBaseNames; }
std::span<const char* const> pad_side_names() { return kPadSideNames; }

std::vector<MaskTerm> terms_of(const MasksSettings& s) {
  std::vector<MaskTerm> t;
  auto add = [&](Mask m) { t.push_back(m.term); };
  if (s.base == MaskBase::Causal) add(causal_mask());
  if (s.base == MaskBase::Bidirectional) add(bidirectional_mask());
  if (s.base == MaskBase::PrefixLM) add(prefix_lm_mask(s.prefix));
  if (s.window) add(sliding_window_mask(s.window_size));
  if (s.padding) add(padding_mask(s.pad_count, s.pad_side == PadSide::Left, s.T));
  if (s.documents) add(document_mask(s.doc_lengths));
  if (s.dilated) add(dilated_mask(s.stride));
  if (s.global) add(global_mask(s.global_count));
  return t;
}

}  // namespace tw
