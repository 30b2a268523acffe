#include "core/experiments/flash_walkthrough.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "core/base/i18n.h"
#include "core/compare.h"
#include "core/ops/attention.h"
#include "core/ops/mask.h"

namespace tw {

std::string validate(const FlashWalkParams& p) {
  if (p.T < 1 || p.T > 256) return tr("$T$ must be between 1 and 256");
  if (p.D < 1 || p.D > 128) return tr("$D$ must be between 1 and 128");
  if (p.tile_q < 1 || p.tile_q > p.T) return tr("the query tile must be between 1 and $T$");
  if (p.tile_k < 1 || p.tile_k > p.T) return tr("the key tile must be between 1 and $T$");
  return "";
}

double standard_attention_floats(int T, int D) { return 4.0 * T * D + 4.0 * double(T) * T; }

double tiled_attention_floats(int T, int D, int tile_q, int tile_k, bool causal) {
  double keys = 0;  // Σ nk over the (query tile, key tile) pairs the kernel computes
  for (int q0 = 0; q0 < T; q0 += tile_q) {
    const int last_query = std::min(q0 + tile_q, T) - 1;
    // The key tiles computed are those starting at k0 ≤ last_query (all of them without a mask): whole tiles up
    // to the one holding last_query, the final one cut at T. In closed form, so long curves stay fast.
    const double last_key = causal ? (double(last_query / tile_k) + 1) * tile_k : double(T);
    keys += std::min(last_key, double(T));
  }
  return 2.0 * T * D + 2.0 * D * keys;
}

namespace {

// Copies the kernel's state at every tile into FlashSteps.
struct Recorder : FlashObserver {
  int D = 0, tile_q = 1, tile_k = 1;
  std::vector<FlashStep>* steps = nullptr;
  double key_floats = 0;
  void tile(const FlashTileState& s) override {
    FlashStep st;
    st.q_tile = s.q0 / tile_q;
    st.k_tile = s.k0 / tile_k;
    st.q0 = s.q0, st.nq = s.nq, st.k0 = s.k0, st.nk = s.nk, st.skipped = s.skipped;
    st.m.assign(s.m, s.m + s.nq);
    st.l.assign(s.l, s.l + s.nq);
    st.acc = Eigen::Map<const Mat>(s.acc, s.nq, D);
    if (!s.skipped) {
      st.p = Eigen::Map<const Mat, 0, Eigen::OuterStride<>>(s.p, s.nq, s.nk, Eigen::OuterStride<>(s.p_stride));
      key_floats += 2.0 * s.nk * D;
    }
    steps->push_back(std::move(st));
  }
};

}  // namespace

FlashWalkthrough flash_walkthrough(const FlashWalkParams& p) {
  FlashWalkthrough w;
  std::mt19937_64 rng(p.seed);
  auto gauss = [&]() {  // Box–Muller from 53-bit uniforms: identical on every platform
    const double u1 = (static_cast<double>(rng() >> 11) + 1.0) * 0x1.0p-53;
    const double u2 = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2));
  };
  for (Mat* m : {&w.q, &w.k, &w.v}) {
    m->resize(p.T, p.D);
    for (Eigen::Index i = 0; i < m->size(); ++i) m->data()[i] = gauss();
  }
  const Mask causal = causal_mask();
  AttentionOptions opt;
  if (p.causal) opt.mask = &causal;
  std::vector<char> empty;
  attention_forward(w.reference, w.scores, w.probs, empty, w.q, w.k, w.v, opt, 1, 1, p.D);

  Recorder rec;
  rec.D = p.D, rec.tile_q = p.tile_q, rec.tile_k = p.tile_k, rec.steps = &w.steps;
  flash_attention_forward(w.output, empty, w.q, w.k, w.v, opt, 1, 1, p.D, p.tile_q, p.tile_k, &w.stats, &rec);
  w.max_abs_diff = max_abs_diff(w.output, w.reference);
  w.standard_floats = standard_attention_floats(p.T, p.D);
  w.tiled_floats = tiled_attention_floats(p.T, p.D, p.tile_q, p.tile_k, p.causal);
  w.tiled_floats_counted = 2.0 * p.T * p.D + rec.key_floats;
  return w;
}

double flash_walkthrough_work(const FlashWalkParams& params) { return double(params.T) * params.T * params.D; }

}  // namespace tw
