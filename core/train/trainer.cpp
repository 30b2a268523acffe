// Trainer: the training loop of one run, step by step.
#include "core/train/trainer.h"

#include "core/base/i18n.h"
#include "core/base/utf8.h"
#include "core/model/generation.h"
#include "core/ops/softmax.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace tw {

namespace {

constexpr uint64_t kInitSalt = 0x1A1Dull, kBatchSalt = 0xBA7Cull, kInductionSalt = 0x1DC7ull;

double sum_squares(const float* d, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += double(d[i]) * double(d[i]);
  return s;
}
template <class M>
double sum_squares(const M& m) {
  return sum_squares(m.data(), static_cast<int64_t>(m.size()));
}

double layer_grad_norm(const LayerWeights& g) {
  double s = sum_squares(g.attn_norm.weight) + sum_squares(g.attn_norm.bias) + sum_squares(g.wq) + sum_squares(g.wk) +
             sum_squares(g.wv) + sum_squares(g.wo) + sum_squares(g.q_norm) + sum_squares(g.k_norm) +
             sum_squares(g.mlp_norm.weight) + sum_squares(g.mlp_norm.bias) + sum_squares(g.mlp.gate) +
             sum_squares(g.mlp.up) + sum_squares(g.mlp.down) + sum_squares(g.router);
  for (const MlpWeights& e : g.experts) s += sum_squares(e.gate) + sum_squares(e.up) + sum_squares(e.down);
  return std::sqrt(s);
}

bool all_finite(ModelWeights& w, const ModelConfig& c) {
  bool ok = true;
  visit_parameters(w, c, [&](const std::string&, float* d, int64_t n, ParamKind) {
    for (int64_t i = 0; i < n && ok; ++i) ok = std::isfinite(d[i]);
  });
  return ok;
}

// One sample as a batch of one; positions without a target get the next token so check_batch sees targets.
Batch single(const TaskSample& s) {
  Batch b;
  b.B = 1;
  b.T = static_cast<int>(s.tokens.size());
  b.tokens = s.tokens;
  b.targets.assign(s.tokens.size(), -1);
  for (size_t t = 0; t + 1 < s.tokens.size(); ++t) b.targets[t] = s.tokens[t + 1];
  return b;
}

// The forward pass of a probe (one sample) into `state`, for the maps and predictions read from it afterwards;
// false when it failed (the probes then show nothing).
bool probe_forward(TrainState& state, const ModelWeights& weights, const ModelConfig& config,
                   const TaskSample& sample) {
  double loss = 0;
  std::string error;
  return train_forward(state, weights, config, single(sample), &loss, &error);
}

// Every tensor of `config` is present in `w` with its size (tensor_specs order).
bool weights_match(const ModelWeights& w, const ModelConfig& config) {
  if (static_cast<int>(w.layers.size()) != config.n_layers) return false;
  ModelWeights copy = w;
  const std::vector<TensorSpec> specs = tensor_specs(config);
  size_t i = 0;
  bool ok = true;
  visit_parameters(copy, config, [&](const std::string& name, float*, int64_t size, ParamKind) {
    while (i < specs.size() && specs[i].name != name) ++i;  // a tied head is in the specs, not visited
    int64_t want = 1;
    if (i < specs.size())
      for (int64_t d : specs[i].shape) want *= d;
    ok = ok && i < specs.size() && want == size;
  });
  return ok;
}

}  // namespace

double estimated_training_bytes(const TrainSettings& s, int T) {
  const double params = static_cast<double>(parameter_count(s.model));
  // weights, gradients, the last good weights (restored after an overflow), the optimizer's moments (AdamW m and v,
  // SGD one momentum buffer), and one copy handed to the panel or the checkpoint writer
  const double moments = s.optimizer.kind == OptimizerKind::AdamW ? 2 : 1;
  const double weights = (4 + moments) * params;
  // three passes keep their activations: the training batch, the held-out set, the one-sample probe
  const double acts = train_state_floats(s.model, s.batch, T) +
                      train_state_floats(s.model, std::max(1, s.task.val_examples), T) +
                      train_state_floats(s.model, 1, T);
  const double text = static_cast<double>(s.task.text.size() + s.task.language.text.size()) * kTextBytesPerByte;
  return 4.0 * (weights + acts) + text + kProcessBaseBytes;
}

