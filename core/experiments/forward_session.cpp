#include "core/experiments/forward_session.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <system_error>

#include "core/base/i18n.h"
#include "core/compare.h"
#include "core/model/forward.h"
#include "core/model/weights.h"

namespace tw {

LoadedModel load_model(const ModelConfig& config, const WeightsSource& source) {
  LoadedModel out;
  out.config = config;
  if (source.weights) {
    out.weights = source.weights;
    out.source = source.name.empty() ? "weights in memory" : source.name;
    return out;
  }
  if (source.checkpoint.empty()) {
    if (const auto problems = validate(config); !problems.empty()) {
      out.error = problems.front();
      return out;
    }
    out.weights = std::make_shared<const ModelWeights>(init_weights(config, source.seed));
    out.source = subst(tr("seeded init (seed {0})"), {std::to_string(source.seed)});
    return out;
  }

  // A checkpoint written by `dump` sits next to the config.json it was made for; prefer that config so the
  // tensor shapes match without the user re-entering the architecture.
  std::error_code ec;
  const std::filesystem::path path(source.checkpoint);
  if (!std::filesystem::is_regular_file(path, ec)) {
    out.error = subst(tr("checkpoint '{0}' is not a readable file"), {source.checkpoint});
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
    run.error = tr("no weights loaded");
    return run;
  }
  run.cache.reset(config);
  std::string error;
  if (!append_tokens(nullptr, &run.logits, &run.trace, run.cache, *run.weights, config, tokens, &error)) {
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
    run.append_error = tr("nothing to continue: the prompt has not run");
    return run;
  }
  Mat logits;
  Trace trace;
  std::string error;
  if (!append_tokens(nullptr, &logits, &trace, run.cache, *run.weights, run.config, {token}, &error)) {
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

NextTokenChoice choose_next_token(const ForwardRun& run, const SamplingConfig& cfg, uint64_t seed, int index,
                                  const TokenVocabulary* vocab) {
  const std::vector<char> allowed = vocab ? vocab->utf8_allowed_after(run.tokens) : std::vector<char>{};
  return choose_from_logits(run.next_logits(), cfg, seed, index, &allowed);
}

std::vector<int> shown_candidates(const NextTokenChoice& choice, int most) {
  const SamplingTrace& f = choice.filter;
  const int V = static_cast<int>(f.probs_before.size());
  if (!choice.error.empty() || V == 0) return {};
  std::vector<int> order(static_cast<size_t>(V));
  for (int i = 0; i < V; ++i) order[static_cast<size_t>(i)] = i;
  const int shown = std::min(V, most);
  std::partial_sort(order.begin(), order.begin() + shown, order.end(), [&](int a, int b) {
    const float pa = f.probs_before[static_cast<size_t>(a)], pb = f.probs_before[static_cast<size_t>(b)];
    return pa != pb ? pa > pb : a < b;
  });
  order.resize(static_cast<size_t>(shown));
  if (choice.sampled >= 0 && std::find(order.begin(), order.end(), choice.sampled) == order.end())
    order.push_back(choice.sampled);
  return order;
}

// [SECTION] session

ForwardRequest make_forward_request(const ModelConfig& config, const WeightsSource& source, std::vector<int> prompt,
                                    int generated, const SamplingConfig& sampling, uint64_t sample_seed) {
  ForwardRequest r;
  r.config = config;
  r.source = source;
  r.prompt = std::move(prompt);
  r.generated = generated;
  if (generated > 0) {
    r.sampling = sampling;
    r.sample_seed = sample_seed;
  }
  return r;
}

std::string check_request(const ForwardRequest& request) {
  std::string error = check_tokens(request.config, request.prompt, 0);
  if (error.empty() && static_cast<int>(request.prompt.size()) + request.generated > request.config.max_seq)
    error = subst(tr("the prompt plus {0} appended tokens exceed the model's {1} positions (max_seq; "
                     "max_position_embeddings in config.json)"),
                  {std::to_string(request.generated), std::to_string(request.config.max_seq)});
  return error;
}

// Below these sizes a session finishes in well under a millisecond.
bool is_quick_request(const ForwardRequest& request) {
  constexpr double kQuickMaxParams = 2e6, kQuickMaxFlops = 5e7;
  const int T = static_cast<int>(request.prompt.size()) + request.generated;
  return static_cast<double>(parameter_count(request.config)) < kQuickMaxParams &&
         forward_flops(request.config, T) < kQuickMaxFlops;
}

namespace {

// `prev` ran the same prompt on the same weights and appended fewer tokens, with the sampling `request` uses
// (any sampling continues a session that appended nothing yet).
bool continues(const ForwardSession& prev, const ForwardRequest& request, const LoadedModel& model) {
  const ForwardRequest& p = prev.request;
  const bool same_sampling =
      prev.appended.empty() || (p.sampling == request.sampling && p.sample_seed == request.sample_seed);
  return p.prompt == request.prompt && prev.model.weights == model.weights && same_sampling &&
         static_cast<int>(prev.appended.size()) < request.generated && prev.run.ok();
}

}  // namespace

ForwardSession run_forward_session(const ForwardRequest& request, const ForwardSession* previous,
                                   const std::function<bool(float)>& progress) {
  const auto start = std::chrono::steady_clock::now();
  auto keep_going = [&](float fraction) { return !progress || progress(fraction); };
  ForwardSession out;
  out.request = request;
  // Text edits keep the weights: only a new config or source re-initialises them.
  const bool same_weights = previous && previous->model.weights && previous->request.config == request.config &&
                            previous->request.source == request.source;
  out.model = same_weights ? previous->model : load_model(request.config, request.source);
  if (!out.model.error.empty()) return out;
  if (!keep_going(0.3f)) {
    out.cancelled = true;
    return out;
  }
  // "Append and continue" asks for one token more than the run on screen: continue it through its KV cache
  // instead of re-running the prompt.
  if (previous && continues(*previous, request, out.model)) {
    out.run = previous->run;
    out.appended = previous->appended;
    out.appended_probability = previous->appended_probability;
  } else {
    out.run = run_prompt(out.model.config, out.model.weights, request.prompt);
  }
  const int generated = request.generated;
  while (static_cast<int>(out.appended.size()) < generated && out.run.ok() && out.run.append_error.empty()) {
    const int i = static_cast<int>(out.appended.size());
    if (!keep_going(0.4f + 0.6f * static_cast<float>(i) / static_cast<float>(generated))) {
      out.cancelled = true;
      return out;
    }
    const NextTokenChoice next = choose_next_token(out.run, request.sampling, request.sample_seed, i, &request.vocab());
    if (!next.error.empty()) {
      out.run.append_error = next.error;
      break;
    }
    // Only the last token is checked against a full recompute: one pass of T tokens, not one per appended token
    // (64 appended tokens at T = 192 took minutes when every append was checked).
    out.run = run_append(out.run, next.sampled, /*check_against_full=*/i + 1 == generated);
    if (out.run.append_error.empty()) {
      out.appended.push_back(next.sampled);
      out.appended_probability.push_back(next.probability);
    }
  }
  out.residual = residual_norms(out.run.trace, out.model.config.placement);
  // R products (T, C)·(C, V): about a second on a 135M model, so it reports progress and can be cancelled first.
  if (!keep_going(0.85f)) {
    out.cancelled = true;
    return out;
  }
  if (out.run.ok()) logit_lens(&out.lens, out.run.trace, *out.model.weights, out.model.config, &out.lens_error);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace tw
