#include "core/experiments/norm_placement.h"

#include <cmath>
#include <random>

#include "core/base/i18n.h"
#include "core/model/weights.h"
#include "core/train/model_train.h"

namespace tw {

std::string validate(const PlacementParams& p) {
  if (p.depths.empty() || p.depths.size() > 16) return "depths: give between 1 and 16 depths";
  for (int d : p.depths)
    if (d < 1 || d > 64) return tr("depths: each depth must be between 1 and 64");
  if (p.dim < 8 || p.dim > 128 || p.dim % 4 != 0) return tr("dim must be a multiple of 4 between 8 and 128");
  if (p.seq < 2 || p.seq > 64) return tr("seq must be between 2 and 64");
  if (p.batch < 1 || p.batch > 32) return tr("batch must be between 1 and 32");
  return "";
}

double placement_work(const PlacementParams& p) {
  double layers = 0;
  for (int d : p.depths) layers += d;
  // forward + backward ≈ 3 × (12 C² per token per layer), twice (pre and post)
  return 2.0 * 3.0 * 12.0 * p.dim * p.dim * p.seq * p.batch * layers;
}

ModelConfig placement_config(const PlacementParams& p, int depth, NormPlacement placement) {
  ModelConfig c = tiny_config();
  c.dim = p.dim;
  c.n_layers = depth;
  c.n_heads = 4;
  c.n_kv_heads = 4;
  c.hidden = 4 * p.dim;
  c.activation = ActivationKind::GELU;
  c.vocab = 64;
  c.max_seq = p.seq;
  c.norm = p.norm;
  c.placement = placement;
  c.positions = PositionType::Learned;
  return c;
}

namespace {

Batch random_batch(const PlacementParams& p, int vocab) {
  Batch b;
  b.B = p.batch;
  b.T = p.seq;
  std::mt19937_64 rng(p.seed * 0x9E3779B97F4A7C15ull + 17);
  for (int i = 0; i < p.batch * p.seq; ++i) b.tokens.push_back(static_cast<int>(rng() % static_cast<uint64_t>(vocab)));
  for (int s = 0; s < p.batch; ++s)
    for (int t = 0; t < p.seq; ++t) b.targets.push_back(t + 1 < p.seq ? b.tokens[s * p.seq + t + 1] : -1);
  return b;
}

// ‖g‖₂ of each block's tensors (names model.layers.{l}.*), from the real gradient buffers.
std::vector<double> per_layer_norms(ModelWeights& grads, const ModelConfig& c) {
  std::vector<double> sq(c.n_layers, 0.0);
  const std::string prefix = "model.layers.";
  visit_parameters(grads, c, [&](const std::string& name, float* data, int64_t size, ParamKind) {
    if (name.compare(0, prefix.size(), prefix) != 0) return;
    const int l = std::stoi(name.substr(prefix.size()));
    for (int64_t i = 0; i < size; ++i) sq[l] += static_cast<double>(data[i]) * data[i];
  });
  for (double& v : sq) v = std::sqrt(v);
  return sq;
}

}  // namespace

std::vector<PlacementGradients> placement_gradients(const PlacementParams& p,
                                                    const std::function<bool(float)>& keep_going) {
  std::vector<PlacementGradients> out;
  double total = 0, done = 0;
  for (int d : p.depths) total += d;
  for (int d : p.depths) {
    PlacementGradients g;
    g.depth = d;
    for (NormPlacement place : {NormPlacement::Pre, NormPlacement::Post}) {
      const ModelConfig c = placement_config(p, d, place);
      const ModelWeights w = init_weights(c, p.seed);  // same seed: the blocks start from the same weights
      const Batch batch = random_batch(p, c.vocab);
      ModelWeights grads;
      TrainState state;
      double loss = 0;
      std::string error;
      if (!train_forward_backward(&grads, state, w, c, batch, &loss, &error)) return out;
      (place == NormPlacement::Pre ? g.pre : g.post) = per_layer_norms(grads, c);
      (place == NormPlacement::Pre ? g.pre_loss : g.post_loss) = loss;
      done += 0.5 * d;
      if (keep_going && !keep_going(static_cast<float>(done / total))) return out;
    }
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace tw