std::string check_settings(const TrainSettings& s) {
  const std::vector<std::string> problems = validate(s.model);
  if (!problems.empty()) return subst(tr("model: {0}"), {problems.front()});
  if (std::string e = check_optimizer(s.optimizer); !e.empty()) return subst(tr("optimizer: {0}"), {e});
  if (s.batch < 1 || s.batch > 4096) return tr("batch must be 1 … 4096 sequences");
  if (s.eval_every < 1) return tr("evaluation interval must be ≥ 1 step");
  if (!(s.z_loss >= 0.0 && s.z_loss <= 1.0)) return tr("z-loss coefficient must be in [0, 1]");
  if (!(s.dropout >= 0.0 && s.dropout <= 0.9)) return tr("dropout must be in [0, 0.9]");
  Task task;
  std::string error;
  if (!Task::create(s.task, &task, &error)) return subst(tr("task: {0}"), {error});
  if (std::string e = task.check_model(s.model); !e.empty()) return e;
  if (s.lora)
    if (std::string e = check_lora_spec(s.lora_spec, s.model); !e.empty()) return e;
  if (s.start_weights && !weights_match(*s.start_weights, s.model))
    return tr("the starting weights do not match the model's architecture");
  if (s.sample_every < 0 || s.sample_tokens < 1 || s.sample_tokens > 4096)
    return tr("samples: every ≥ 0 steps, 1 … 4096 tokens");
  TrainSettings sized = s;  // the language task evaluates every window of its held-out text
  sized.task.val_examples = task.held_out_examples();
  const double mb = estimated_training_bytes(sized, task.seq_len()) / (1024.0 * 1024.0);
  if (mb > s.model.memory_cap_mb)
    return subst(tr("training needs about {0} MiB (weights, gradients, optimizer moments, and the activations of a "
                    "batch of {1} × {2} tokens, the held-out set, the logits kept for the backward pass and the "
                    "training text), above the cap of {3} MiB"),
                 {std::to_string(std::llround(mb)), std::to_string(s.batch), std::to_string(task.seq_len()),
                  std::to_string(std::llround(s.model.memory_cap_mb))});
  return "";
}

// [SECTION] measurements

Evaluation score_logits(const Mat& logits, const std::vector<int>& targets) {
  // logits (B*T, V), targets (B*T)
  double loss = 0, log_z = 0;
  int64_t n = 0, correct = 0;
  for (Eigen::Index r = 0; r < logits.rows(); ++r) {
    const int y = targets[static_cast<size_t>(r)];
    if (y < 0) continue;
    const auto row = logits.row(r);
    Eigen::Index best = 0;
    row.maxCoeff(&best);  // first maximum on ties
    const double lz = log_sum_exp(row.data(), static_cast<int>(row.size()));
    loss += lz - double(row[y]);
    log_z += lz;
    correct += best == y;
    ++n;
  }
  if (n == 0) return {};
  return {loss / double(n), double(correct) / double(n), log_z / double(n)};
}

void head_scores_of_layer(const Mat& probs, int heads, int n, double* previous_token, double* induction) {
  // probs (H*T, T) with T = 2n; outputs (H) each
  const int T = 2 * n;
  for (int h = 0; h < heads; ++h) {
    double prev = 0, ind = 0;
    for (int t = 1; t < T; ++t) prev += probs(h * T + t, t - 1);
    for (int t = n; t <= T - 2; ++t) ind += probs(h * T + t, t - n + 1);  // key after the first occurrence
    previous_token[h] = prev / (T - 1);
    induction[h] = n >= 2 ? ind / (n - 1) : 0.0;
  }
}

// [SECTION] setup

