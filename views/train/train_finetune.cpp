// The Training panel's fine-tuning section (views/train/train_finetune.h).
#include "views/train/train_finetune.h"

#include <imgui.h>

#include <cstdio>
#include <utility>

#include "core/base/i18n.h"
#include "core/io/user_dirs.h"
#include "core/train/lora_finetune.h"
#include "core/train/model_folder.h"
#include "views/text/imgui_label.h"
#include "views/widgets.h"

namespace tw {

namespace {

// The shipped trained models a fine-tune can start from by name (assets/models/<name>).
constexpr const char* kShippedStarts[] = {"sort", "induction"};

std::string plot_percent(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", p);
  return buf;
}

}  // namespace

TrainFinetune::TrainFinetune() {
  const std::string first = user_work_dir() + "/checkpoints/lora";
  std::snprintf(dir, sizeof dir, "%s", first.c_str());
}

void TrainFinetune::bind(Controls& c) {
  c.add_bool("ft_enabled", &enabled, N_("start from a loaded model"),
             N_("Fine-tune: the run starts from the loaded model's weights instead of a fresh init (the task must "
                "fit its vocabulary and context)."));
  c.add_text("ft_start", &start, int(sizeof dir) - 1, N_("start model"),
             N_("The model to fine-tune: sort or induction (the shipped trained models), or a model folder (a saved "
                "run or a Hugging Face folder)."));
  c.add_bool("ft_lora", &lora, N_("LoRA"), N_("Train LoRA adapters on the chosen modules; off: full fine-tuning."));
  c.add_int("ft_r", &r, 1, 64, N_("rank $r$"),
            N_("Rank of each adapter: $A$ is $r \\times d_{in}$, $B$ is $d_{out} \\times r$."), true);
  c.add_float("ft_alpha", &alpha, 0.5f, 256.0f, N_("LoRA alpha"), N_("The update is scaled by $\\alpha / r$."), true,
              "%.3g");
  c.add_bool("ft_rslora", &rslora, N_("rsLoRA"), N_("Scale by $\\alpha / \\sqrt{r}$ instead of $\\alpha / r$."));
  for (int i = 0; i < kLoraModules; ++i) {
    const std::string module = peft_module_name(static_cast<LoraModule>(i));
    c.add_bool("ft_" + module, &targets[i], module,
               N_("Adapt this projection in every block (peft's target_modules)."));
  }
}

bool TrainFinetune::adopt() {
  if (!load_job_.take_fresh() || !load_job_.result()) return false;
  const Load& r = *load_job_.result();
  if (r.start != loading_) return false;  // an older request's result
  loading_.clear();
  if (r.ok) {
    status = subst(tr("loaded {0}: {1} parameters"), {r.model.name, std::to_string(parameter_count(r.model.config))});
    model = std::make_shared<const StepperModel>(r.model);
    loaded_start_ = r.start;
  } else {
    failed_start_ = r.start;  // the loaded model and the run stay
    status = failed_error_ = subst(tr("Could not open {0}: {1}"), {r.start, r.error});
  }
  ++version;  // the panel applies the settings again: a new run, or the error beside the old run
  return true;
}

bool TrainFinetune::poll(bool worker) {
  worker_ = worker;
  return adopt();
}

void TrainFinetune::wait() {
  load_job_.wait();
  adopt();
}

bool TrainFinetune::sync(std::string* error) {
  if (!enabled || start.empty() || start == loaded_start_) return true;
  if (start == failed_start_) {
    *error = failed_error_;
    return false;
  }
  if (loading_ != start) {
    loading_ = start;
    bool shipped = false;
    for (const char* name : kShippedStarts) shipped = shipped || start == name;
    // The shipped checkpoints are tens of kB: the UI waits for them. A folder may be gigabytes: the worker loads it.
    load_job_.request(shipped || !worker_, worker_, [s = start](Progress& p) {
      auto out = std::make_shared<Load>();
      out->start = s;
      bool shipped_model = false;
      for (const char* name : kShippedStarts) shipped_model = shipped_model || s == name;
      out->ok = shipped_model ? load_task_checkpoint(shipped_models_dir() + "/" + s, &out->model, &out->error)
                              : load_hf_stepper_model(
                                    s,
                                    [&p](double f) {
                                      p.set(static_cast<float>(f));
                                      return !p.cancelled();
                                    },
                                    &out->model, &out->error);
      return std::shared_ptr<const Load>(std::move(out));
    });
    adopt();
  }
  if (start == loaded_start_) return true;
  if (start == failed_start_) {
    *error = failed_error_;
    return false;
  }
  *error = subst(tr("loading {0}..."), {start});  // the run stays until it has loaded
  return false;
}

bool TrainFinetune::apply(TrainSettings* t, std::string* error) {
  if (!enabled) return true;
  if (!sync(error)) return false;
  if (!model) {
    *error = tr("fine-tuning: load a model first");
    return false;
  }
  // Text goes through the model's own tokenizer: a language task encodes with the folder's tokenizer.json, and
  // the character-level text task only fits a model trained on such a task (its vocabulary is the characters).
  const bool text = t->task.kind == TaskKind::Language || t->task.kind == TaskKind::Text;
  const bool symbols = model->vocabulary && model->vocabulary->kind() == TokenVocabulary::Kind::Symbols;
  if (text && model->tokenizer_json.empty() && (t->task.kind == TaskKind::Language || !symbols)) {
    *error =
        subst(tr("{0} has no tokenizer.json: fine-tuning on a text needs the model's own tokenizer"), {model->name});
    return false;
  }
  if (t->task.kind == TaskKind::Text && !symbols) {
    *error = subst(tr("{0} reads text through its own tokenizer: fine-tune it on the language task (corpus "
                      "\"file\" for a text of your own)"),
                   {model->name});
    return false;
  }
  if (t->task.kind == TaskKind::Language) t->task.language.tokenizer_json = model->tokenizer_json;
  const double cap = t->model.memory_cap_mb;
  t->model = model->config;
  t->model.memory_cap_mb = cap;
  t->start_weights = model->weights;
  t->lora = lora;
  uint32_t bits = 0;
  for (int i = 0; i < kLoraModules; ++i)
    if (targets[i]) bits |= lora_target_bit(static_cast<LoraModule>(i));
  t->lora_spec = {.r = r, .alpha = alpha, .rslora = rslora, .targets = bits, .seed = t->seed};
  return true;
}

std::string TrainFinetune::language_tokenizer() const { return enabled && model ? model->tokenizer_json : ""; }

std::string TrainFinetune::label() const {
  if (!enabled || !model) return "";
  const std::string base = " (" + model->name + ")";
  if (!lora) return ", " + std::string(tr("full fine-tune")) + base;
  char buf[64];
  std::snprintf(buf, sizeof buf, ", LoRA r = %d, \xCE\xB1 = %.3g%s", r, alpha, rslora ? ", rsLoRA" : "");
  return buf + base;
}

void TrainFinetune::draw(const TrainSnapshot& snap, const Controls& controls) {
  const auto control = [&](const char* key) {
    if (const Control* c = controls.find(key)) {
      ImGui::SetNextItemWidth(150);
      draw_control(*c);  // a changed control restarts the run (the panel compares its controls)
    }
  };
  control("ft_enabled");
  if (!enabled) return;
  // The start model: a shipped one by name, or the folder typed below (sync loads it when the run restarts).
  for (const char* name : kShippedStarts) {
    if (ImGui::SmallButton(imgui_label(subst(tr("trained {0}"), {name}).c_str(), name).c_str())) start = name;
    ImGui::SameLine();
  }
  if (ImGui::SmallButton(imgui_label(tr("Load model folder"), "ft_load_model").c_str())) {
    start = dir;
    loaded_start_.clear();  // the same folder again: load it again (it may have changed on disk)
    failed_start_.clear();
    ++version;
  }
  if (!loading_.empty() && load_job_.busy() &&
      job_progress(load_job_.progress(), subst(tr("loading {0}..."), {loading_}).c_str())) {
    load_job_.cancel();
    failed_start_ = std::exchange(loading_, std::string());
    status = failed_error_ = tr("Loading cancelled; the previous model stays.");
    ++version;
  }
  ImGui::SetNextItemWidth(240);
  ImGui::InputText("##ft_dir", dir, sizeof dir);
  ImGui::SameLine();
  help_marker(
      tr("Folder of a model to load (a saved run or a Hugging Face folder), or of an adapter "
         "(adapter_config.json + adapter_model.safetensors, peft's layout) to save or load."));

  control("ft_start");
  if (snap.task.language() && !language_tokenizer().empty())  // the task's tokenizer controls do not apply
    ImGui::TextWrapped("%s", subst(tr("the text is encoded with the tokenizer.json of {0} ({1} tokens)"),
                                   {model->name, std::to_string(snap.task.language()->tokenizer.vocab_size())})
                                 .c_str());
  control("ft_lora");
  if (lora) {
    control("ft_r");
    control("ft_alpha");
    control("ft_rslora");
    for (int i = 0; i < kLoraModules; ++i) {
      if (i % 4 != 0) ImGui::SameLine();
      const std::string key = std::string("ft_") + peft_module_name(static_cast<LoraModule>(i));
      if (const Control* c = controls.find(key)) ImGui::Checkbox(c->label.c_str(), static_cast<bool*>(c->target));
    }
    math_text(tr("dropout 0; $A$ Kaiming-uniform, $B$ = 0: step 0 is the base model"));
    if (snap.lora) {
      const double all = double(parameter_count(snap.settings.model));
      // xgettext:no-c-format
      const char* trains = tr("this run trains {0} adapter weights ({1}% of the model's {2})");
      ImGui::TextWrapped("%s", subst(trains, {std::to_string(snap.lora->trainable()),
                                              plot_percent(100.0 * double(snap.lora->trainable()) / all),
                                              std::to_string(int64_t(all))})
                                   .c_str());
    }
  }
  if (ImGui::SmallButton(imgui_label(tr("Save adapter"), "ft_save_adapter").c_str())) {
    std::string error;
    if (!snap.lora)
      status = tr("the current run has no LoRA adapter");
    else if (save_peft_adapter(dir, *snap.lora, model ? model->name : "", &error))
      status = subst(tr("saved the adapter of step {0} to {1}"), {std::to_string(snap.step), dir});
    else
      status = error;
  }
  ImGui::SameLine();
  if (ImGui::SmallButton(imgui_label(tr("Load adapter onto the base"), "ft_load_adapter").c_str())) {
    LoraModel adapter;
    std::string error;
    if (!model)
      status = tr("fine-tuning: load a model first");
    else if (!load_peft_adapter(dir, model->config, &adapter, nullptr, &error))
      status = error;
    else {
      StepperModel m = *model;
      m.name = subst(tr("{0} + adapter"), {model->name});
      m.weights = std::make_shared<const ModelWeights>(lora_merged(*model->weights, adapter));
      status = subst(tr("loaded {0}: {1} parameters"), {m.name, std::to_string(parameter_count(m.config))});
      model = std::make_shared<const StepperModel>(std::move(m));
      start.clear();  // the merged model is no file: keep it until another start model is chosen
      loaded_start_.clear();
      ++version;
    }
  }
  ImGui::SameLine();
  help_marker(
      tr("Save writes the run's adapter in peft's layout; Load merges an adapter into the loaded model, which "
         "then starts the next run. The checkpoint row's Save writes the merged model."));
  if (!status.empty()) ImGui::TextWrapped("%s", status.c_str());
}

}  // namespace tw
