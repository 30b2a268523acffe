#pragma once
// The attention-masks panel's settings (a base term plus optional terms, each switched on or off, and the stack for
// the receptive field) and the one function that turns them into the AND-list of terms: the panel and the lessons
// both call it.
#include <span>
#include <vector>

#include "core/ops/mask.h"

namespace tw {

enum class MaskBase { Causal, Bidirectional, PrefixLM };
enum class PadSide { Left, Right };
std::span<const char* const> mask_base_names();  // "causal", "bidirectional", "prefix-LM"
std::span<const char* const> pad_side_names();   // "left", "right"

struct MasksSettings {
  static constexpr const char* kPanel = "masks";
  int T = 24;                        // sequence length
  MaskBase base = MaskBase::Causal;  // the first term: causal, bidirectional or prefix-LM
  int prefix = 6;                    // prefix-LM: bidirectional prefix length
  bool window = false;               // optional terms, each removable
  int window_size = 4;
  bool padding = false;
  int pad_count = 3;
  PadSide pad_side = PadSide::Left;
  bool documents = false;
  std::vector<int> doc_lengths = {8, 6, 10};
  bool dilated = false;
  int stride = 2;
  bool global = false;
  int global_count = 2;
  int layers = 6;        // stacked layers for the receptive field
  int global_every = 0;  // full attention every k-th layer; 0 = never
};

// The AND-list of terms the settings describe, in list order (the order "blocked by" reports).
std::vector<MaskTerm> terms_of(const MasksSettings& s);

// The scene keys, in the panel's order (see core/lessons/scene_settings.h).
template <class F>
void for_each_setting(MasksSettings& s, F&& f) {
  f("T", s.T);
  f("base", s.base, mask_base_names());
  f("prefix", s.prefix);
  f("window", s.window);
  f("window_size", s.window_size);
  f("padding", s.padding);
  f("pad_count", s.pad_count);
  f("pad_side", s.pad_side, pad_side_names());
  f("documents", s.documents);
  f("doc_lengths", s.doc_lengths);
  f("dilated", s.dilated);
  f("stride", s.stride);
  f("global", s.global);
  f("global_count", s.global_count);
  f("layers", s.layers);
  f("global_every", s.global_every);
}

}  // namespace tw
