#pragma once
// Entropy, cross-entropy, KL divergence and perplexity of discrete distributions: the quantities a language
// model's loss is made of. For a model q and the data's next-token distribution p:
//   H(p)    = −Σ p_i log p_i                 uncertainty of p itself
//   H(p, q) = −Σ p_i log q_i                 the training loss (cross-entropy) when p is one-hot on the target
//   KL(p‖q) = Σ p_i log(p_i / q_i) = H(p, q) − H(p) ≥ 0, and 0 only when q = p (Gibbs' inequality)
//   perplexity = exp(H(p, q) in nats) = 2^(H(p, q) in bits): the effective number of equally likely choices
// Terms with p_i = 0 contribute 0 (0 log 0 = 0); a q_i = 0 where p_i > 0 makes H(p, q) and KL(p‖q) infinite.

#include <string>
#include <vector>

#include "core/train/trainer.h"

namespace tw {

struct InformationMeasures {
  double entropy_p = 0;      // H(p), bits
  double entropy_q = 0;      // H(q), bits
  double cross_entropy = 0;  // H(p, q), bits (+∞ when q misses part of p's support)
  double kl_pq = 0;          // KL(p‖q), bits
  double kl_qp = 0;          // KL(q‖p), bits: KL is not symmetric
  double perplexity = 0;     // 2^H(p, q)
};

// "" when p is a distribution (finite, non-negative, sums to 1 within 1e-6); otherwise one sentence.
std::string check_distribution(const std::vector<double>& p);

// p and q: (V) distributions of the same length (check_distribution each).
InformationMeasures information_measures(const std::vector<double>& p, const std::vector<double>& q);

// Perplexity of a mean next-token loss in nats (what training reports): exp(loss).
double perplexity_from_loss(double mean_loss_nats);
// The loss of a uniform guess over `vocab` tokens, in nats: ln V (its perplexity is V). The baseline a model
// that has learned nothing sits at.
double uniform_loss_nats(int vocab);

// [SECTION] the loss of a training run
// Which loss of a run a perplexity is read from: the latest held-out loss (a fixed set, evaluated every few steps),
// else, before the first evaluation, the latest training-batch loss.
struct RunLoss {
  bool found = false;     // the history has a finite loss of either kind
  double loss = 0;        // nats
  bool held_out = false;  // true: held-out answer tokens; false: the last training batch
  int step = 0;           // the step that loss was measured at
  bool operator==(const RunLoss&) const = default;
};
RunLoss latest_run_loss(const std::vector<MetricsRow>& history);

}  // namespace tw
