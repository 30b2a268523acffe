// `transformer-workbench dump --config config.json [--weights model.safetensors] (--text "…" | --tokens 1,2,3)
// --out DIR [--seed N]`: runs one traced forward pass and writes everything a student needs to check it elsewhere:
//   DIR/model.safetensors   the weights (Hugging Face LLaMA names; a seeded init unless --weights is given)
//   DIR/config.json         Hugging Face LlamaConfig keys plus tw_* keys
//   DIR/<step>.npy          one float32 array per trace step, in its logical shape (e.g. (H, T, T))
//   DIR/manifest.json       tokens, and per step: name, title, formula, inputs, shape, dims, flops, bytes, file
// With --grads also DIR/grads.safetensors (∂loss/∂W under the model.safetensors names) and manifest "loss": the
// mean next-token cross-entropy of the tokens (positions 0..T−2 predict tokens 1..T−1).
// Exit codes: 0 written, 1 a file could not be read or written, 2 bad arguments (one line on stderr).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/commands.h"
#include "core/io/atomic_file.h"
#include "core/io/npy.h"
#include "core/model/config.h"
#include "core/model/forward.h"
#include "core/model/trace.h"
#include "core/model/weights.h"
#include "core/tokenizer.h"
#include "core/train/model_train.h"

namespace tw {

namespace {

struct DumpOptions {
  std::string config;
  std::string weights;
  std::string text;
  std::string tokens;
  std::string out;
  std::string seed = "0";
  bool text_given = false;
  bool grads = false;  // --grads
};

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "transformer-workbench dump: %s\n", message.c_str());
  return code;
}

// "1,2,3" → {1, 2, 3}; returns a message for anything that is not a comma-separated list of integers.
std::string parse_token_list(const std::string& list, std::vector<int>* out) {
  size_t pos = 0;
  while (pos <= list.size()) {
    const size_t comma = std::min(list.find(',', pos), list.size());
    const std::string item = list.substr(pos, comma - pos);
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || errno == ERANGE || v < 0 || v > 1'000'000'000)
      return "--tokens: '" + item + "' is not a non-negative integer (expected e.g. 1,2,3)";
    out->push_back(static_cast<int>(v));
    pos = comma + 1;
  }
  return "";
}

// Step names are dotted ("layers.0.attn.probs"), which is already a safe file name.
std::string npy_name(const TraceStep& s) { return s.name + ".npy"; }

