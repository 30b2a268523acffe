// The Training panel's fine-tuning section (views/train/train_finetune.h).
#include "views/train/train_finetune.h"

#include <imgui.h>

#include <cstdio>
#include <filesystem>

#include "core/io/hf_model.h"
#include "core/io/user_dirs.h"
#include "core/text/i18n.h"
#include "core/train/lora_finetune.h"
#include "views/text/imgui_label.h"
#include "views/widgets.h"

namespace tw {

namespace {

// A train checkpoint (scene.json beside the weights) with its task's symbols, else a Hugging Face folder.
bool load_model_folder(const std::string& dir, StepperModel* out, std::string* error) {
  if (std::filesystem::exists(std::filesystem::path(dir) / "scene.json")) return load_task_checkpoint(dir, out, error);
  HfModel hf;
  if (!load_hf_model(dir, {}, &hf, error)) return false;
  out->name = std::filesystem::path(dir).filename().string();
  out->source = dir;
  out->config = hf.config;
  out->weights = std::make_shared<const ModelWeights>(std::move(hf.weights));
  out->vocabulary = nullptr;
  return true;
}

std::string plot_percent(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", p);
  return buf;
}

}  // namespace

TrainFinetune::TrainFinetune() {
  const std::string start = user_work_dir() + "/checkpoints/lora";
  std::snprintf(dir, sizeof dir, "%s", start.c_str());
}

bool TrainFinetune::apply(TrainSettings* t, std::string* error) const {
  if (!enabled) return true;
  if (!model) {
    *error = tr("fine-tuning: load a model first");
    return false;
  }
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

std::string TrainFinetune::label() const {
  if (!enabled || !model) return "";
  const std::string base = " (" + model->name + ")";
  if (!lora) return ", " + std::string(tr("full fine-tune")) + base;
  char buf[64];
  std::snprintf(buf, sizeof buf, ", LoRA r = %d, \xCE\xB1 = %.3g%s", r, alpha, rslora ? ", rsLoRA" : "");
  return buf + base;
}

void TrainFinetune::draw(const TrainSnapshot& snap) {
  auto adopt = [&](StepperModel m) {
    status = subst(tr("loaded {0}: {1} parameters"), {m.name, std::to_string(parameter_count(m.config))});
    model = std::make_shared<const StepperModel>(std::move(m));
    ++version;
  };
  if (ImGui::Checkbox(imgui_label(tr("start from a loaded model"), "ft_enabled").c_str(), &enabled)) ++version;
  ImGui::SameLine();
  help_marker(
      tr("Fine-tune: the run starts from the loaded model's weights instead of a fresh init (the task must "
         "fit its vocabulary and context)."));
  if (!enabled) return;
  for (const char* name : {"sort", "induction"}) {
    if (ImGui::SmallButton(imgui_label(subst(tr("trained {0}"), {name}).c_str(), name).c_str())) {
      StepperModel m;
      std::string error;
      if (load_task_checkpoint(shipped_models_dir() + "/" + name, &m, &error))
        adopt(std::move(m));
      else
        status = error;
    }
    ImGui::SameLine();
  }
  if (ImGui::SmallButton(imgui_label(tr("Load model folder"), "ft_load_model").c_str())) {
    StepperModel m;
    std::string error;
    if (load_model_folder(dir, &m, &error))
      adopt(std::move(m));
    else
      status = error;
  }
  ImGui::SetNextItemWidth(240);
  ImGui::InputText("##ft_dir", dir, sizeof dir);
  ImGui::SameLine();
  help_marker(
      tr("Folder of a model to load (a saved run or a Hugging Face folder), or of an adapter "
         "(adapter_config.json + adapter_model.safetensors, peft's layout) to save or load."));

  int method = lora ? 1 : 0;
  if (ImGui::RadioButton(imgui_label(tr("full fine-tuning"), "ft_full").c_str(), &method, 0)) ++version;
  ImGui::SameLine();
  if (ImGui::RadioButton("LoRA##ft_lora", &method, 1)) ++version;
  lora = method == 1;
  if (lora) {
    ImGui::SetNextItemWidth(150);
    if (ImGui::SliderInt(imgui_label(tr("rank r"), "ft_r").c_str(), &r, 1, 64)) ++version;
    ImGui::SetNextItemWidth(150);
    if (ImGui::SliderFloat(imgui_label(tr("LoRA alpha"), "ft_alpha").c_str(), &alpha, 0.5f, 256.0f, "%.3g",
                           ImGuiSliderFlags_Logarithmic))
      ++version;
    if (ImGui::Checkbox(imgui_label(tr("rsLoRA"), "ft_rslora").c_str(), &rslora)) ++version;
    for (int i = 0; i < kLoraModules; ++i) {
      if (i % 4 != 0) ImGui::SameLine();
      if (ImGui::Checkbox(peft_module_name(static_cast<LoraModule>(i)), &targets[i])) ++version;
    }
    ImGui::TextWrapped("%s", tr("dropout 0; A Kaiming-uniform, B = 0: step 0 is the base model"));
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
      adopt(std::move(m));
    }
  }
  ImGui::SameLine();
  help_marker(
      tr("Save writes the run's adapter in peft's layout; Load merges an adapter into the loaded model, which "
         "then starts the next run. The checkpoint row's Save writes the merged model."));
  if (!status.empty()) ImGui::TextWrapped("%s", status.c_str());
}

}  // namespace tw
