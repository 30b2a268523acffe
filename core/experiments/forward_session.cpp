#include "core/experiments/forward_session.h"

#include <filesystem>
#include <system_error>

#include "core/compare.h"
#include "core/model/forward.h"

namespace tw {

LoadedModel load_model(const ModelConfig& config, const WeightsSource& source) {
  LoadedModel out;
  out.config = config;
  if (source.checkpoint.empty()) {
    if (const auto problems = validate(config); !problems.empty()) {
      out.error = problems.front();
      return out;
    }
    out.weights = std::make_shared<const ModelWeights>(init_weights(config, source.seed));
    out.source = "seeded init (seed " + std::to_string(source.seed) + ")";
    return out;
  }

  // A checkpoint written by `dump` sits next to the config.json it was made for; prefer that config so the
  // tensor shapes match without the user re-entering the architecture.
  std::error_code ec;
  const std::filesystem::path path(source.checkpoint);
  if (!std::filesystem::is_regular_file(path, ec)) {
    out.error = "checkpoint '" + source.checkpoint + "' is not a readable file";
    return out;
  }
  const std::filesystem::path config_path = path.parent_path() / "config.json";
  std::string note;
  if (std::filesystem::is_regular_file(config_path, ec)) {
    ModelConfig from_file;
    std::string error;
    if (!load_config(config_path.string(), &from_file, &error)) {
      out.error = config_path.string() + ": " + error;
      return out;
    }
    out.config = from_file;
    note = " with the config.json beside it";
  }
  if (const auto problems = validate(out.config); !problems.empty()) {
    out.error = problems.front();
    return out;
  }
  auto weights = std::make_shared<ModelWeights>();
  std::string error;
  if (!load_weights(source.checkpoint, out.config, weights.get(), &error)) {
    out.error = error;
    return out;
  }
  out.weights = std::move(weights);
  out.source = "checkpoint " + source.checkpoint + note;
  return out;
}

RowVec ForwardRun::next_logits() const {
  if (!ok() || logits.rows() == 0) return RowVec();
  return logits.row(logits.rows() - 1);
}

ForwardRun run_prompt(const ModelConfig& config, std::shared_ptr<const ModelWeights> weights,
                      const std::vector<int>& tokens) {
  ForwardRun run;
  run.config = config;
  run.weights = std::move(weights);
  run.tokens = tokens;
  run.prompt_length = static_cast<int>(tokens.size());
  if (!run.weights) {
    run.error = "no weights loaded";
    return run;
  }
  run.cache.reset(config);
  std::string error;
  if (!forward_cached(run.logits, &run.trace, run.cache, *run.weights, config, tokens, &error)) {
    run.error = error;
    run.trace.clear();
  }
  return run;
}

ForwardRun run_append(const ForwardRun& prev, int token, bool check_against_full) {
  ForwardRun run;
  run.config = prev.config;
  run.weights = prev.weights;
  run.tokens = prev.tokens;
  run.prompt_length = prev.prompt_length;
  run.cache = prev.cache;
  if (!prev.ok()) {
    run = prev;
    run.append_error = "nothing to continue: the prompt has not run";
    return run;
  }
  Mat logits;
  Trace trace;
  std::string error;
  if (!forward_cached(logits, &trace, run.cache, *run.weights, run.config, {token}, &error)) {
    // Keep everything the user already had; only say why the token could not be appended.
    run = prev;
    run.append_error = error;
    return run;
  }
  run.tokens.push_back(token);
  run.trace = std::move(trace);
  run.logits = std::move(logits);
  run.incremental = true;
  if (check_against_full) {
    Mat full;
    if (forward(full, nullptr, *run.weights, run.config, run.tokens, &error))
      run.cache_check = max_abs_diff(Mat(run.logits.bottomRows(1)), Mat(full.bottomRows(1)));
  }
  return run;
}

NextTokenChoice choose_next_token(const ForwardRun& run, const SamplingConfig& cfg, uint64_t seed, int index) {
  NextTokenChoice out;
  out.error = validate(cfg);
  if (!out.error.empty()) return out;
  const RowVec last = run.next_logits();
  if (last.size() == 0) {
    out.error = "no logits yet: the model has not run";
    return out;
  }
  const std::vector<float> logits(last.data(), last.data() + last.size());
  sampling_filter(out.filter, logits, cfg);
  for (float p : out.filter.probs_before) out.n_positive += p > 0.0f ? 1 : 0;
  // One stream per (seed, position in the continuation): golden-ratio mixing keeps neighbouring seeds apart.
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(index) + 1);
  out.sampled = sample_token(out.filter.probs, rng);
  if (out.sampled >= 0 && out.sampled < static_cast<int>(out.filter.probs.size()))
    out.probability = out.filter.probs[static_cast<size_t>(out.sampled)];
  return out;
}

}  // namespace tw
