// `transformer-workbench train --scene FILE|PRESET [--set key=value]... [--steps N] [--threads N] --out DIR
// [--format png,svg,csv]`: trains the Training panel's settings of a scene headless (on one thread, or with
// --threads N the matrix products on N), and writes
//   DIR/model.safetensors + DIR/config.json   the trained model (Hugging Face names; the stepper and
//                                              bench/pytorch_forward.py load it)
//   DIR/metrics.csv                           step, train_loss, val_loss, accuracy, grad_norm, lr, log_z (a row a step;
//                                              val_loss/accuracy empty on steps without an evaluation); MoE runs
//                                              add balance_loss and dropped
//   DIR/run.json                              task, steps, batch, seq_len, seconds, ms_per_step_median,
//                                              final_accuracy, plus cpu_ms_per_step_median (the process's CPU
//                                              time, every thread's, immune to other programs on the cores),
//                                              threads, cpu_seconds, seconds_to_99 (null
//                                              when never reached) and the parameter count (MoE: experts,
//                                              top_k, active_parameters)
//   DIR/scene.json                            the scene as trained (with --set applied): retrains the same bits
//   DIR/train-<figure>.<ext>                  the panel's figures after the last step
// Progress goes to stderr; the last line on stdout is the median milliseconds per step.
// --steps N is the same as --set train.steps=N (the run's length and the end of its cosine schedule).
// Exit codes: 0 trained, 1 training diverged or a file could not be written (what could be written is), 2 bad
// arguments or a rejected scene.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/headless_progress.h"
#include "app/export_figures.h"
#include "app/scene.h"
#include "app/scene_presets.h"
#include "core/base/i18n.h"
#include "core/io/atomic_file.h"
#include "core/matmul_threads.h"
#include "core/train/language_data.h"
#include "core/train/model_folder.h"
#include "core/train/trainer.h"
#include "core/train/trainer_session.h"
#include "views/panel_train.h"
#include "views/plot/export.h"