bool Trainer::attach_model(const ModelConfig& model, ModelWeights weights, std::string* error) {
  LoraModel lora;
  if (settings_.lora && !lora_create(model, settings_.lora_spec, &lora, error)) return false;
  weights_ = std::move(weights);
  grads_ = zero_weights(model);
  backup_ = weights_;
  if (settings_.lora) {
    // The base is frozen: no moments for it; with B = 0 the merged weights are the base bit for bit.
    base_ = weights_;
    lora_ = std::move(lora);
    lora_backup_ = lora_;
    lora_opt_ = LoraOptimizerState{};
    opt_ = OptimizerState{};
    lora_apply(weights_, base_, lora_);
  } else {
    base_ = ModelWeights{};
    lora_ = lora_backup_ = LoraModel{};
    opt_ = make_optimizer_state(settings_.optimizer, model);
  }
  train_state_ = TrainState();
  eval_state_ = TrainState();
  probe_state_ = TrainState();
  history_.clear();
  samples_.clear();
  steps_ = 0;
  stop_message_.clear();
  ready_ = true;
  return true;
}

bool Trainer::init(const TrainSettings& s, std::string* error) {
  if (std::string e = check_settings(s); !e.empty()) {
    *error = e;
    return false;
  }
  Task task;
  Task::create(s.task, &task, error);  // checked above
  settings_ = s;
  task_ = std::move(task);
  rng_ = TaskRng(s.seed ^ kBatchSalt);
  held_out_ = task_.held_out(s.seed);
  probe_ = task_.probe(s.seed);
  // The induction probe: n random task tokens, repeated.
  TaskRng r(s.seed ^ kInductionSalt);
  const int n = std::max(2, std::min(s.model.max_seq / 2, std::max(task_.seq_len() / 2, 8)));
  induction_probe_ = TaskSample{};
  for (int i = 0; i < n; ++i) induction_probe_.tokens.push_back(r.below(task_.vocab()));
  for (int i = 0; i < n; ++i) induction_probe_.tokens.push_back(induction_probe_.tokens[size_t(i)]);
  induction_probe_.answer.assign(size_t(2 * n), false);
  for (int i = n; i < 2 * n; ++i) induction_probe_.answer[size_t(i)] = true;
  induction_probe_.targets = single(induction_probe_).targets;
  return attach_model(s.model, s.start_weights ? *s.start_weights : init_weights(s.model, s.seed ^ kInitSalt), error);
}

int64_t Trainer::trainable_parameters() const {
  if (!ready_) return 0;
  return settings_.lora ? lora_.trainable() : parameter_count(settings_.model);
}

// [SECTION] training step