int run_dump(const DumpOptions& o) {
  // [SECTION] arguments
  if (o.config.empty()) return fail(2, "--config FILE is required (a Hugging Face style config.json)");
  if (o.out.empty()) return fail(2, "--out DIR is required (the directory to write into)");
  if (o.text_given == !o.tokens.empty()) return fail(2, "give exactly one of --text \"...\" or --tokens 1,2,3");
  char* end = nullptr;
  errno = 0;
  const unsigned long long seed = std::strtoull(o.seed.c_str(), &end, 10);
  if (o.seed.empty() || *end != '\0' || errno == ERANGE || o.seed[0] == '-')
    return fail(2, "--seed '" + o.seed + "' must be a non-negative integer");

  ModelConfig config;
  std::string error;
  if (!load_config(o.config, &config, &error)) return fail(2, error);
  std::vector<int> tokens;
  if (o.text_given) {
    if (config.vocab < 256)
      return fail(2, "--text needs a vocabulary of at least 256 byte tokens (vocab_size is " +
                         std::to_string(config.vocab) + "); use --tokens");
    tokens = ByteTokenizer::encode(o.text);
  } else if (const std::string problem = parse_token_list(o.tokens, &tokens); !problem.empty()) {
    return fail(2, problem);
  }
  if (const std::string problem = check_tokens(config, tokens); !problem.empty()) return fail(2, problem);

  ModelWeights weights;
  if (o.weights.empty())
    weights = init_weights(config, seed);
  else if (!load_weights(o.weights, config, &weights, &error))
    return fail(2, error);

  // [SECTION] forward
  Trace trace;
  Mat logits;
  if (!forward(logits, &trace, weights, config, tokens, &error)) return fail(2, error);

  // [SECTION] gradients (--grads): backward pass of the next-token loss over the same tokens
  ModelWeights grads;
  double loss = 0;
  if (o.grads) {
    if (tokens.size() < 2) return fail(2, "--grads needs at least 2 tokens (position t predicts token t+1)");
    Batch batch;
    batch.B = 1;
    batch.T = static_cast<int>(tokens.size());
    batch.tokens = tokens;
    batch.targets.assign(tokens.begin() + 1, tokens.end());
    batch.targets.push_back(-1);
    TrainState state;
    if (!train_forward_backward(&grads, state, weights, config, batch, &loss, &error)) return fail(2, error);
  }

  // [SECTION] files
  std::error_code ec;
  std::filesystem::create_directories(o.out, ec);
  if (ec) return fail(1, "cannot create '" + o.out + "': " + ec.message());
  const std::filesystem::path dir(o.out);
  if (!save_weights((dir / "model.safetensors").string(), weights, config, &error)) return fail(1, error);
  if (!save_config((dir / "config.json").string(), config, &error)) return fail(1, error);
  if (o.grads && !save_weights((dir / "grads.safetensors").string(), grads, config, &error)) return fail(1, error);

  nlohmann::json manifest;
  manifest["tokens"] = tokens;
  if (o.text_given) manifest["text"] = o.text;
  manifest["seed"] = o.weights.empty() ? nlohmann::json(seed) : nlohmann::json(nullptr);
  manifest["weights"] = o.weights.empty() ? "seeded init" : o.weights;
  manifest["parameters"] = parameter_count(config);
  if (o.grads) manifest["loss"] = loss;
  nlohmann::json steps = nlohmann::json::array();
  for (const TraceStep& s : trace.steps()) {
    if (!write_npy((dir / npy_name(s)).string(), s.value, s.sizes(), &error)) return fail(1, error);
    nlohmann::json dims = nlohmann::json::array();
    for (const TraceDim& d : s.shape) dims.push_back({{"symbol", d.symbol}, {"size", d.size}, {"meaning", d.meaning}});
    steps.push_back({{"name", s.name},
                     {"title", s.title},
                     {"formula", s.formula},
                     {"inputs", s.inputs},
                     {"shape", s.sizes()},
                     {"dims", dims},
                     {"layer", s.layer},
                     {"flops", s.flops},
                     {"bytes", s.bytes},
                     {"file", npy_name(s)}});
  }
  manifest["steps"] = steps;
  // --text may be invalid UTF-8, hence the replacing dump.
  if (!write_file_atomic((dir / "manifest.json").string(),
                         manifest.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", &error))
    return fail(1, error);
  std::printf("wrote %zu steps, model.safetensors, config.json and manifest.json to %s\n", trace.steps().size(),
              o.out.c_str());
  return 0;
}

}  // namespace

TW_REGISTER_COMMAND(Command{
    .name = "dump",
    .description = "Run one traced forward pass and write weights, config.json, one .npy per step and a manifest",
    .setup = [](CLI::App& sub) -> CommandAction {
      auto o = std::make_shared<DumpOptions>();
      sub.add_option("--config", o->config, "Model config.json (Hugging Face LlamaConfig keys plus tw_* keys)");
      sub.add_option("--weights", o->weights, "Load weights from this safetensors file (default: seeded init)");
      sub.add_option("--text", o->text, "Input text, one byte token per UTF-8 byte")->each([o](const std::string&) {
        o->text_given = true;
      });
      sub.add_option("--tokens", o->tokens, "Input token ids, comma-separated (e.g. 1,2,3)");
      sub.add_option("--out", o->out, "Directory to write into (created if missing)");
      sub.add_option("--seed", o->seed, "Seed of the weight init when --weights is not given (default 0)");
      sub.add_flag("--grads", o->grads,
                   "Also write grads.safetensors (d loss / d W of the next-token loss) and the loss in manifest.json");
      return [o] { return run_dump(*o); };
    }});

}  // namespace tw
