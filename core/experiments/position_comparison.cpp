#include "core/experiments/position_comparison.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <sstream>

#include "core/base/i18n.h"
#include "core/model/positions.h"
#include "core/model/weights.h"
#include "core/ops/alibi.h"
#include "core/ops/rope.h"
#include "core/ops/softmax.h"
#include "core/train/model_train.h"
#include "core/train/optimizer.h"

namespace tw {

// [SECTION] similarity vs distance

std::string validate(const SimilarityParams& p) {
  if (p.dim < 4 || p.dim > 512 || p.dim % 2 != 0) return tr("dim must be even, between 4 and 512");
  if (p.max_distance < 1 || p.max_distance > 4096) return tr("max distance must be between 1 and 4096");
  if (p.start < 0 || p.start > 100000) return tr("start position must be between 0 and 100000");
  if (p.alibi_heads < 1 || p.alibi_heads > 64) return tr("ALiBi heads must be between 1 and 64");
  if (!(p.rope_base > 1.0 && p.rope_base <= 1e7)) return tr("RoPE base must be in (1, 1e7]");
  return "";
}

namespace {

double cosine(const Mat& a, int i, const Mat& b, int j) {
  const double dot = a.row(i).cast<double>().dot(b.row(j).cast<double>());
  return dot / (a.row(i).cast<double>().norm() * b.row(j).cast<double>().norm());
}

// (R_p x)·(R_{p+d} x) / |x|² for d = 0 … n−1, x a fixed random vector of D values (one head).
std::vector<double> rope_self_scores(const Mat& x, const std::vector<double>& theta, int p0, int n) {
  const int D = static_cast<int>(x.cols());
  Mat cos, sin, q, k;
  rope_cos_sin(cos, sin, theta, p0, 1);
  rope_apply(q, x, cos, sin, RopeConvention::HalfSplit, 1, 1, D);
  std::vector<double> out;
  const double norm2 = x.cast<double>().squaredNorm();
  Mat xs = x.replicate(n, 1);
  rope_cos_sin(cos, sin, theta, p0, n);
  rope_apply(k, xs, cos, sin, RopeConvention::HalfSplit, n, 1, D);
  for (int d = 0; d < n; ++d) out.push_back(q.row(0).cast<double>().dot(k.row(d).cast<double>()) / norm2);
  return out;
}

}  // namespace

PositionSimilarity position_similarity(const SimilarityParams& p) {
  PositionSimilarity r;
  const int n = p.max_distance + 1;
  for (int d = 0; d < n; ++d) r.distance.push_back(d);
  r.none.assign(n, 1.0);

  // Learned: the init of a position table (std 1 per entry): random directions, unrelated at every d > 0.
  ModelConfig c = tiny_config();
  c.dim = p.dim;
  c.n_heads = 2;
  c.n_kv_heads = 2;
  c.positions = PositionType::Learned;
  c.max_seq = p.start + n;
  c.vocab = 4;
  Mat learned = init_weights(c, p.seed).pos_embed;
  for (int d = 0; d < n; ++d) r.learned.push_back(cosine(learned, p.start, learned, p.start + d));

  Mat near, far;
  sinusoidal_positions(near, p.start, n, p.dim);
  sinusoidal_positions(far, p.start + 100, n, p.dim);
  for (int d = 0; d < n; ++d) {
    r.sinusoidal.push_back(cosine(near, 0, near, d));
    r.sinusoidal_far.push_back(cosine(far, 0, far, d));
  }

  std::mt19937_64 rng(p.seed + 7);
  Mat x(1, p.dim);
  for (int i = 0; i < p.dim; ++i) x(0, i) = static_cast<float>(static_cast<double>(rng() >> 11) * 0x1.0p-53 - 0.5);
  const std::vector<double> theta = rope_frequencies(p.dim, p.rope_base);
  r.rope = rope_self_scores(x, theta, p.start, n);
  r.rope_far = rope_self_scores(x, theta, p.start + 100, n);

  r.alibi_slopes = alibi_slopes(p.alibi_heads);
  for (double m : r.alibi_slopes) {
    std::vector<double> row;
    for (int d = 0; d < n; ++d) row.push_back(alibi_bias_at(m, d, 0, false));
    r.alibi.push_back(std::move(row));
  }
  return r;
}

// [SECTION] extrapolation

std::string validate(const ExtrapolationParams& p) {
  if (p.train_length < 4 || p.train_length > 64) return tr("train length $L$ must be between 4 and 64");
  if (p.period < 2 || p.period > p.train_length / 2) return tr("period must be between 2 and $L/2$");
  if (p.vocab < 4 || p.vocab > 64) return tr("vocab must be between 4 and 64");
  if (p.heads < 1 || p.dim % p.heads != 0 || (p.dim / p.heads) % 2 != 0)
    return tr("dim must be a multiple of 2 \xC3\x97 heads (RoPE rotates pairs)");
  if (p.dim < 8 || p.dim > 128) return tr("dim must be between 8 and 128");
  if (p.layers < 1 || p.layers > 4) return tr("layers must be between 1 and 4");
  if (p.steps < 1 || p.steps > 5000) return tr("steps must be between 1 and 5000");
  if (p.batch < 1 || p.batch > 128) return tr("batch must be between 1 and 128");
  if (p.eval_batch < 1 || p.eval_batch > 512) return tr("eval batch must be between 1 and 512");
  if (!(p.lr > 0.0f && p.lr <= 0.1f)) return tr("lr must be in (0, 0.1]");
  return "";
}

double extrapolation_work(const ExtrapolationParams& p) {
  const double per_token = 24.0 * p.dim * p.dim * p.layers;  // forward + backward, attention ignored
  return 5.0 * (p.steps * p.batch * p.train_length + p.eval_batch * 4.0 * p.train_length) * per_token;
}

ModelConfig extrapolation_config(const ExtrapolationParams& p, PositionType type) {
  // MHA with a plain 4·C GELU MLP; learned positions have rows up to L only, every other type is evaluated to 4L.
  return {.dim = p.dim,
          .n_layers = p.layers,
          .n_heads = p.heads,
          .n_kv_heads = p.heads,
          .vocab = p.vocab,
          .hidden = 4 * p.dim,
          .max_seq = type == PositionType::Learned ? p.train_length : 4 * p.train_length,
          .positions = type,
          .activation = ActivationKind::GELU};
}

namespace {

// B sequences of T tokens: a random block of `period` symbols, repeated. Token t (t ≥ period) is predictable.
Batch repeat_batch(std::mt19937_64& rng, const ExtrapolationParams& p, int B, int T) {
  Batch b;
  b.B = B;
  b.T = T;
  std::vector<int> block(p.period);
  for (int s = 0; s < B; ++s) {
    for (int& v : block) v = static_cast<int>(rng() % static_cast<uint64_t>(p.vocab));
    for (int t = 0; t < T; ++t) b.tokens.push_back(block[t % p.period]);
    for (int t = 0; t < T; ++t) b.targets.push_back(t + 1 < T && t + 1 >= p.period ? block[(t + 1) % p.period] : -1);
  }
  return b;
}

// loss[t] for the token at position t: −log p(token t | tokens < t), averaged over the batch.
std::vector<double> loss_per_position(const Mat& logits, const Batch& b) {
  const int V = static_cast<int>(logits.cols());
  std::vector<double> sum(b.T, 0.0);
  std::vector<int> count(b.T, 0);
  for (int s = 0; s < b.B; ++s)
    for (int t = 0; t < b.T; ++t) {
      const int row = s * b.T + t, y = b.targets[row];
      if (y < 0) continue;
      const float* x = logits.data() + static_cast<Eigen::Index>(row) * V;
      sum[t + 1] += log_sum_exp(x, V) - x[y];
      ++count[t + 1];
    }
  std::vector<double> out(b.T, std::numeric_limits<double>::quiet_NaN());
  for (int t = 0; t < b.T; ++t)
    if (count[t]) out[t] = sum[t] / count[t];
  return out;
}

double mean_of(const std::vector<double>& v, int from, int to) {
  double s = 0;
  int n = 0;
  for (int i = from; i < std::min<int>(to, static_cast<int>(v.size())); ++i)
    if (std::isfinite(v[i])) s += v[i], ++n;
  return n ? s / n : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

Extrapolation run_extrapolation(const ExtrapolationParams& p, const std::function<bool(float)>& keep_going) {
  Extrapolation r;
  r.params = p;
  const int L = p.train_length, types = static_cast<int>(std::size(kPositionTypes));
  for (int ti = 0; ti < types; ++ti) {
    const PositionType type = kPositionTypes[ti];
    ExtrapolationCurve curve;
    curve.type = type;
    curve.loss.assign(4 * L, std::numeric_limits<double>::quiet_NaN());
    const ModelConfig c = extrapolation_config(p, type);
    ModelWeights w = init_weights(c, p.seed), grads;
    OptimizerConfig opt;
    opt.lr = p.lr;
    opt.warmup_steps = std::min(20, p.steps / 5);
    opt.total_steps = p.steps;
    OptimizerState state = make_optimizer_state(opt, c);
    TrainState ts;
    std::mt19937_64 rng(p.seed * 1000003ull + 11);  // the same batches for every position type
    for (int s = 0; s < p.steps; ++s) {
      const Batch b = repeat_batch(rng, p, p.batch, L);
      double loss = 0;
      if (!train_forward_backward(&grads, ts, w, c, b, &loss, &curve.error)) break;
      clip_grad_norm(grads, c, 1.0);
      optimizer_step(w, grads, state, opt, c, scheduled_lr(opt, s));
      curve.final_train_loss = loss;
      if (keep_going && (s % 8 == 0) && !keep_going((ti + static_cast<float>(s) / p.steps) / types)) return r;
    }
    if (curve.error.empty()) {
      std::mt19937_64 eval_rng(p.seed * 7919ull + 3);  // the same held-out sequences for every type
      const Batch eval = repeat_batch(eval_rng, p, p.eval_batch, c.max_seq);
      TrainState es;
      double loss = 0;
      if (train_forward(es, w, c, eval, &loss, &curve.error)) {
        const std::vector<double> l = loss_per_position(train_logits(es), eval);
        std::copy(l.begin(), l.end(), curve.loss.begin());
      }
    }
    curve.mean_in = mean_of(curve.loss, 0, L);
    curve.mean_out = mean_of(curve.loss, L, 4 * L);
    r.curves.push_back(std::move(curve));
  }
  if (keep_going) keep_going(1.0f);
  return r;
}

// [SECTION] cached results

bool parse_extrapolation_csv(const std::string& text, const ExtrapolationParams& p, Extrapolation* out,
                             std::string* error) {
  std::istringstream in(text);
  std::string line;
  auto split = [](const std::string& l) {
    std::vector<std::string> cells;  // "0,,," has four cells: a trailing empty one counts
    std::string line = l;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t from = 0;
    for (;;) {
      const size_t comma = line.find(',', from);
      std::string cell = line.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
      if (cell.size() >= 2 && cell.front() == '"' && cell.back() == '"') cell = cell.substr(1, cell.size() - 2);
      cells.push_back(cell);
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
    return cells;
  };
  if (!std::getline(in, line)) return *error = tr("the cached results file is empty"), false;
  const std::vector<std::string> header = split(line);
  const size_t ncol = std::size(kExtrapolationColumns);
  if (header.size() != ncol)
    return *error = subst(tr("the cached results have {0} columns, expected {1}"),
                          {std::to_string(header.size()), std::to_string(ncol)}),
           false;
  for (size_t c = 0; c < ncol; ++c)
    if (header[c] != kExtrapolationColumns[c])
      return *error = subst(tr("the cached results' column {0} is '{1}', expected '{2}'"),
                            {std::to_string(c + 1), header[c], kExtrapolationColumns[c]}),
             false;
  Extrapolation r;
  r.params = p;
  const int n = 4 * p.train_length;
  for (PositionType t : kPositionTypes) {
    ExtrapolationCurve c;
    c.type = t;
    c.loss.assign(n, std::numeric_limits<double>::quiet_NaN());
    r.curves.push_back(std::move(c));
  }
  int row = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line == "\r") continue;
    const std::vector<std::string> cells = split(line);
    if (cells.size() != ncol || row >= n)
      return *error = subst(tr("the cached results have a malformed row {0}"), {std::to_string(row + 2)}), false;
    for (size_t c = 1; c < ncol; ++c) {
      char* end = nullptr;
      const double v = std::strtod(cells[c].c_str(), &end);
      if (!cells[c].empty() && end && *end == '\0' && std::isfinite(v)) r.curves[c - 1].loss[row] = v;
    }
    ++row;
  }
  if (row != n)
    return *error = subst(tr("the cached results have {0} positions, expected {1}"),
                          {std::to_string(row), std::to_string(n)}),
           false;
  const int L = p.train_length;
  for (ExtrapolationCurve& c : r.curves) c.mean_in = mean_of(c.loss, 0, L), c.mean_out = mean_of(c.loss, L, n);
  *out = std::move(r);
  return true;
}

}  // namespace tw
