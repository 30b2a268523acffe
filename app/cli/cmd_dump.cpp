// `transformer-workbench dump --config config.json [--weights model.safetensors] (--text "…" | --tokens 1,2,3)
// --out DIR [--seed N]`: runs one traced forward pass and writes everything a student needs to check it elsewhere:
//   DIR/model.safetensors   the weights (Hugging Face LLaMA names; a seeded init unless --weights is given)
//   DIR/config.json         Hugging Face LlamaConfig keys plus tw_* keys
//   DIR/<step>.npy          one float32 array per trace step, in its logical shape (e.g. (H, T, T))
//   DIR/manifest.json       tokens, and per step: name, title, formula, inputs, shape, dims, flops, bytes, file
// With --model DIR (a Hugging Face folder: config.json, model.safetensors or an index + shards, tokenizer.json) the
// model and its tokenizer come from the folder instead of --config/--weights. --dtype bf16|f16 writes a
// half-precision checkpoint and runs the model rounded to it (the dumped steps are those of the files written);
// --shard-mb N splits the weights into shards of at most N MB plus model.safetensors.index.json.
// With --grads also DIR/grads.safetensors (∂loss/∂W under the model.safetensors names) and manifest "loss": the
// mean next-token cross-entropy of the tokens (positions 0..T−2 predict tokens 1..T−1).
// Exit codes: 0 written, 1 a file could not be read or written, 2 bad arguments (one line on stderr).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/headless_progress.h"
#include "core/base/i18n.h"
#include "core/experiments/forward_session.h"
#include "core/io/atomic_file.h"
#include "core/io/npy.h"
#include "core/machine_memory.h"
#include "core/model/config.h"
#include "core/model/forward.h"  // check_tokens
#include "core/model/hf_model.h"
#include "core/model/trace.h"
#include "core/model/weights.h"
#include "core/text/byte_tokenizer.h"
#include "core/train/model_train.h"