bool Trainer::step(std::string* error) {
  if (!ready_) {
    *error = tr("no training run: choose settings first");
    return false;
  }
  if (stopped()) {
    *error = stop_message_;
    return false;
  }
  const ModelConfig& c = settings_.model;
  const Batch batch = task_.batch(rng_, settings_.batch);
  double loss = 0;
  // Each step draws its own dropout masks, from the run's seed and the step's number.
  const Dropout dropout{settings_.dropout, (settings_.seed << 32) + static_cast<uint64_t>(steps_)};
  if (!train_forward_backward(&grads_, train_state_, weights_, c, batch, &loss, error, settings_.z_loss, dropout)) {
    // A non-finite loss is divergence (reported below like a non-finite gradient); anything else is a bug or a
    // bad batch, reported as it is.
    if (std::isfinite(loss)) {
      stop_message_ = subst(tr("training stopped at step {0}: {1}"), {std::to_string(steps_ + 1), *error});
      *error = stop_message_;
      return false;
    }
  }
  MetricsRow row;
  row.step = steps_ + 1;
  row.train_loss = loss;
  row.lr = scheduled_lr(settings_.optimizer, steps_);
  if (c.moe()) {
    const MoeStats moe = train_moe_stats(train_state_);
    row.balance_loss = moe.balance;
    for (const MoeLayerStats& l : moe.layers) row.dropped += l.dropped;
  }
  for (const LayerWeights& l : grads_.layers) row.layer_grad_norm.push_back(layer_grad_norm(l));
  if (settings_.lora) {
    lora_gradients(lora_grads_, grads_, lora_);  // chain rule from ∂L/∂W_eff to A and B
    row.grad_norm = lora_clip_grad_norm(lora_grads_, settings_.optimizer.clip_norm);
  } else {
    row.grad_norm = clip_grad_norm(grads_, c, settings_.optimizer.clip_norm);
  }
  const char* bad = !std::isfinite(loss) ? "the loss" : !std::isfinite(row.grad_norm) ? "the gradient" : nullptr;
  if (!bad) {
    backup_ = weights_;  // the last good weights, restored if this update overflows
    if (settings_.lora) {
      lora_backup_ = lora_;
      lora_adamw_step(lora_, lora_grads_, lora_opt_, settings_.optimizer, row.lr);
      lora_apply(weights_, base_, lora_);
    } else {
      optimizer_step(weights_, grads_, opt_, settings_.optimizer, c, row.lr);
    }
    if (!all_finite(weights_, c)) {
      weights_ = backup_;
      lora_ = lora_backup_;
      bad = "a weight";
    }
  }
  if (bad) {
    stop_message_ = "training diverged at step " + std::to_string(steps_ + 1) + ": " + bad +
                    " is not finite (try a lower learning rate); the weights of step " + std::to_string(steps_) +
                    " are kept";
    *error = stop_message_;
    return false;
  }
  ++steps_;
  history_.push_back(std::move(row));
  if (steps_ == 1 || steps_ % settings_.eval_every == 0) evaluate();
  if (task_.language() && settings_.sample_every > 0 && (steps_ == 1 || steps_ % settings_.sample_every == 0))
    samples_.push_back({steps_, sample_text(settings_.seed, settings_.sample_tokens, kSampleTemperature)});
  return true;
}

Evaluation Trainer::evaluate() {
  if (!ready_) return {};
  double loss = 0;
  std::string error;
  if (!train_forward(eval_state_, weights_, settings_.model, held_out_, &loss, &error)) return {};
  Evaluation e = score_logits(train_logits(eval_state_), held_out_.targets);
  if (task_.language()) e.bits_per_char = task_.bits_per_char(e.loss);
  if (!history_.empty()) {
    history_.back().bits_per_char = e.bits_per_char;
    history_.back().val_loss = e.loss;
    history_.back().accuracy = e.accuracy;
    history_.back().log_z = e.log_z;
  }
  return e;
}

// [SECTION] samples

std::string Trainer::sample_text(uint64_t seed, int tokens, double temperature) {
  const std::shared_ptr<const LanguageData>& lm = task_.language();
  if (!ready_ || !lm || tokens < 1) return "";
  // The one generator (core/model/generation) from the first held-out token, sliding over the model's context as
  // the training windows do. Only tokens that keep the text valid UTF-8 are drawn: a byte-fallback token never
  // leaves half a character; a model with more ids than its tokenizer (Qwen3: 151,936 and 151,669) never draws an
  // id without text.
  std::vector<std::string> token_bytes(size_t(lm->tokenizer.vocab_size()));
  for (int id = 0; id < lm->tokenizer.vocab_size(); ++id) token_bytes[size_t(id)] = lm->tokenizer.token_bytes(id);
  const auto allowed = [&](const std::vector<int>& ids) {
    std::string text_bytes;
    for (int id : ids) text_bytes += token_bytes[size_t(id)];
    std::vector<char> mask = utf8_allowed_tokens(token_bytes, utf8_unfinished_tail(text_bytes));
    mask.resize(size_t(settings_.model.vocab), 0);
    return mask;
  };
  SamplingConfig sampling;
  sampling.temperature = static_cast<float>(std::max(temperature, 1e-6));
  const std::vector<int> prompt{lm->heldout_ids.front()};
  const Generation g =
      generate(settings_.model, weights_, prompt, tokens, sampling, seed ^ 0x5A3B1Eull, {}, allowed, /*slide=*/true);
  std::vector<int> ids = prompt;
  ids.insert(ids.end(), g.tokens.begin(), g.tokens.end());
  // Byte-level tokens can stop inside a character: such bytes are shown as U+FFFD, so the text is valid UTF-8.
  // A character still unfinished when the sample ends is left out rather than shown as half of one.
  std::string text = lm->tokenizer.decode(ids);
  text.resize(text.size() - utf8_unfinished_tail(text).size());
  if (valid_utf8(text)) return text;
  std::string out;
  for (uint32_t cp : decode_utf8(text)) append_utf8(&out, cp);
  return out;
}

