#include "core/experiments/logit_lens.h"

#include <cmath>

#include "core/base/i18n.h"
#include "core/ops/norm.h"
#include "core/ops/softmax.h"

namespace tw {

bool logit_lens(LogitLens* out, const Trace& trace, const ModelWeights& w, const ModelConfig& c, std::string* error) {
  // The stream entering layer 0, then the stream leaving each layer (pre-norm: after the MLP residual add;
  // post-norm: after the norm that ends the block).
  LogitLens lens;
  lens.steps.push_back(trace.find("pos_embed") ? "pos_embed" : "embed");
  lens.rows.push_back("embed");
  const bool pre = c.placement == NormPlacement::Pre;
  for (int l = 0; l < c.n_layers; ++l) {
    lens.steps.push_back("layers." + std::to_string(l) + (pre ? ".mlp.residual" : ".mlp_norm"));
    lens.rows.push_back("layer " + std::to_string(l));
  }
  std::vector<const Mat*> streams;
  for (const std::string& name : lens.steps) {
    const TraceStep* s = trace.find(name);
    if (!s) {
      *error = subst(tr("the trace has no step '{0}' (run a traced forward pass first)"), {name});
      return false;
    }
    streams.push_back(&s->value);
  }
  const int R = static_cast<int>(streams.size());
  const int T = static_cast<int>(streams[0]->rows());
  lens.T = T;
  lens.top_token.assign(static_cast<size_t>(R * T), 0);
  lens.top_prob = MatD::Zero(R, T);
  lens.final_prob = MatD::Zero(R, T);
  // The last row first: its top tokens are the model's predictions every other row is scored against.
  lens.final_token.assign(static_cast<size_t>(T), 0);
  Mat normed, logits;
  // The model's own final norm and head: Gemma's (1 + γ) and its final soft-cap c·tanh(z/c) included.
  Vec gamma = w.final_norm.weight;
  if (c.norm_plus_one) gamma.array() += 1;
  for (int k = 0; k < R; ++k) {     // one work item per depth
    const int r = (k + R - 1) % R;  // R-1, 0, 1, …, R-2
    const Mat& x = *streams[static_cast<size_t>(r)];
    if (c.has_final_norm()) {
      if (c.norm == NormType::RMSNorm)
        rmsnorm_forward(normed, x, gamma, c.eps);
      else
        layernorm_forward(normed, x, w.final_norm.weight, w.final_norm.bias, c.eps);
    } else {
      normed = x;
    }
    logits.noalias() = normed * w.head().transpose();  // (T, V)
    if (c.final_softcap > 0) logits = (logits.array() / c.final_softcap).tanh() * c.final_softcap;
    // softmax(z)_j = exp(z_j − log Σ exp z): only the normaliser and two entries are needed.
    for (int t = 0; t < T; ++t) {
      Eigen::Index best = 0;
      const float zmax = logits.row(t).maxCoeff(&best);
      const double lse = log_sum_exp(logits.row(t).data(), static_cast<int>(logits.cols()));
      if (r == R - 1) lens.final_token[static_cast<size_t>(t)] = static_cast<int>(best);
      lens.top_token[static_cast<size_t>(r * T + t)] = static_cast<int>(best);
      lens.top_prob(r, t) = std::exp(double(zmax) - lse);
      lens.final_prob(r, t) = std::exp(double(logits(t, lens.final_token[size_t(t)])) - lse);
    }
  }
  *out = std::move(lens);
  return true;
}

}  // namespace tw
