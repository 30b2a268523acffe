#include "core/experiments/stability_tricks.h"
#include "core/base/i18n.h"  // N_: names translated where shown

#include <algorithm>
#include <cmath>
#include <random>

#include "core/base/i18n.h"
#include "core/enum_names.h"
#include "core/ops/attention.h"
#include "core/ops/softmax.h"
#include "core/ops/z_loss.h"
#include "core/random.h"

namespace tw {

// [SECTION] soft-capping

SoftcapCurve softcap_curve(double cap, double lo, double hi, int n) {
  SoftcapCurve r;
  r.cap = cap;
  for (int i = 0; i < n; ++i) {
    const double x = lo + (hi - lo) * i / (n - 1);
    const double t = std::tanh(x / cap);
    r.x.push_back(x);
    r.capped.push_back(cap * t);
    r.derivative.push_back(1.0 - t * t);  // chain rule: c · (1 − tanh²) · (1/c)
  }
  return r;
}

// [SECTION] QK-norm

std::vector<QkNormPoint> qk_norm_sweep(int head_dim, int n_keys, const std::vector<double>& scales, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Mat q(1, head_dim), k(n_keys, head_dim);
  for (int d = 0; d < head_dim; ++d) q(0, d) = static_cast<float>(standard_normal(rng));
  for (int j = 0; j < n_keys; ++j)
    for (int d = 0; d < head_dim; ++d) k(j, d) = static_cast<float>(standard_normal(rng));
  const float inv = 1.0f / std::sqrt(static_cast<float>(head_dim));
  std::vector<QkNormPoint> out;
  for (double s : scales) {
    QkNormPoint p;
    p.scale = s;
    const Mat qs = q * static_cast<float>(s), ks = k * static_cast<float>(s);
    Mat qn, kn;
    qk_norm_heads(qn, qs, nullptr, 1e-6f, 1, head_dim);  // one "head" per row, γ = 1
    qk_norm_heads(kn, ks, nullptr, 1e-6f, 1, head_dim);
    auto measure = [&](const Mat& qq, const Mat& kk, double* max_score, double* max_prob) {
      Mat scores = (qq * kk.transpose()) * inv, probs;
      *max_score = scores.cwiseAbs().maxCoeff();
      softmax_rows(probs, scores);
      *max_prob = probs.maxCoeff();
    };
    measure(qs, ks, &p.max_score_plain, &p.max_prob_plain);
    measure(qn, kn, &p.max_score_normed, &p.max_prob_normed);
    out.push_back(p);
  }
  return out;
}

// [SECTION] z-loss

ZLossCurve z_loss_curve(double coef, double lo, double hi, int n) {
  ZLossCurve r;
  r.coef = coef;
  const int V = 8;
  const MatD base = (MatD(1, V) << 2.0, 1.0, 0.5, 0.0, 0.0, -0.5, -1.0, -2.0).finished();
  const double lz0 = log_sum_exp(base.data(), V);
  const int target = 0;
  for (int i = 0; i < n; ++i) {
    const double want = lo + (hi - lo) * i / (n - 1);
    const MatD logits = (base.array() + (want - lz0)).matrix();  // shifted so that log Z = want
    VecD logz;
    const double term = z_loss_forward<double>(logz, logits, &target, 1, coef);
    MatD probs(1, V), d = MatD::Zero(1, V);
    const std::vector<double> p = softmax(std::vector<double>(logits.data(), logits.data() + V));
    for (int v = 0; v < V; ++v) probs(0, v) = p[size_t(v)];
    z_loss_backward<double>(d, probs, logz, &target, 1, coef);
    r.log_z.push_back(logz[0]);
    r.term.push_back(term);
    r.grad_sum.push_back(d.sum());
  }
  return r;
}

// [SECTION] training comparison

namespace {
constexpr const char* kStabilityTrickNames[] = {N_("soft-cap"), N_("QK-norm"), "z-loss"};
static_assert(names_every(kStabilityTrickNames, StabilityTrick::ZLoss));
}  // namespace

const char* to_string(StabilityTrick t) { return enum_name(kStabilityTrickNames, t); }

std::string validate(const ComparisonParams& p) {
  if (!(p.lr > 0.0f && p.lr <= 1.0f)) return tr("lr must be in (0, 1]");
  if (p.steps < 1 || p.steps > 2000) return tr("steps must be between 1 and 2000");
  if (p.layers < 1 || p.layers > 8) return tr("layers must be between 1 and 8");
  if (p.heads < 1 || p.dim % p.heads != 0 || (p.dim / p.heads) % 2 != 0)
    return tr("dim must be a multiple of 2 \xC3\x97 heads (RoPE rotates pairs)");
  if (p.dim < 8 || p.dim > 256) return tr("dim must be between 8 and 256");
  if (!(p.softcap > 0.0f && p.softcap <= 1000.0f)) return tr("softcap must be in (0, 1000]");
  if (!(p.z_loss > 0.0 && p.z_loss <= 1.0)) return tr("z_loss must be in (0, 1]");
  if (p.warmup < 0 || p.warmup > p.steps) return tr("warmup must be between 0 and steps");
  return "";
}

TrainSettings comparison_settings(const ComparisonParams& p, bool with_trick) {
  const TaskConfig sort{.kind = TaskKind::Sort, .length = 6, .alphabet = 3};
  Task task;
  std::string error;
  Task::create(sort, &task, &error);
  TrainSettings t{// MHA with a plain 4·C ReLU MLP, sized for the task.
                  .model = {.dim = p.dim,
                            .n_layers = p.layers,
                            .n_heads = p.heads,
                            .n_kv_heads = p.heads,
                            .vocab = task.vocab(),
                            .hidden = 4 * p.dim,
                            .max_seq = task.seq_len(),
                            .activation = ActivationKind::ReLU},
                  .task = sort,
                  // No clipping: clipping is a stability trick of its own.
                  .optimizer = {.lr = p.lr, .clip_norm = 0.0f, .warmup_steps = p.warmup},
                  .batch = 32,
                  .seed = p.seed,
                  .eval_every = std::max(1, p.steps)};
  if (with_trick) {
    switch (p.trick) {
      case StabilityTrick::Softcap: t.model.attn_softcap = p.softcap; break;
      case StabilityTrick::QkNorm: t.model.qk_norm = true; break;
      case StabilityTrick::ZLoss: t.z_loss = p.z_loss; break;
    }
  }
  return t;
}

TrainingComparison compare_training(const ComparisonParams& p, const std::function<bool(float)>& keep_going) {
  TrainingComparison r;
  Trainer runs[2];
  RunCurve* curves[2] = {&r.without, &r.with};
  for (int i = 0; i < 2; ++i) {
    std::string error;
    if (!runs[i].init(comparison_settings(p, i == 1), &error)) {
      curves[i]->stop_message = error;
      return r;
    }
  }
  for (int s = 0; s < p.steps; ++s) {
    for (int i = 0; i < 2; ++i) {
      if (runs[i].stopped()) continue;
      std::string error;
      if (!runs[i].step(&error)) {
        curves[i]->stop_message = runs[i].stop_message().empty() ? error : runs[i].stop_message();
        continue;
      }
      curves[i]->loss.push_back(runs[i].history().back().train_loss);
      curves[i]->grad_norm.push_back(runs[i].history().back().grad_norm);
    }
    if (keep_going && !keep_going(static_cast<float>(s + 1) / p.steps)) return r;
  }
  for (int i = 0; i < 2; ++i) {
    if (!runs[i].ready() || runs[i].stopped()) continue;
    const Evaluation e = runs[i].evaluate();
    curves[i]->final_val_loss = e.loss;
    curves[i]->final_accuracy = e.accuracy;
  }
  return r;
}

}  // namespace tw
