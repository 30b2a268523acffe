#include "core/train/model_folder.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/base/i18n.h"
#include "core/base/json_parse.h"
#include "core/base/read_file.h"
#include "core/train/tasks.h"

namespace tw {

namespace fs = std::filesystem;

bool load_task_checkpoint(const std::string& dir, StepperModel* out, std::string* error) {
  const fs::path d(dir);
  // `train` writes run.json last: a folder it wrote into (metrics.csv) without one is a run that stopped half-way,
  // whose model may not match its scene. The shipped checkpoints carry no metrics and load as they are.
  std::error_code ec;
  if (fs::exists(d / "metrics.csv", ec) && !fs::exists(d / "run.json", ec)) {
    *error = subst(tr("'{0}' has no run.json, so the training run that wrote it did not finish; train again"), {dir});
    return false;
  }
  std::string scene_text;
  if (std::string why; !read_file_bounded((d / "scene.json").string(), kMaxConfigBytes, &scene_text, &why)) {
    *error = dir + ": " + tr("no scene.json (the training scene names the task and so the vocabulary)");
    return false;
  }
  const nlohmann::json scene = parse_json_or_discarded(scene_text);
  const nlohmann::json* values = scene.is_object() && scene.contains("values") ? &scene["values"] : nullptr;
  if (!values || !values->is_object()) {
    *error = (d / "scene.json").string() + ": " + tr("not a scene (no \"values\" object)");
    return false;
  }
  auto get_int = [&](const char* key, int fallback) {
    const auto it = values->find(key);
    return it != values->end() && it->is_number_integer() ? it->get<int>() : fallback;
  };
  TaskConfig tc;
  const auto kind = values->find("train.task");
  const std::string kind_name = kind != values->end() && kind->is_string() ? kind->get<std::string>() : "";
  bool known = false;
  for (TaskKind k : {TaskKind::Copy, TaskKind::Sort, TaskKind::Reverse, TaskKind::ModAdd, TaskKind::Text})
    if (kind_name == to_string(k)) tc.kind = k, known = true;
  if (!known) {
    *error = (d / "scene.json").string() + ": " + subst(tr("unknown train.task '{0}'"), {kind_name});
    return false;
  }
  tc.length = get_int("train.length", tc.length);
  tc.alphabet = get_int("train.alphabet", tc.alphabet);
  tc.modulus = get_int("train.modulus", tc.modulus);
  tc.context = get_int("train.context", tc.context);
  if (const auto vp = values->find("train.vary_period"); vp != values->end() && vp->is_boolean())
    tc.vary_period = vp->get<bool>();
  if (const auto tx = values->find("train.text"); tx != values->end() && tx->is_string())
    tc.text = tx->get<std::string>();
  Task task;
  if (!Task::create(tc, &task, error)) return false;

  ModelConfig config;
  if (!load_config((d / "config.json").string(), &config, error)) {
    *error = (d / "config.json").string() + ": " + *error;
    return false;
  }
  if (const std::string why = task.check_model(config); !why.empty()) {
    *error = dir + ": " + why;
    return false;
  }
  auto weights = std::make_shared<ModelWeights>();
  if (!load_weights((d / "model.safetensors").string(), config, weights.get(), error)) return false;

  *out = task_stepper_model(config, std::move(weights), task, subst(tr("trained {0}"), {tr(to_string(tc.kind))}),
                            subst(tr("checkpoint {0} (trained on the {1} task)"), {dir, tr(to_string(tc.kind))}));
  return true;
}

StepperModel task_stepper_model(const ModelConfig& config, std::shared_ptr<const ModelWeights> weights,
                                const Task& task, std::string name, std::string source) {
  StepperModel out;
  std::vector<std::string> strings;
  for (int id = 0; id < task.vocab(); ++id) strings.push_back(task.token_string(id));
  out.name = std::move(name);
  out.source = std::move(source);
  out.config = config;
  out.weights = std::move(weights);
  out.vocabulary =
      TokenVocabulary::symbols(std::move(strings), subst(tr("{0} task"), {tr(to_string(task.config().kind))}));
  // A held-out example without its last token: the model's next-token prediction is that token.
  const TaskSample probe = task.probe(1);
  for (size_t i = 0; i + 1 < probe.tokens.size(); ++i) out.example += task.token_string(probe.tokens[i]);
  return out;
}

bool load_hf_stepper_model(const std::string& dir, const std::function<bool(double)>& progress, StepperModel* out,
                           std::string* error) {
  std::error_code ec;
  if (!fs::exists(fs::path(dir) / "tokenizer.json", ec) && fs::exists(fs::path(dir) / "scene.json", ec))
    return load_task_checkpoint(dir, out, error);
  return load_hf_folder_model(dir, progress, out, error);
}

}  // namespace tw
