#include "core/experiments/logit_lens.h"

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
      *error = "the trace has no step '" + name + "' (run a traced forward pass first)";
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
  std::vector<MatD> probs(static_cast<size_t>(R));
  Mat normed, logits, p;
  for (int r = 0; r < R; ++r) {  // one work item per depth
    const Mat& x = *streams[static_cast<size_t>(r)];
    if (c.has_final_norm()) {
      if (c.norm == NormType::RMSNorm)
        rmsnorm_forward(normed, x, w.final_norm.weight, c.eps);
      else
        layernorm_forward(normed, x, w.final_norm.weight, w.final_norm.bias, c.eps);
    } else {
      normed = x;
    }
    logits.noalias() = normed * w.head().transpose();  // (T, V)
    softmax_rows(p, logits);
    for (int t = 0; t < T; ++t) {
      Eigen::Index best = 0;
      lens.top_prob(r, t) = p.row(t).maxCoeff(&best);
      lens.top_token[static_cast<size_t>(r * T + t)] = static_cast<int>(best);
    }
    probs[static_cast<size_t>(r)] = p.cast<double>();
  }
  lens.final_token.resize(static_cast<size_t>(T));
  for (int t = 0; t < T; ++t) lens.final_token[static_cast<size_t>(t)] = lens.top(R - 1, t);
  for (int r = 0; r < R; ++r)
    for (int t = 0; t < T; ++t) lens.final_prob(r, t) = probs[static_cast<size_t>(r)](t, lens.final_token[size_t(t)]);
  *out = std::move(lens);
  return true;
}

}  // namespace tw
