// The forward panel's controls and what they ask for: ForwardState → ModelConfig (the preset or custom sizes,
// then the architecture toggles) → ForwardRequest.
#include "core/ops/gqa.h"
#include "core/text/tokenizer.h"
#include "views/forward/forward_state.h"

namespace tw {

void bind_forward_controls(Controls& c, ForwardState& s) {
  c.add_enum("model", &s.model, {"tiny", "small", "custom", "sort", "induction", "training", "folder"}, "Model",
             "tiny (dim 64, 2 layers, random weights) recomputes on every keystroke; small: dim 256, 4 layers, vocab "
             "8192, random; custom: the sizes below, random. sort and induction: the trained checkpoints shipped in "
             "assets/models; training: the model the Training panel handed over; folder: a Hugging Face model folder.");
  c.add_text("model_dir", &s.model_dir, 4096, "model folder",
             "A Hugging Face folder: config.json, model.safetensors (or an index and shards) and tokenizer.json.");
  c.add_int("dim", &s.config.dim, 1, 1024, "dim C", "Width of the residual stream (custom model only).");
  c.add_int("n_layers", &s.config.n_layers, 1, 16, "layers", "Number of Transformer blocks (custom model only).");
  c.add_int("n_heads", &s.config.n_heads, 1, 32, "query heads H",
            "Query heads; head_dim = dim / H (custom model only).");
  c.add_int("hidden", &s.config.hidden, 1, 4096, "MLP hidden F", "MLP hidden size (custom model only).");
  c.add_int("vocab", &s.config.vocab, 1, 32768, "vocab V",
            "Vocabulary size; the byte tokenizer needs at least 256 (custom model only).");
  c.add_int("max_seq", &s.config.max_seq, 1, 1024, "max_seq",
            "Longest sequence the model accepts (custom model only).");
  c.add_int("gqa_ratio", &s.gqa_ratio, 1, 32, "GQA ratio",
            "Query heads per key/value head: 1 is MHA, H is MQA; n_kv_heads = H / ratio.");
  c.add_enum("norm", &s.config.norm, NormType::LayerNorm, "Norm",
             "RMSNorm (LLaMA) rescales by the root mean square; LayerNorm (GPT-2) also subtracts the mean and adds β.");
  c.add_enum("placement", &s.config.placement, NormPlacement::Post, "Norm placement",
             "Pre-norm normalises the input of each sub-block; post-norm (2017 Transformer) normalises after the add.");
  c.add_enum("positions", &s.config.positions, PositionType::ALiBi, "Positions",
             "How the model knows token order: added vectors (learned, sinusoidal), rotated q/k (RoPE) or a distance "
             "bias on the scores (ALiBi).");
  c.add_enum("activation", &s.config.activation, ActivationKind::GeGLU, "MLP activation",
             "SwiGLU and GeGLU multiply an activated gate with a second projection; ReLU and GELU have no gate.");
  c.add_enum("pattern", &s.pattern, {"full", "sliding", "interleaved"}, "Attention pattern",
             "full: every earlier token; sliding: the last W tokens (HF: 0 <= i - j < W); interleaved: sliding with "
             "every P-th layer full.");
  c.add_int("window", &s.window, 1, 1024, "window W",
            "Keys a sliding layer sees, including the query itself (Hugging Face: 0 <= i - j < W; the Mistral "
            "reference code used i - j <= W, one key more).");
  c.add_int("full_every", &s.full_every, 1, 16, "full every P",
            "Interleaved pattern: layer l is full when (l + 1) is a multiple of P.");
  c.add_enum("weights", &s.weights, {"seeded", "checkpoint"}, "Weights",
             "seeded: a deterministic Gaussian init; checkpoint: a safetensors file written by `dump`.");
  c.add_int("seed", &s.seed, 0, 1000000, "weight seed", "Seed of the weight init; same seed, same weights.");
  c.add_text("checkpoint", &s.checkpoint, 4096, "checkpoint",
             "Path of a .safetensors file; a config.json beside it sets the architecture.");
  c.add_text("text", &s.text, 1024, "text",
             "The input. Random models: every UTF-8 byte is one token; trained models: the task's symbols (A, B, "
             "C ...); a Hugging Face folder: its BPE tokenizer.");
  c.add_bool("bos", &s.bos, "prepend <bos>",
             "Start the sequence with the begin-of-sequence token (<bos> = 256 for the byte tokenizer, the "
             "tokenizer's own for a folder; trained task models have none).");
  c.add_int("generated", &s.generated, 0, 64, "appended tokens",
            "Tokens sampled and appended one at a time through the KV cache after the prompt.");
  c.add_text("step", &s.step, 128, "step", "The current step by its trace name, e.g. layers.0.attn.probs.");
  c.add_bool("play", &s.play, "play", "Advance one step at a time at the speed below.");
  c.add_float("speed", &s.speed, 0.25f, 20.0f, "speed", "Steps per second while playing.", true, "%.2f /s");
  c.add_enum("tab", &s.tab, {"step", "strip", "residual", "next", "params", "lens"}, "view",
             "Which view the right-hand side shows: the current step, a layer's strip, the residual stream, the "
             "next token, the parameter table or the logit lens.");
  c.add_int("strip_layer", &s.strip_layer, 0, 63, "strip layer", "Layer whose steps the strip figure shows.");
  c.add_float("temperature", &s.temperature, 0.05f, 5.0f, "temperature",
              "Logits are divided by this before softmax: below 1 sharpens, above 1 flattens.", true);
  c.add_int("top_k", &s.top_k, 0, 1000, "top-k", "Keep the k most likely tokens (ties at the k-th kept); 0 is off.");
  c.add_float("top_p", &s.top_p, 0.01f, 1.0f, "top-p",
              "Keep the smallest set of most likely tokens whose probability reaches p; 1 is off.");
  c.add_int("sample_seed", &s.sample_seed, 0, 1000000, "sample seed", "Seed of the sampled tokens.");
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
    found.push_back({"gqa_ratio", "gqa_ratio " + std::to_string(s.gqa_ratio) + " must divide n_heads " +
                                      std::to_string(c.n_heads) + (valid.empty() ? "" : " (possible: " + valid + ")")});
    c.n_kv_heads = 1;
  }
  if (s.pattern == ForwardPattern::Interleaved && s.full_every < 1)
    found.push_back(
        {"full_every", "full_every must be at least 1 for interleaved attention (every P-th layer is full)"});
  for (ConfigProblem& p : validate_fields(c)) found.push_back(std::move(p));
  if (problems) *problems = std::move(found);
  return c;
}

SamplingConfig sampling_config(const ForwardState& s) {
  SamplingConfig c;
  c.temperature = s.temperature;
  c.top_k = s.top_k;
  c.top_p = s.top_p;
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
    *error = "the text is empty: type a prompt" + (model.example.empty() ? "" : " such as " + model.example);
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
