#pragma once
// Training the Transformer: a batched forward pass that keeps every activation its backward pass needs, the
// backward pass itself, and the next-token cross-entropy loss. The layout follows llm.c's train_gpt2.c: one
// preallocated state per (config, B, T) holds the activations (no allocation inside a training step), and each
// layer's backward is the chain of its ops' xxx_backward functions (core/ops/*), called in reverse order.
//
// Key: B = batch, T = time, C = channels, H = heads, KV = kv heads, D = head dim, F = MLP hidden, V = vocab.
//
// Loss = mean over every (b, t) with targets[b*T + t] >= 0 of −log softmax(logits[b, t])[target]
// (F.cross_entropy with ignore_index = -1), plus the z-loss and the MoE balance loss when they are on. For plain
// next-token training of a sequence, position t predicts token t + 1 and the last position has target -1.
//
// The forward pass is the one of core/model/model_pass.h, which forward() (core/model/forward.h: the stepper, dump,
// generation) runs too, batch 1 over a KV cache; only the attention kernel differs (the batched one here keeps
// the probabilities the backward reads).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/model/config.h"
#include "core/model/weights.h"
#include "core/tensor.h"

namespace tw {

// B sequences of T tokens each, row-major (b*T + t).
struct Batch {
  int B = 0;                 // sequences
  int T = 0;                 // tokens per sequence (≤ config.max_seq)
  std::vector<int> tokens;   // (B, T) input ids in 0..V-1
  std::vector<int> targets;  // (B, T) id that position t must predict, or -1 where no loss is taken
};

// Activations of one training step, allocated once for a (config, B, T) and reused by every step.
// Opaque: its layout is the backward pass's business; read results through the accessors below.
struct TrainActivations;
struct TrainState {
  TrainState();
  ~TrainState();
  TrainState(TrainState&&) noexcept;
  TrainState& operator=(TrainState&&) noexcept;
  std::unique_ptr<TrainActivations> acts;
};

// Floats one TrainState holds after a forward + backward of B sequences of T tokens: everything the backward reads
// (per layer: norms, q/k/v, the (B·H, T, T) probabilities, the MLP's (N, F) steps; the residual stream; the logits
// and their probabilities (N, V)), the backward's scratch (including dlogits (N, V)), and the temporaries of one
// product (an (N, V) logits product and a V × C weight gradient). An upper bound: counted from the Acts layout.
double train_state_floats(const ModelConfig& config, int B, int T);

// Checks the batch against the config (sizes, ids in range, at least one target); "" when valid.
std::string check_batch(const ModelConfig& config, const Batch& batch);

// z_loss > 0 adds z_loss · mean(log² Z) over the target rows to the loss (and its gradient to the backward), Z the
// softmax normaliser of each row (core/ops/z_loss.h); 0 leaves the plain cross-entropy.
// Forward only. Fills *loss (mean over targets; 0 targets → error). Afterwards the state holds the logits and the
// attention probabilities of every layer for reading. Returns false + one-line *error on invalid input, and also
// when the loss comes out NaN or infinite (diverged weights; *loss is still set).
bool train_forward(TrainState& state, const ModelWeights& weights, const ModelConfig& config, const Batch& batch,
                   double* loss, std::string* error, double z_loss = 0.0);

// Dropout during training (core/ops/dropout.h): each layer's attention and MLP outputs are dropped with probability p
// before the residual adds them, with masks drawn from `seed` (a trainer passes one seed per step). Evaluation
// (train_forward) never drops.
struct Dropout {
  double p = 0;  // in [0, 1); 0 = off
  uint64_t seed = 0;
};

// Forward + backward: *grads (resized like zero_weights(config) when its shapes differ) is overwritten with
// ∂loss/∂W for every parameter (a tied head's gradient is the sum of its two uses, in embed). On false (invalid
// input, non-finite loss) *grads is left as it was.
bool train_forward_backward(ModelWeights* grads, TrainState& state, const ModelWeights& weights,
                            const ModelConfig& config, const Batch& batch, double* loss, std::string* error,
                            double z_loss = 0.0, const Dropout& dropout = {});

// After train_forward / train_forward_backward on the same state (empty before the first pass):
const Mat& train_logits(const TrainState& state);  // (B*T, V)
// Every activation the last pass kept (core/model/model_pass.h; the layout is the backward's business).
template <class S>
struct Acts;
const Acts<float>& train_acts(const TrainState& state);
// Attention probabilities of layer l for sequence b: (H*T, T), head h in rows h*T .. h*T+T-1 (empty when l or b is
// out of range).
Mat train_attention_probs(const TrainState& state, int layer, int b);

// [SECTION] mixture of experts (config.moe(), core/ops/moe_ffn.h)
// The loss of an MoE model adds aux_loss_coef · (mean over layers of each layer's balance loss E · Σ_e f_e P̄_e).
// What the last pass routed, per layer (empty for a dense model):
struct MoeLayerStats {
  std::vector<int> load;    // (E) tokens each expert processed (assignments accepted)
  std::vector<int> wanted;  // (E) assignments the router sent it (Σ = tokens · k)
  int dropped = 0;          // assignments that found their expert full (Σ wanted − Σ load)
  int capacity = 0;         // per expert; 0 = no limit
  double balance = 0;       // E · Σ_e f_e P̄_e of this layer (k when the router is uniform)
};
struct MoeStats {
  int tokens = 0;      // N = B·T routed per layer
  int top_k = 0;       // k
  double balance = 0;  // mean of the layers' balance losses: the term aux_loss_coef multiplies
  std::vector<MoeLayerStats> layers;
};
MoeStats train_moe_stats(const TrainState& state);

// [SECTION] double precision (finite-difference checks)
// The same forward and backward, instantiated in double: the gradient tests perturb one weight at a time by ±h and
// compare (L(w+h) − L(w−h)) / 2h with the analytic gradient, which only works at tight tolerance in double.
// Member names mirror ModelWeights so the one templated implementation serves both.
struct NormWeightsD {
  VecD weight, bias;
};
struct MlpWeightsD {
  MatD gate, up, down;
};
struct LayerWeightsD {
  NormWeightsD attn_norm;
  MatD wq, wk, wv, wo;
  VecD bq, bk, bv;  // attn_bias configs only
  VecD q_norm, k_norm;
  NormWeightsD mlp_norm;
  MlpWeightsD mlp;
  MatD router;                                 // MoE configs: (E, C)
  std::vector<MlpWeightsD> experts;            // MoE configs: E experts
  VecD bo, b_up, b_down;                       // linear_bias configs only (GPT-2)
  NormWeightsD post_attn_norm, post_mlp_norm;  // sandwich_norm configs only (Gemma 3)
};
struct ModelWeightsD {
  MatD embed, pos_embed;
  std::vector<LayerWeightsD> layers;
  NormWeightsD final_norm;
  MatD lm_head;
  const MatD& head() const { return lm_head.size() ? lm_head : embed; }
};
ModelWeightsD to_double(const ModelWeights& weights);
// Visits every tensor of `config` (HF name, data, size), in the order of visit_parameters.
void visit_parameters(ModelWeightsD& weights, const ModelConfig& config,
                      const std::function<void(const std::string& name, double* data, int64_t size)>& visit);
// Forward (+ backward when grads is not null, grads then overwritten like train_forward_backward) in double, with a
// state of its own (tests and checks only: it allocates on every call).
bool train_forward_backward_double(ModelWeightsD* grads, const ModelWeightsD& weights, const ModelConfig& config,
                                   const Batch& batch, double* loss, std::string* error, double z_loss = 0.0,
                                   const Dropout& dropout = {});

}  // namespace tw
