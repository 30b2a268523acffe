// The forward panel's controls and what they ask for: ForwardState → ModelConfig (the preset or custom sizes,
// then the architecture toggles) → ForwardRequest.
#include "core/base/i18n.h"
#include "core/ops/gqa.h"
#include "core/text/byte_tokenizer.h"
#include "views/forward/forward_state.h"

namespace tw {

void bind_forward_controls(Controls& c, ForwardState& s) {
  c.add_enum(
      "model", &s.model,
      {N_("tiny"), N_("small"), N_("custom"), N_("sort"), N_("induction"), N_("training"), N_("folder"),
       N_("language")},
      N_("Model"),
      N_("tiny (dim 64, 2 layers, random weights) recomputes on every keystroke; small: dim 256, 4 layers, vocab "
         "8192, random; custom: the sizes below, random. sort and induction: the trained checkpoints shipped in "
         "assets/models; training: the model the Training panel handed over; folder: a Hugging Face model folder; "
         "language: the shipped language model in the interface language (the sort model when there is none)."));
  c.add_text("model_dir", &s.model_dir, 4096, N_("model folder"),
             N_("A Hugging Face folder: config.json, model.safetensors (or an index and shards) and tokenizer.json."));
  c.add_int("dim", &s.config.dim, 1, 1024, N_("dim $C$"), N_("Width of the residual stream (custom model only)."));
  c.add_int("n_layers", &s.config.n_layers, 1, 16, N_("layers"),
            N_("Number of Transformer blocks (custom model only)."));
  c.add_int("n_heads", &s.config.n_heads, 1, 32, N_("query heads $H$"),
            N_("Query heads; head_dim = dim / $H$ (custom model only)."));
  c.add_int("hidden", &s.config.hidden, 1, 4096, N_("MLP hidden $F$"), N_("MLP hidden size (custom model only)."));
  c.add_int("vocab", &s.config.vocab, 1, 32768, N_("vocab $V$"),
            N_("Vocabulary size; the byte tokenizer needs at least 256 (custom model only)."));
  c.add_int("max_seq", &s.config.max_seq, 1, 1024, "max_seq",
            N_("Longest sequence the model accepts (custom model only)."));
  c.add_int("gqa_ratio", &s.gqa_ratio, 1, 32, N_("GQA ratio"),
            N_("Query heads per key/value head: 1 is MHA, $H$ is MQA; n_kv_heads = $H$ / ratio."));
  c.add_enum("norm", &s.config.norm, NormType::LayerNorm, N_("Norm"),
             N_("RMSNorm (LLaMA) rescales by the root mean square; LayerNorm (GPT-2) also subtracts the mean and adds "
                "$\\beta$."));
  c.add_enum(
      "placement", &s.config.placement, NormPlacement::Post, N_("Norm placement"),
      N_("Pre-norm normalises the input of each sub-block; post-norm (2017 Transformer) normalises after the add."));
  c.add_enum(
      "positions", &s.config.positions, PositionType::ALiBi, N_("Positions"),
      N_("How the model knows token order: added vectors (learned, sinusoidal), rotated $q$/$k$ (RoPE) or a distance "
         "bias on the scores (ALiBi)."));
  c.add_enum("activation", &s.config.activation, ActivationKind::GeGLU, N_("MLP activation"),
             N_("SwiGLU and GeGLU multiply an activated gate with a second projection; ReLU and GELU have no gate."));
  c.add_enum(
      "pattern", &s.pattern, {"full", "sliding", "interleaved"}, N_("Attention pattern"),
      N_("full: every earlier token; sliding: the last $W$ tokens (HF: $0 \\le i - j < W$); interleaved: sliding with "
         "every $P$-th layer full."));
  c.add_int("window", &s.window, 1, 1024, N_("window $W$"),
            N_("Keys a sliding layer sees, including the query itself (Hugging Face: $0 \\le i - j < W$; the Mistral "
               "reference code used $i - j \\le W$, one key more)."));
  c.add_int("full_every", &s.full_every, 1, 16, N_("full every $P$"),
            N_("Interleaved pattern: layer $l$ is full when $l + 1$ is a multiple of $P$."));
  c.add_enum("weights", &s.weights, {N_("seeded"), N_("checkpoint")}, N_("Weights"),
             N_("seeded: a deterministic Gaussian init; checkpoint: a safetensors file written by `dump`."));
  c.add_int("seed", &s.seed, 0, 1000000, N_("weight seed"), N_("Seed of the weight init; same seed, same weights."));
  c.add_text("checkpoint", &s.checkpoint, 4096, N_("checkpoint"),
             N_("Path of a .safetensors file; a config.json beside it sets the architecture."));
  c.add_text("text", &s.text, 1024, N_("text"),
             N_("The input. Random models: every UTF-8 byte is one token; trained models: the task's symbols (A, B, "
                "C ...); a Hugging Face folder: its BPE tokenizer."));
  c.add_bool("bos", &s.bos, N_("prepend <bos>"),
             N_("Start the sequence with the begin-of-sequence token (<bos> = 256 for the byte tokenizer, the "
                "tokenizer's own for a folder; trained task models have none)."));
  c.add_int("generated", &s.generated, 0, 1024, N_("appended tokens"),
            N_("Tokens sampled and appended one at a time through the KV cache after the prompt."));
  c.add_text("step", &s.step, 128, N_("step"), N_("The current step by its trace name, e.g. layers.0.attn.probs."));
  c.add_bool("play", &s.play, N_("play"), N_("Advance one step at a time at the speed below."));
  c.add_float("speed", &s.speed, 0.25f, 20.0f, N_("speed"), N_("Steps per second while playing."), true, "%.2f /s");
  c.add_enum("tab", &s.tab,
             {N_("step"), N_("strip"), N_("residual"), N_("next"), N_("params"), N_("lens"), N_("families")},
             N_("view"),
             N_("Which view the right-hand side shows: the current step, a layer's strip, the residual stream, the "
                "next token, the parameter table, the logit lens or a GPT-2-shaped and a LLaMA-shaped model side by "
                "side."));
  c.add_int("strip_layer", &s.strip_layer, 0, 63, N_("strip layer"), N_("Layer whose steps the strip figure shows."));
  c.add_float("temperature", &s.temperature, 0.05f, 5.0f, N_("temperature"),
              N_("Logits are divided by this before softmax: below 1 sharpens, above 1 flattens."), true);
  c.add_int("top_k", &s.top_k, 0, 1000, "top-k",
            N_("Keep the $k$ most likely tokens (ties at the $k$-th kept); 0 is off."));
  c.add_float("top_p", &s.top_p, 0.01f, 1.0f, "top-p",
              N_("Keep the smallest set of most likely tokens whose probability reaches $p$; 1 is off."));
  c.add_float("min_p", &s.min_p, 0.0f, 1.0f, "min-p",
              N_("Drop tokens whose probability is below min-p times the most likely token's; 0 is off."), false,
              "%.3f");
  c.add_int("sample_seed", &s.sample_seed, 0, 1000000, N_("sample seed"), N_("Seed of the sampled tokens."));
  c.add_int("generate_count", &s.generate_count, 1, 256, N_("tokens to generate"),
            N_("How many tokens Generate samples, one pass each, every new token appended through the KV cache."));
}

ModelConfig preset_config(ForwardModel model) { return model == ForwardModel::Small ? small_config() : tiny_config(); }

namespace {
// Sets the architecture toggles of `c` to those of `from` (a preset fixes only the sizes).
void take_toggles(ModelConfig& c, const ModelConfig& from) {
  c.norm = from.norm;
  c.placement = from.placement;
  c.positions = from.positions;
  c.activation = from.activation;
}
}  // namespace

void show_preset_sizes(ForwardState& s) {
  if (s.model == ForwardModel::Custom || !is_seeded_model(s.model)) return;
  ModelConfig shown = preset_config(s.model);
  take_toggles(shown, s.config);
  s.config = shown;
}

ModelConfig forward_config(const ForwardState& s, std::vector<ConfigProblem>* problems) {
  ModelConfig c = s.model == ForwardModel::Custom ? s.config : preset_config(s.model);
  take_toggles(c, s.config);
  c.attention = s.pattern == ForwardPattern::Full ? AttentionPattern::Full : AttentionPattern::Sliding;
  c.window = s.pattern == ForwardPattern::Full ? 0 : s.window;
  c.full_every = s.pattern == ForwardPattern::Interleaved ? s.full_every : 0;

  std::vector<ConfigProblem> found;
  // The ratio is the control; n_kv_heads follows from it. A ratio that does not divide n_heads would silently
  // round, so it is refused with the ratios that work.
  if (s.gqa_ratio >= 1 && c.n_heads >= 1 && c.n_heads % s.gqa_ratio == 0) {
    c.n_kv_heads = c.n_heads / s.gqa_ratio;
  } else {
    std::string valid;
    for (int kv : valid_kv_head_counts(c.n_heads))
      valid += (valid.empty() ? "" : ", ") + std::to_string(c.n_heads / kv);
    found.push_back({"gqa_ratio", valid.empty()
                                      ? subst(tr("gqa_ratio {0} must divide n_heads {1}"),
                                              {std::to_string(s.gqa_ratio), std::to_string(c.n_heads)})
                                      : subst(tr("gqa_ratio {0} must divide n_heads {1} (possible: {2})"),
                                              {std::to_string(s.gqa_ratio), std::to_string(c.n_heads), valid})});
    c.n_kv_heads = 1;
  }
  if (s.pattern == ForwardPattern::Interleaved && s.full_every < 1)
    found.push_back(
        {"full_every", tr("full_every must be at least 1 for interleaved attention (every P-th layer is full)")});
  for (ConfigProblem& p : validate_fields(c)) found.push_back(std::move(p));
  if (problems) *problems = std::move(found);
  return c;
}

SamplingConfig sampling_config(const ForwardState& s) {
  SamplingConfig c;
  c.temperature = s.temperature;
  c.top_k = s.top_k;
  c.top_p = s.top_p;
  c.min_p = s.min_p;
  return c;
}

ForwardRequest forward_request(const ForwardState& s, const ModelConfig& config) {
  WeightsSource source;
  source.seed = static_cast<uint64_t>(s.seed);
  if (s.weights == ForwardWeights::Checkpoint) source.checkpoint = s.checkpoint;
  return make_forward_request(config, source, ByteTokenizer::encode(s.text, s.bos), s.generated, sampling_config(s),
                              static_cast<uint64_t>(s.sample_seed));
}

}  // namespace tw

namespace tw {

bool model_request(const ForwardState& s, const StepperModel& model, ForwardRequest* out, std::string* error) {
  std::vector<int> ids;
  if (!model.vocabulary->encode(s.text, s.bos, &ids, error)) return false;
  if (ids.empty()) {
    *error = model.example.empty() ? std::string(tr("the text is empty: type a prompt"))
                                   : subst(tr("the text is empty: type a prompt such as {0}"), {model.example});
    return false;
  }
  WeightsSource source;
  source.weights = model.weights;
  source.name = model.source;
  *out = make_forward_request(model.config, source, std::move(ids), s.generated, sampling_config(s),
                              static_cast<uint64_t>(s.sample_seed));
  out->vocabulary = model.vocabulary;
  if (std::string why = check_request(*out); !why.empty()) {
    *error = std::move(why);
    return false;
  }
  return true;
}

}  // namespace tw