namespace tw {

namespace {

constexpr double kMaxShardMb = 1e6;  // 1 TB: far above any checkpoint, far below where MB · 1e6 leaves int64

struct DumpOptions {
  std::string config;
  std::string weights;
  std::string text;
  std::string tokens;
  std::string out;
  std::string seed = "0";
  bool text_given = false;
  std::string model;  // --model DIR
  std::string dtype = "f32";
  double shard_mb = 0;                          // 0: one model.safetensors
  bool grads = false;                           // --grads
  double memory_cap_mb = kHeadlessMemoryCapMb;  // --memory-cap
};

int dump_fail(int code, const std::string& message) {
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
      return subst(tr("--tokens: '{0}' is not a non-negative integer (expected e.g. 1,2,3)"), {item});
    out->push_back(static_cast<int>(v));
    pos = comma + 1;
  }
  return "";
}

// Step names are dotted ("layers.0.attn.probs"), which is already a safe file name.
std::string npy_name(const TraceStep& s) { return s.name + ".npy"; }

// The token ids to run: --text through the folder's tokenizer.json (or as bytes for a config), or --tokens.
bool dump_tokens(const DumpOptions& o, const ModelConfig& config, const HfModel& hf, std::vector<int>* tokens,
                 std::string* error) {
  if (!o.model.empty() && o.text_given) {
    if (!hf.has_tokenizer)
      return *error = o.model + " has no usable tokenizer.json" +
                      (hf.tokenizer_warning.empty() ? "" : " (" + hf.tokenizer_warning + ")") + "; use --tokens",
             false;
    return hf.tokenizer.encode_checked(o.text, true, tokens, error);
  }
  if (o.text_given) {
    if (config.vocab < 256)
      return *error =
                 subst(tr("--text needs a vocabulary of at least 256 byte tokens (vocab_size is {0}); use --tokens"),
                       {std::to_string(config.vocab)}),
             false;
    *tokens = ByteTokenizer::encode(o.text);
    return true;
  }
  *error = parse_token_list(o.tokens, tokens);
  return error->empty();
}

// What the run needs, before anything is allocated: a config.json may raise its own cap (tw_memory_cap_mb), the
// command line's cap is the user's. A run over two seconds says so first.
bool check_dump_memory(const DumpOptions& o, const ModelConfig& config, size_t n_tokens, std::string* error) {
  const double need_mb = estimated_memory_bytes(config) / (1024.0 * 1024.0);
  const double cap = cap_to_machine(o.memory_cap_mb);
  if (need_mb > cap)
    return *error = subst(tr("this model needs about {0} MiB (weights + traced activations), above dump's cap of {1} "
                             "MiB; pass --memory-cap {2} to run it (at most this machine's memory)"),
                          {std::to_string(std::llround(need_mb)), std::to_string(std::llround(cap)),
                           std::to_string(std::llround(need_mb) + 1)}),
           false;
  const double params = static_cast<double>(parameter_count(config));
  const double seconds = (o.model.empty() && o.weights.empty() ? 25e-9 * params : 0.0) +
                         2.0 * params * static_cast<double>(n_tokens) / 2e9;
  if (seconds > 2)
    std::fprintf(stderr, "transformer-workbench dump: %s\n",
                 subst(tr("this run needs about {0} MiB and roughly {1} s"),
                       {std::to_string(std::llround(need_mb)), std::to_string(std::llround(seconds))})
                     .c_str());
  if (o.grads && n_tokens >= 2) {
    // The backward pass adds what training keeps for one sequence and the gradients (one more copy of the weights)
    // to the traced forward the config's cap already covers.
    const double mb =
        (estimated_memory_bytes(config) + 4.0 * (static_cast<double>(parameter_count(config)) +
                                                 train_state_floats(config, 1, static_cast<int>(n_tokens)))) /
        (1024.0 * 1024.0);
    const double grads_cap = cap_to_machine(std::min(config.memory_cap_mb, o.memory_cap_mb));
    if (mb > grads_cap)
      return *error = subst(tr("--grads needs about {0} MiB (the traced forward, the activations kept for the "
                               "backward pass and the gradients), above the cap of {1} MiB"),
                            {std::to_string(std::llround(mb)), std::to_string(std::llround(grads_cap))}),
             false;
  }
  return true;
}

// The dump folder: the weights as a Hugging Face checkpoint, grads.safetensors (--grads), one .npy per traced step,
// and manifest.json last, whose presence marks a complete dump. `grads` is null without --grads.
int write_dump(const DumpOptions& o, const ModelConfig& config, const HfModel& hf, const std::vector<int>& tokens,
               unsigned long long seed, StorageType dtype, const ForwardRun& run, const ModelWeights* grads,
               double loss, HeadlessProgress& progress) {
  const Trace& trace = run.trace;
  std::string error;
  std::error_code ec;
  std::filesystem::create_directories(o.out, ec);
  if (ec) return dump_fail(1, subst(tr("cannot create '{0}': {1}"), {o.out, ec.message()}));
  const std::filesystem::path dir(o.out);
  // Temporaries of a dump that was killed mid-write are hidden files; this run into the same folder removes them.
  std::vector<std::string> removed;
  remove_stale_temp_files(o.out, &removed);
  if (!removed.empty())
    std::fprintf(stderr, "transformer-workbench dump: %s\n",
                 subst(trn("removed {0} temporary file left by an interrupted dump",
                           "removed {0} temporary files left by an interrupted dump", removed.size()),
                       {std::to_string(removed.size())})
                     .c_str());
  // manifest.json is written last and so marks a complete dump: the one of an earlier dump into this folder goes
  // first, so a run that stops half-way never leaves an old manifest describing a mix of old and new files.
  std::filesystem::remove(dir / "manifest.json", ec);
  const size_t total_files = trace.steps().size() + 3 + (o.grads ? 1 : 0);
  std::vector<std::string> written;
  // A dump that stops half-way says which of its files are in the folder, so none is taken for a complete dump.
  auto fail_writing = [&](const std::string& message) {
    if (written.empty()) return dump_fail(1, message);
    std::string list;
    for (size_t i = 0; i < written.size() && i < 4; ++i) list += (i ? ", " : "") + written[i];
    if (written.size() > 4) list += " and " + std::to_string(written.size() - 4) + " more";
    return dump_fail(1, message + "; the dump in " + o.out + " is incomplete: " + std::to_string(written.size()) +
                            " of " + std::to_string(total_files) + " files written (" + list + ")");
  };
  auto writing = [&](const std::string& name) {
    progress.step("writing " + name + ", " + std::to_string(written.size() + 1) + " of " + std::to_string(total_files) +
                  " files");
  };
  writing("model.safetensors");
  std::vector<std::string> weight_files;
  const HfSaveOptions save_options{dtype, static_cast<int64_t>(o.shard_mb * 1e6)};
  if (!save_hf_checkpoint(o.out, *run.weights, config, save_options, &weight_files, &error)) return fail_writing(error);
  written.insert(written.end(), weight_files.begin(), weight_files.end());  // the weight files and config.json
  if (grads) {
    writing("grads.safetensors");
    if (!save_weights((dir / "grads.safetensors").string(), *grads, config, &error)) return fail_writing(error);
    written.push_back("grads.safetensors");
  }

  nlohmann::json manifest;
  manifest["tokens"] = tokens;
  if (o.text_given) manifest["text"] = o.text;
  manifest["seed"] = o.weights.empty() ? nlohmann::json(seed) : nlohmann::json(nullptr);
  manifest["weights"] = o.weights.empty() ? "seeded init" : o.weights;
  manifest["parameters"] = parameter_count(config);
  manifest["dtype"] = to_string(dtype);
  manifest["files"] = weight_files;
  if (!o.model.empty()) {
    manifest["model"] = o.model;
    manifest["weights"] = o.model;
    if (hf.has_tokenizer) {
      nlohmann::json labels = nlohmann::json::array();
      for (int t : tokens) labels.push_back(hf.tokenizer.label(t));
      manifest["token_strings"] = labels;
    }
  }
  if (o.grads) manifest["loss"] = loss;
  nlohmann::json steps = nlohmann::json::array();
  for (const TraceStep& s : trace.steps()) {
    writing(npy_name(s));
    if (!write_npy((dir / npy_name(s)).string(), s.value, s.sizes(), &error)) return fail_writing(error);
    written.push_back(npy_name(s));
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
  // --text may be invalid UTF-8, hence the replacing dump. The manifest is written last: its presence says the
  // dump is complete.
  writing("manifest.json");
  if (!write_file_atomic((dir / "manifest.json").string(),
                         manifest.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", &error))
    return fail_writing(error);
  const std::string weights_written = weight_files.size() > 2
                                          ? subst(tr("{0} weight shards"), {std::to_string(weight_files.size() - 2)})
                                          : std::string("model.safetensors");
  std::printf("%s\n", subst(tr("wrote {0} steps, {1}, config.json and manifest.json to {2}"),
                            {std::to_string(trace.steps().size()), weights_written, o.out})
                          .c_str());
  return 0;
}

int run_dump(const DumpOptions& o) {
  // [SECTION] arguments
  if (o.config.empty() && o.model.empty())
    return dump_fail(2, tr("--config FILE is required (a Hugging Face style config.json), or --model DIR"));
  if (o.out.empty()) return dump_fail(2, tr("--out DIR is required (the directory to write into)"));
  if (o.text_given == !o.tokens.empty())
    return dump_fail(2, tr("give exactly one of --text \"...\" or --tokens 1,2,3"));
  if (!std::isfinite(o.memory_cap_mb) || o.memory_cap_mb < 1)
    return dump_fail(2, tr("--memory-cap must be a number of MiB of at least 1"));
  char* end = nullptr;
  errno = 0;
  const unsigned long long seed = std::strtoull(o.seed.c_str(), &end, 10);
  if (o.seed.empty() || *end != '\0' || errno == ERANGE || o.seed[0] == '-')
    return dump_fail(2, subst(tr("--seed '{0}' must be a non-negative integer"), {o.seed}));

  ModelConfig config;
  std::string error;
  // [SECTION] Hugging Face folder and storage type (--model, --dtype, --shard-mb)
  StorageType dtype = StorageType::F32;
  if (!storage_type_from_string(o.dtype, &dtype))
    return dump_fail(2, subst(tr("--dtype '{0}' must be f32, f16 or bf16"), {o.dtype}));
  if (!(o.shard_mb >= 0) || !(o.shard_mb <= kMaxShardMb))  // inf and 1e300 too: a float → integer beyond range is UB
    return dump_fail(2, subst(tr("--shard-mb must be 0 (one file) or a size in MB up to {0}"),
                              {std::to_string(static_cast<long long>(kMaxShardMb))}));
  // Writing into the folder being read would replace (and, for shards, delete) the weights mid-run.
  const std::filesystem::path weights_dir = std::filesystem::path(o.weights).parent_path();
  for (const std::string& source : {o.model, o.weights.empty()     ? std::string()
                                             : weights_dir.empty() ? std::string(".")
                                                                   : weights_dir.string()}) {
    std::error_code ec;
    if (!source.empty() && std::filesystem::equivalent(source, o.out, ec))
      return dump_fail(
          2, subst(tr("--out '{0}' is the folder the model is read from; write the dump somewhere else"), {o.out}));
  }
  HfModel hf;
  if (!o.model.empty()) {
    if (!o.config.empty() || !o.weights.empty())
      return dump_fail(2, tr("--model DIR brings its own config and weights; leave out --config and --weights"));
    if (!load_hf_model(o.model, {}, &hf, &error)) return dump_fail(2, error);
    config = hf.config;
  }
  if (o.model.empty() && !load_config(o.config, &config, &error)) return dump_fail(2, error);
  std::vector<int> tokens;
  if (!dump_tokens(o, config, hf, &tokens, &error)) return dump_fail(2, error);
  if (const std::string problem = check_tokens(config, tokens); !problem.empty()) return dump_fail(2, problem);
  if (!check_dump_memory(o, config, tokens.size(), &error)) return dump_fail(2, error);

  HeadlessProgress progress("transformer-workbench dump");
  ModelWeights weights;
  if (!o.model.empty()) {
    weights = std::move(hf.weights);
  } else if (o.weights.empty()) {
    progress.step("initialising the weights");
    weights = init_weights(config, seed);
  } else {
    progress.step("reading " + o.weights);
    if (!load_weights(o.weights, config, &weights, &error)) return dump_fail(2, error);
  }

  if (dtype != StorageType::F32) round_weights(weights, config, dtype);  // run the checkpoint that is written

  // [SECTION] forward: the prompt pass of a forward session, the same traced pass the forward panel shows
  progress.step("forward pass");
  const ForwardRun run = run_prompt(config, std::make_shared<const ModelWeights>(std::move(weights)), tokens);
  if (!run.error.empty()) return dump_fail(2, run.error);

  // [SECTION] gradients (--grads): backward pass of the next-token loss over the same tokens
  ModelWeights grads;
  double loss = 0;
  if (o.grads) {
    if (tokens.size() < 2) return dump_fail(2, tr("--grads needs at least 2 tokens (position t predicts token t+1)"));
    Batch batch;
    batch.B = 1;
    batch.T = static_cast<int>(tokens.size());
    batch.tokens = tokens;
    batch.targets.assign(tokens.begin() + 1, tokens.end());
    batch.targets.push_back(-1);
    TrainState state;
    if (!train_forward_backward(&grads, state, *run.weights, config, batch, &loss, &error)) return dump_fail(2, error);
  }

  // [SECTION] files
  return write_dump(o, config, hf, tokens, seed, dtype, run, o.grads ? &grads : nullptr, loss, progress);
}

void add_dump_options(CLI::App& sub, DumpOptions& o) {
  sub.add_option("--config", o.config, tr("Model config.json (Hugging Face LlamaConfig keys plus tw_* keys)"));
  sub.add_option("--weights", o.weights, tr("Load weights from this safetensors file (default: seeded init)"));
  sub.add_option("--text", o.text, tr("Input text, one byte token per UTF-8 byte"))->each([&o](const std::string&) {
    o.text_given = true;
  });
  sub.add_option("--tokens", o.tokens, tr("Input token ids, comma-separated (e.g. 1,2,3)"));
  sub.add_option("--out", o.out, tr("Directory to write into (created if missing)"));
  sub.add_option("--seed", o.seed, tr("Seed of the weight init when --weights is not given (default 0)"));
  sub.add_option("--model", o.model, tr("A Hugging Face model folder (config.json, safetensors, tokenizer.json)"));
  sub.add_option("--dtype", o.dtype, tr("Storage type of the written weights: f32 (default), f16 or bf16"));
  sub.add_option("--shard-mb", o.shard_mb, tr("Split the written weights into shards of at most this many MB"));
  sub.add_option("--memory-cap", o.memory_cap_mb,
                 subst(tr("Refuse models whose memory estimate exceeds this many MiB (default {0})"),
                       {std::to_string(std::llround(kHeadlessMemoryCapMb))}))
      ->check(CLI::Range(1.0, 1e9));
  sub.add_flag("--grads", o.grads,
               tr("Also write grads.safetensors (the gradient of the next-token loss for every weight) and the loss in "
                  "manifest.json"));
}

}  // namespace

TW_REGISTER_COMMAND(options_command<DumpOptions>(
    "dump", N_("Run one traced forward pass and write weights, config.json, one .npy per step and a manifest"),
    add_dump_options, run_dump));

}  // namespace tw