// [SECTION] probes

std::vector<Mat> Trainer::probe_attention() {
  std::vector<Mat> maps;
  if (!ready_ || !probe_forward(probe_state_, weights_, settings_.model, probe_)) return maps;
  for (int l = 0; l < settings_.model.n_layers; ++l) maps.push_back(train_attention_probs(probe_state_, l, 0));
  return maps;
}

std::vector<int> Trainer::probe_predictions() {
  std::vector<int> out;
  if (!ready_ || !probe_forward(probe_state_, weights_, settings_.model, probe_)) return out;
  const Mat& logits = train_logits(probe_state_);
  for (Eigen::Index r = 0; r < logits.rows(); ++r) {
    Eigen::Index best = 0;
    logits.row(r).maxCoeff(&best);
    out.push_back(static_cast<int>(best));
  }
  return out;
}

HeadScores Trainer::head_scores() {
  HeadScores s;
  const ModelConfig& c = settings_.model;
  if (!ready_ || !probe_forward(probe_state_, weights_, c, induction_probe_)) return s;
  s.layers = c.n_layers;
  s.heads = c.n_heads;
  s.previous_token.resize(size_t(c.n_layers * c.n_heads));
  s.induction.resize(size_t(c.n_layers * c.n_heads));
  const int n = static_cast<int>(induction_probe_.tokens.size()) / 2;
  for (int l = 0; l < c.n_layers; ++l)
    head_scores_of_layer(train_attention_probs(probe_state_, l, 0), c.n_heads, n,
                         &s.previous_token[size_t(l * c.n_heads)], &s.induction[size_t(l * c.n_heads)]);
  return s;
}

// [SECTION] checkpoints

bool Trainer::save_checkpoint(const std::string& dir, std::string* error) const {
  if (!ready_) {
    *error = tr("no trained model to save");
    return false;
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    *error = subst(tr("cannot create directory {0}: {1}"), {dir, ec.message()});
    return false;
  }
  const std::filesystem::path d(dir);
  if (!save_weights((d / "model.safetensors").string(), weights_, settings_.model, error) ||
      !save_config((d / "config.json").string(), settings_.model, error))
    return false;
  if (const std::shared_ptr<const LanguageData>& lm = task_.language()) {
    std::ofstream f(d / "tokenizer.json", std::ios::binary);
    f << lm->tokenizer_json;
    if (!f) {
      *error = subst(tr("cannot write {0}"), {(d / "tokenizer.json").string()});
      return false;
    }
  }
  return true;
}

bool Trainer::load_checkpoint(const std::string& dir, std::string* error) {
  if (!ready_) {
    *error = tr("choose the task and settings before loading a checkpoint");
    return false;
  }
  const std::filesystem::path d(dir);
  ModelConfig model;
  ModelWeights w;
  if (!load_config((d / "config.json").string(), &model, error)) return false;
  if (std::string e = task_.check_model(model); !e.empty()) {
    *error = e;
    return false;
  }
  if (settings_.lora)
    if (std::string e = check_lora_spec(settings_.lora_spec, model); !e.empty()) {
      *error = e;
      return false;
    }
  if (!load_weights((d / "model.safetensors").string(), model, &w, error)) return false;
  settings_.model = model;
  return attach_model(model, std::move(w), error);
}

}  // namespace tw