namespace tw {

namespace {

// A number with `digits` decimals ("%.*f"), for the progress lines (the decimal point is "." in every language).
std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

struct TrainCommandOptions : SceneCommandOptions {
  double memory_cap_mb = 0;  // --memory-cap: refuse settings estimated above this (0: the model's own cap)
  std::string steps;         // same as --set train.steps=N
  int threads = 1;           // --threads: matrix-product threads (the run's bits depend on it: run.json keeps it)
};

int train_fail(int code, const std::string& message) {
  std::fprintf(stderr, "transformer-workbench train: %s\n", message.c_str());
  return code;
}

std::string num(double v) {
  if (!std::isfinite(v)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// MoE runs add balance_loss (mean over layers of E·Σ f_e P̄_e) and dropped (assignments past a full expert, summed
// over layers); dense runs keep the seven columns.
std::string metrics_csv(const std::vector<MetricsRow>& rows, bool moe) {
  std::string out =
      std::string("step,train_loss,val_loss,accuracy,grad_norm,lr,log_z") + (moe ? ",balance_loss,dropped" : "") + "\n";
  for (const MetricsRow& r : rows) {
    out += std::to_string(r.step) + "," + num(r.train_loss) + "," + num(r.val_loss) + "," + num(r.accuracy) + "," +
           num(r.grad_norm) + "," + num(r.lr) + "," + num(r.log_z);
    if (moe) out += "," + num(r.balance_loss) + "," + std::to_string(r.dropped);
    out += "\n";
  }
  return out;
}

// A language task's text and tokenizer, prepared before the model (an 8,192-token BPE trains for a second or more):
// on a worker, with a progress line each second, so the run never sits silent. Trainer::init then finds them cached.
bool prepare_language_data(const TrainSettings& settings, std::string* error) {
  if (settings.task.kind != TaskKind::Language || language_data_ready(settings.task.language)) return true;
  HeadlessProgress progress("transformer-workbench train");
  std::atomic<float> fraction{0};
  std::shared_ptr<const LanguageData> data;
  auto prepared = std::async(
      std::launch::async, [&] { return load_language_data(settings.task.language, &data, error, nullptr, &fraction); });
  const bool trains_tokenizer =
      settings.task.language.tokenizer_json.empty() && settings.task.language.tokenizer == LmTokenizerKind::Bpe;
  while (prepared.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready)
    // xgettext:no-c-format
    progress.step(trains_tokenizer ? subst(tr("preparing the text: training the BPE tokenizer, {0}% of its merges"),
                                           {std::to_string(std::lround(100 * fraction.load()))})
                                   : std::string(tr("preparing the text: tokenizing it")));
  return prepared.get();
}

// The output folder before the first step: an unwritable --out is found now, not after 100,000 steps.
bool prepare_out_dir(const std::string& out, std::string* error) {
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) return *error = subst(tr("cannot create '{0}': {1}"), {out, ec.message()}), false;
  if (::access(out.c_str(), W_OK | X_OK) != 0)
    return *error = subst(tr("cannot write in '{0}': {1}"), {out, std::strerror(errno)}), false;
  // Temporaries of a run killed mid-write are hidden files; this run into the same folder removes them.
  std::vector<std::string> removed;
  remove_stale_temp_files(out, &removed);
  if (!removed.empty())
    std::fprintf(stderr, "transformer-workbench train: %s\n",
                 subst(trn("removed {0} temporary file left by an interrupted run",
                           "removed {0} temporary files left by an interrupted run", removed.size()),
                       {std::to_string(removed.size())})
                     .c_str());
  // run.json is written last and so marks a complete run: an earlier run's goes first, so a run that stops
  // half-way never leaves an old run.json beside a new model (load_task_checkpoint refuses such a folder).
  std::filesystem::remove(std::filesystem::path(out) / "run.json", ec);
  return true;
}

// The language task also writes what bench/pytorch_train.py --language needs to repeat the run exactly: the initial
// weights and the token ids, seed and optimizer settings (the batches follow from the seed).
bool write_language_run_inputs(const std::string& out, const Trainer& trainer, const TrainSettings& settings, int steps,
                               std::string* error) {
  const std::shared_ptr<const LanguageData>& lm = trainer.task().language();
  if (!lm) return true;
  if (!save_weights((std::filesystem::path(out) / "init.safetensors").string(), trainer.weights(), settings.model,
                    error))
    return false;
  const OptimizerConfig& oc = settings.optimizer;
  nlohmann::json data = {{"train_ids", lm->train_ids},
                         {"heldout_ids", lm->heldout_ids},
                         {"heldout_chars", lm->heldout_chars},
                         {"context", trainer.task().seq_len()},
                         {"batch", settings.batch},
                         {"seed", settings.seed},
                         {"steps", steps},
                         {"lr", oc.lr},
                         {"beta1", oc.beta1},
                         {"beta2", oc.beta2},
                         {"eps", oc.eps},
                         {"weight_decay", oc.weight_decay},
                         {"decay_norms", oc.decay_norms},
                         {"decay_embeddings", oc.decay_embeddings},
                         {"clip_norm", oc.clip_norm},
                         {"warmup_steps", oc.warmup_steps},
                         {"total_steps", oc.total_steps},
                         {"min_lr_ratio", oc.min_lr_ratio},
                         {"dropout", settings.dropout}};
  return write_file_atomic((std::filesystem::path(out) / "lm_data.json").string(), data.dump() + "\n", error);
}

// What the run will take, before step 1: its size and memory, and (when over ten seconds) a time estimate.
void announce_run(const Trainer& trainer, const TrainSettings& settings, int steps) {
  TrainSettings sized = settings;
  sized.task = trainer.task().config();  // the language task's held-out set is every held-out window
  std::fprintf(stderr, "%s\n",
               subst(tr("training {0}: {1} steps, batch {2}, T = {3}, {4} parameters, at most {5} MiB"),
                     {to_string(settings.task.kind), std::to_string(steps), std::to_string(settings.batch),
                      std::to_string(trainer.task().seq_len()), std::to_string(parameter_count(settings.model)),
                      fixed(estimated_training_bytes(sized, trainer.task().seq_len()) / (1024.0 * 1024.0), 0)})
                   .c_str());
  // Forward + backward ≈ 6 · parameters · tokens plus the attention scores, at an assumed 10 GFLOP/s (a guess; the
  // first steps' times follow every half second).
  const double tokens = double(settings.batch) * trainer.task().seq_len();
  const double flops = 6.0 * double(parameter_count(settings.model)) * tokens +
                       12.0 * settings.model.n_layers * settings.model.dim * tokens * trainer.task().seq_len();
  const double per_step = flops / 1e10;
  if (per_step * steps > 10)
    std::fprintf(stderr, "%s\n",
                 subst(tr("roughly {0} s per step, {1} s for {2} steps (an estimate at 10 GFLOP/s)"),
                       {fixed(per_step, 1), fixed(per_step * steps, 0), std::to_string(steps)})
                     .c_str());
}

// CPU time of the process (every thread's): unlike wall time it does not grow when other programs share the cores.
double process_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

// The steps, timed, with a progress line every half second.
struct StepTimes {
  std::vector<double> wall_ms, cpu_ms;  // per step
  double seconds_to_99 = kNoValue;      // until held-out accuracy first reached 99%
  bool failed = false;                  // a step failed (its message is printed)
};
StepTimes run_steps(Trainer& trainer, int steps, std::chrono::steady_clock::time_point start) {
  using Clock = std::chrono::steady_clock;
  StepTimes times;
  times.wall_ms.reserve(size_t(steps));
  times.cpu_ms.reserve(size_t(steps));
  auto last_report = start;
  std::string error;
  for (int i = 0; i < steps; ++i) {
    const auto t0 = Clock::now();
    const double c0 = process_cpu_ms();
    if (!trainer.step(&error)) {
      std::fprintf(stderr, "transformer-workbench train: %s\n", error.c_str());
      times.failed = true;
      break;
    }
    const auto t1 = Clock::now();
    times.wall_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    times.cpu_ms.push_back(process_cpu_ms() - c0);
    const MetricsRow& row = trainer.history().back();
    if (!std::isfinite(times.seconds_to_99) && std::isfinite(row.accuracy) && row.accuracy >= 0.99)
      times.seconds_to_99 = std::chrono::duration<double>(Clock::now() - start).count();
    if (t1 - last_report <= std::chrono::milliseconds(500) && i + 1 != steps) continue;
    last_report = t1;
    double acc = kNoValue;
    for (auto it = trainer.history().rbegin(); it != trainer.history().rend() && !std::isfinite(acc); ++it)
      acc = it->accuracy;
    double bpc = kNoValue;
    for (auto it = trainer.history().rbegin(); it != trainer.history().rend() && !std::isfinite(bpc); ++it)
      bpc = it->bits_per_char;
    const double secs = std::chrono::duration<double>(t1 - start).count();
    if (trainer.task().language())
      std::fprintf(stderr, "%s\n",
                   subst(tr("step {0}/{1}  loss {2}  held-out {3} bits/char  {4} s"),
                         {std::to_string(row.step), std::to_string(steps), fixed(row.train_loss, 4), fixed(bpc, 4),
                          fixed(secs, 1)})
                       .c_str());
    else
      std::fprintf(stderr, "%s\n",
                   subst(tr("step {0}/{1}  loss {2}  held-out accuracy {3}%  {4} s"),
                         {std::to_string(row.step), std::to_string(steps), fixed(row.train_loss, 4),
                          fixed(100 * acc, 1), fixed(secs, 1)})
                       .c_str());
  }
  return times;
}

double median_of(std::vector<double> ms) {
  if (ms.empty()) return 0.0;
  std::nth_element(ms.begin(), ms.begin() + long(ms.size() / 2), ms.end());
  return ms[ms.size() / 2];
}

// run.json: what the run did and took, the language task's baselines and samples.
nlohmann::ordered_json run_record(Trainer& trainer, const TrainSettings& settings, int threads, const StepTimes& times,
                                  double seconds, double cpu_seconds, const Evaluation& final_eval) {
  nlohmann::ordered_json run;
  run["task"] = to_string(settings.task.kind);
  run["steps"] = trainer.steps_done();
  run["batch"] = settings.batch;
  run["seq_len"] = trainer.task().seq_len();
  run["seconds"] = seconds;
  run["cpu_seconds"] = cpu_seconds;
  run["threads"] = threads;
  run["ms_per_step_median"] = median_of(times.wall_ms);
  run["cpu_ms_per_step_median"] = median_of(times.cpu_ms);
  run["blas_kernel"] = matmul_kernel();  // bit-identical retraining holds for the same kernel
  run["final_accuracy"] = std::isfinite(final_eval.accuracy) ? nlohmann::json(final_eval.accuracy) : nullptr;
  run["final_val_loss"] = std::isfinite(final_eval.loss) ? nlohmann::json(final_eval.loss) : nullptr;
  run["seconds_to_99"] = std::isfinite(times.seconds_to_99) ? nlohmann::json(times.seconds_to_99) : nullptr;
  run["parameters"] = parameter_count(settings.model);
  if (settings.model.moe()) {
    run["experts"] = settings.model.experts;
    run["top_k"] = settings.model.top_k;
    run["active_parameters"] = active_parameter_count(settings.model);
  }
  if (const std::shared_ptr<const LanguageData>& lm = trainer.task().language()) {
    run["final_bits_per_char"] =
        std::isfinite(final_eval.bits_per_char) ? nlohmann::json(final_eval.bits_per_char) : nullptr;
    run["unigram_bits_per_char"] = lm->unigram_bits;
    run["bigram_bits_per_char"] = lm->bigram_bits;
    run["char_unigram_bits_per_char"] = lm->char_unigram_bits;
    run["char_bigram_bits_per_char"] = lm->char_bigram_bits;
    run["heldout_chars"] = lm->heldout_chars;
    run["heldout_tokens"] = lm->heldout_ids.size();
    run["train_tokens"] = lm->train_ids.size();
    run["vocab"] = lm->tokenizer.vocab_size();
    nlohmann::ordered_json samples = nlohmann::ordered_json::array();
    for (const TrainSample& x : trainer.samples()) samples.push_back({{"step", x.step}, {"text", x.text}});
    samples.push_back({{"step", trainer.steps_done()},
                       {"text", trainer.sample_text(settings.seed, settings.sample_tokens, kSampleTemperature)}});
    run["samples"] = samples;
  }
  if (trainer.stopped()) run["stopped"] = trainer.stop_message();
  return run;
}

int run_train(const TrainCommandOptions& o) {
  using Clock = std::chrono::steady_clock;
  if (o.scene.empty())
    return train_fail(2, tr("--scene FILE is required (a scene file or a preset such as train-sort)"));
  if (o.out.empty())
    return train_fail(2, tr("--out DIR is required (the directory to write the model and metrics into)"));
  plot::ExportFormats formats = plot::ExportFormat_None;
  if (!o.formats.empty() && o.formats != "none")
    if (auto problem = parse_export_formats(o.formats, &formats)) return train_fail(2, "--format: " + *problem);

  if (!set_matmul_threads(o.threads))
    return train_fail(2, subst(tr("--threads {0}: this build cannot run that many matrix-product threads"),
                               {std::to_string(o.threads)}));
  // CLI11's range check lets NaN through (every comparison with it is false): "--memory-cap nan" would mean "no cap".
  if (o.memory_cap_mb != 0 && !(std::isfinite(o.memory_cap_mb) && o.memory_cap_mb >= 1))
    return train_fail(2, tr("--memory-cap must be a number of MiB of at least 1"));
  AppState state = make_app_state();
  std::vector<SceneOverride> overrides;
  for (const std::string& arg : o.sets) {
    SceneOverride set;
    if (auto problem = parse_set_argument(state, arg, &set)) return train_fail(2, *problem);
    overrides.push_back(std::move(set));
  }
  if (!o.steps.empty()) {
    SceneOverride set;
    if (auto problem = parse_set_argument(state, "train.steps=" + o.steps, &set))
      return train_fail(2, "--steps: " + *problem);
    overrides.push_back(std::move(set));
  }
  const SceneLoad loaded = load_scene_file(state, resolve_scene_argument(o.scene), overrides);
  for (const std::string& w : loaded.warnings)
    std::fprintf(stderr, "transformer-workbench train: warning: %s\n", w.c_str());
  if (!loaded.ok) return train_fail(2, loaded.error);
  PanelSlot* slot = state.find("train");
  if (!slot) return train_fail(2, tr("this build has no Training panel"));

  TrainSettings settings;
  int steps = 0;
  std::string error;
  if (!train_settings_of_panel(*slot->panel, &settings, &steps, &error, o.memory_cap_mb)) return train_fail(2, error);
  if (!prepare_language_data(settings, &error)) return train_fail(2, error);
  Trainer trainer;
  if (!trainer.init(settings, &error)) return train_fail(2, error);

  if (!prepare_out_dir(o.out, &error)) return train_fail(2, error);

  if (!write_language_run_inputs(o.out, trainer, settings, steps, &error)) return train_fail(2, error);
  announce_run(trainer, settings, steps);
  const auto start = Clock::now();
  const double cpu_start = process_cpu_ms();
  StepTimes times = run_steps(trainer, steps, start);
  const int exit_code = times.failed ? 1 : 0;
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  // The last row always carries a held-out evaluation, so final_accuracy is the accuracy of the saved weights.
  const Evaluation final_eval = trainer.evaluate();
  if (trainer.steps_done() > 0 && !std::isfinite(times.seconds_to_99) && final_eval.accuracy >= 0.99)
    times.seconds_to_99 = std::chrono::duration<double>(Clock::now() - start).count();
  const double median = median_of(times.wall_ms);

  std::vector<std::string> errors;
  if (!trainer.save_checkpoint(o.out, &error)) errors.push_back(error);
  const std::filesystem::path dir(o.out);
  auto write = [&](const std::string& name, const std::string& bytes) {
    std::string e;
    if (!write_file_atomic((dir / name).string(), bytes, &e)) errors.push_back(e);
  };
  write("metrics.csv", metrics_csv(trainer.history(), settings.model.moe()));
  const nlohmann::ordered_json run =
      run_record(trainer, settings, o.threads, times, seconds, (process_cpu_ms() - cpu_start) / 1e3, final_eval);
  write("scene.json", scene_to_text(state));
  if (formats != plot::ExportFormat_None) {
    plot::ExportOptions options;
    options.theme = plot::Theme::Print;
    std::vector<std::string> written;
    for (const plot::Figure& fig : train_figures(make_snapshot(trainer), steps)) {
      const std::string e = plot::export_figure(fig, o.out, "train", formats, options, &written);
      if (!e.empty()) errors.push_back("train-" + fig.id + ": " + e);
    }
  }
  if (errors.empty()) write("run.json", run.dump(2) + "\n");  // last: the folder is complete
  for (const std::string& e : errors) std::fprintf(stderr, "transformer-workbench train: %s\n", e.c_str());
  std::fprintf(stderr, "%s\n",
               subst(tr("final held-out accuracy {0}%, {1} s, median {2} ms/step"),
                     {fixed(100 * final_eval.accuracy, 2), fixed(seconds, 2), fixed(median, 3)})
                   .c_str());
  std::printf("%.4f\n", median);
  return errors.empty() ? exit_code : 1;
}

void add_train_options(CLI::App& sub, TrainCommandOptions& o) {
  add_scene_command_options(sub, o, "train-sort, train-induction",
                            tr("Directory for model.safetensors, config.json, metrics.csv, run.json, figures"));
  sub.get_option("--format")->description(tr("Figure formats: png,svg,csv or none (default: all three)"));
  sub.add_option("--steps", o.steps, tr("Training steps (same as --set train.steps=N)"));
  sub.add_option("--threads", o.threads,
                 tr("Matrix-product threads (default 1; a run retrains to the same bits with the same count)"))
      ->check(CLI::Range(1, 64));
  sub.add_option("--memory-cap", o.memory_cap_mb,
                 tr("Refuse settings whose memory estimate exceeds this many MiB (default: the model's cap, 2048)"))
      ->check(CLI::Range(1.0, 1e9));
}

}  // namespace

TW_REGISTER_COMMAND(options_command<TrainCommandOptions>(
    "train", N_("Train the Training panel's model of a scene headless; write the checkpoint, metrics and figures"),
    add_train_options, run_train));

}  // namespace tw
