#include "core/experiments/gqa_analysis.h"

#include <cmath>
#include <random>

#include "core/base/i18n.h"
#include "core/ops/attention.h"
#include "core/ops/gqa.h"
#include "core/ops/mask.h"
#include "core/random.h"

namespace tw {

const std::vector<GqaModelPreset>& gqa_model_presets() {
  // Values from each model's config.json on the Hugging Face Hub (num_hidden_layers, num_attention_heads,
  // num_key_value_heads, head_dim or hidden_size/num_attention_heads, hidden_size).
  static const std::vector<GqaModelPreset> presets = {
      {"LLaMA-2-7B", 32, 32, 32, 128, 4096, "meta-llama/Llama-2-7b-hf config.json (MHA: num_key_value_heads = 32)"},
      {"LLaMA-2-70B", 80, 64, 8, 128, 8192, "meta-llama/Llama-2-70b-hf config.json"},
      {"Mistral-7B", 32, 32, 8, 128, 4096, "mistralai/Mistral-7B-v0.1 config.json"},
      {"Llama-3-8B", 32, 32, 8, 128, 4096, "meta-llama/Meta-Llama-3-8B config.json"},
      {"Falcon-7B", 32, 71, 1, 64, 4544, "tiiuae/falcon-7b config.json (multi_query = true, 4544 / 71 = 64)"},
      {"Gemma-2-9B", 42, 16, 8, 256, 3584, "google/gemma-2-9b config.json (head_dim 256 ≠ 3584 / 16)"},
  };
  return presets;
}

std::string validate(const GqaParams& p) {
  if (std::string e = check_gqa(p.n_heads, p.n_kv_heads); !e.empty()) return e;
  if (p.n_heads > 256) return tr("n_heads must be at most 256");
  if (p.head_dim < 1 || p.head_dim > 1024) return tr("head_dim must be between 1 and 1024");
  if (p.hidden < 0) return tr("hidden size must be ≥ 0 (0 means n_heads · head_dim)");
  if (p.layers < 1) return tr("layers must be at least 1");
  if (p.seq_len < 1) return tr("sequence length must be at least 1");
  if (p.batch < 1) return tr("batch must be at least 1");
  if (p.bytes_per_value < 1 || p.bytes_per_value > 8) return tr("bytes per value must be between 1 and 8");
  if (p.toy_tokens < 1 || p.toy_tokens > 256) return tr("toy tokens must be between 1 and 256");
  if (p.toy_head_dim < 1 || p.toy_head_dim > 64) return tr("toy head_dim must be between 1 and 64");
  if (!(p.head_similarity >= 0.0 && p.head_similarity <= 1.0)) return tr("head similarity must be in [0, 1]");
  if (p.group < 0 || p.group >= p.n_kv_heads)
    return subst(tr("group must be between 0 and n_kv_heads − 1 ({0})"), {std::to_string(p.n_kv_heads - 1)});
  return "";
}

int64_t kv_cache_bytes(int layers, int kv_heads, int head_dim, int64_t seq_len, int batch, int bytes_per_value) {
  return int64_t{2} * layers * kv_heads * head_dim * seq_len * batch * bytes_per_value;
}

ProjectionParams attention_projection_params(int hidden, int n_heads, int n_kv_heads, int head_dim) {
  ProjectionParams c;
  c.q = int64_t{hidden} * n_heads * head_dim;
  c.k = int64_t{hidden} * n_kv_heads * head_dim;
  c.v = c.k;
  c.o = int64_t{n_heads} * head_dim * hidden;
  return c;
}

namespace {

Mat gaussian(int rows, int cols, std::mt19937_64& rng) {
  Mat m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(standard_normal(rng));
  return m;
}

// Per-head weights √ρ·shared + √(1−ρ)·own: ρ = 1 makes every head identical, ρ = 0 independent.
Mat correlated_heads(int H, int D, int C, double rho, std::mt19937_64& rng) {
  const Mat shared = gaussian(D, C, rng);
  Mat w = gaussian(H * D, C, rng) * static_cast<float>(std::sqrt(1.0 - rho));
  for (int h = 0; h < H; ++h) w.middleRows(h * D, D) += static_cast<float>(std::sqrt(rho)) * shared;
  return w / static_cast<float>(std::sqrt(static_cast<double>(C)));
}

}  // namespace

GqaAnalysis analyze_gqa(const GqaParams& p) {
  const int H = p.n_heads, KV = p.n_kv_heads;
  GqaAnalysis r;
  r.n_rep = H / KV;
  r.kv_head_of = kv_head_map(H, KV);

  // KV cache against sequence length.
  const int points = 33;
  for (int i = 0; i < points; ++i) {
    const int s = static_cast<int>(static_cast<int64_t>(p.seq_len) * i / (points - 1));
    r.seq_len.push_back(s);
    r.bytes_mha.push_back(kv_cache_bytes(p.layers, H, p.head_dim, s, p.batch, p.bytes_per_value));
    r.bytes_gqa.push_back(kv_cache_bytes(p.layers, KV, p.head_dim, s, p.batch, p.bytes_per_value));
    r.bytes_mqa.push_back(kv_cache_bytes(p.layers, 1, p.head_dim, s, p.batch, p.bytes_per_value));
  }
  r.bytes_mha_at = r.bytes_mha.back();
  r.bytes_gqa_at = r.bytes_gqa.back();
  r.bytes_mqa_at = r.bytes_mqa.back();

  const int C = p.hidden > 0 ? p.hidden : H * p.head_dim;
  r.proj_mha = attention_projection_params(C, H, H, p.head_dim);
  r.proj_gqa = attention_projection_params(C, H, KV, p.head_dim);
  r.proj_mqa = attention_projection_params(C, H, 1, p.head_dim);

  // Toy MHA layer: x (T, C_toy), W_q/W_k/W_v (H·D_toy, C_toy).
  const int T = p.toy_tokens, D = p.toy_head_dim, Ct = H * D;
  std::mt19937_64 rng(p.seed);
  const Mat x = gaussian(T, Ct, rng);
  const Mat wq = gaussian(H * D, Ct, rng) / static_cast<float>(std::sqrt(static_cast<double>(Ct)));
  const Mat wk = correlated_heads(H, D, Ct, p.head_similarity, rng);
  const Mat wv = correlated_heads(H, D, Ct, p.head_similarity, rng);
  const Mat q = x * wq.transpose();
  const Mat k_full = x * wk.transpose(), v_full = x * wv.transpose();

  const Mask causal = causal_mask();
  AttentionOptions opt;
  opt.mask = &causal;
  Mat o_mha, scores, probs;
  std::vector<char> empty;
  attention_forward(o_mha, scores, probs, empty, q, k_full, v_full, opt, H, H, D);
  const double o_norm = o_mha.cast<double>().norm();

  Mat wk_pooled, wv_pooled, o_gqa;
  for (int kv : valid_kv_head_counts(H)) {
    mean_pool_kv_heads(wk_pooled, wk, H, kv, D, Ct);
    mean_pool_kv_heads(wv_pooled, wv, H, kv, D, Ct);
    const Mat k = x * wk_pooled.transpose(), v = x * wv_pooled.transpose();
    attention_forward(o_gqa, scores, probs, empty, q, k, v, opt, H, kv, D);
    r.conversion_kv.push_back(kv);
    r.conversion_error.push_back(o_norm > 0 ? (o_gqa - o_mha).cast<double>().norm() / o_norm : 0.0);
    if (kv == KV) {
      // probs is (H·T, T); the group's heads are contiguous: rows group·n_rep·T … (group+1)·n_rep·T − 1.
      r.group_probs =
          probs.middleRows(static_cast<Eigen::Index>(p.group) * r.n_rep * T, static_cast<Eigen::Index>(r.n_rep) * T);
      for (int i = 0; i < r.n_rep; ++i) r.group_heads.push_back(p.group * r.n_rep + i);
    }
  }
  return r;
}

}  // namespace tw
