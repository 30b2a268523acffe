#pragma once
// The attention-masks panel's settings (a base term plus optional terms, each switched on or off, and the stack for
// the receptive field) and the one function that turns them into the AND-list of terms: the panel and the lessons
// both call it.
#include <span>
#include <vector>

#include "core/base/i18n.h"  // N_
#include "core/base/setting_spec.h"
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
  f("T", s.T, IntSpec{4, 512, "$T$", N_("Sequence length: number of query and key positions."), true});
  f("base", s.base,
    OptionsSpec{mask_base_names(), N_("base term"),
                N_("causal: $j \\le i$ (decoders); bidirectional: every key (encoders); prefix-LM: causal except a "
                   "bidirectional prefix.")});
  f("prefix", s.prefix,
    IntSpec{0, 512, N_("prefix $P$"), N_("Prefix-LM: the first $P$ tokens attend to each other freely.")});
  f("window", s.window, BoolSpec{N_("sliding window"), N_("Add the term $0 \\le i - j < W$.")});
  f("window_size", s.window_size, IntSpec{1, 512, N_("window $W$"), N_("Keys a query sees, counting itself."), true});
  f("padding", s.padding, BoolSpec{N_("padding"), N_("Add a term hiding pad tokens from every query.")});
  f("pad_count", s.pad_count, IntSpec{0, 512, N_("pad tokens"), N_("How many positions are padding.")});
  f("pad_side", s.pad_side,
    OptionsSpec{pad_side_names(), N_("pad side"),
                N_("Left padding puts pads first (batched generation); right padding puts them last.")});
  f("documents", s.documents,
    BoolSpec{N_("document packing"), N_("Add a block-diagonal causal term: packed documents never see each other.")});
  f("doc_lengths", s.doc_lengths,
    IntListSpec{1, 512, 32, N_("document lengths"),
                N_("Lengths of the packed documents in order, e.g. 8, 6, 10; positions past them form one more.")});
  f("dilated", s.dilated, BoolSpec{N_("dilated"), N_("Add the term $(i - j) \\bmod s = 0$: every $s$-th key.")});
  f("stride", s.stride, IntSpec{1, 64, N_("stride $s$"), N_("Dilation stride.")});
  f("global", s.global,
    BoolSpec{N_("global/sink tokens"),
             N_("The first $G$ tokens see and are seen by everyone, overriding the window and dilation terms.")});
  f("global_count", s.global_count, IntSpec{0, 512, N_("global tokens $G$"), N_("Number of global/sink tokens.")});
  f("layers", s.layers,
    IntSpec{1, 64, N_("layers $L$"), N_("Stacked attention layers for the receptive-field figure.")});
  f("global_every", s.global_every,
    IntSpec{0, 16, N_("full attention every $k$"),
            N_("Layer $l$ uses full attention (no window or dilation) when $l$ is a multiple of $k$; 0 = never.")});
}

}  // namespace tw
