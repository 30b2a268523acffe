// The Training panel's checkpoint row (views/train/train_checkpoint.h).
#include "views/train/train_checkpoint.h"

#include <imgui.h>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "core/base/i18n.h"
#include "core/io/atomic_file.h"
#include "core/io/user_dirs.h"
#include "core/model/config.h"
#include "core/model/weights.h"
#include "core/train/model_folder.h"
#include "views/handoffs.h"
#include "views/text/imgui_label.h"
#include "views/widgets.h"

namespace tw {

void open_in_stepper(const TrainSnapshot& snap, Handoffs& handoffs) {
  // Dense and mixture-of-experts runs alike: the stepper records the router, the loads and the drops as steps.
  handoffs.post_model(
      "forward", task_stepper_model(snap.settings.model, std::make_shared<const ModelWeights>(snap.weights), snap.task,
                                    tr("Training panel model"),
                                    subst(tr("the Training panel's model at step {0}"), {std::to_string(snap.step)})));
}

TrainCheckpoint::TrainCheckpoint() {
  const std::string start = user_work_dir() + "/checkpoints/train";
  std::snprintf(dir, sizeof dir, "%s", start.c_str());
}

void TrainCheckpoint::draw(const TrainSnapshot& snap, TrainerSession& session, Handoffs& handoffs) {
  ImGui::SetNextItemWidth(200);
  ImGui::InputText("##dir", dir, sizeof dir);
  ImGui::SameLine();
  if (std::string chosen = dir; browse_button("checkpoint_dir", browser, &chosen))
    std::snprintf(dir, sizeof dir, "%s", chosen.c_str());
  ImGui::SameLine();
  help_marker(
      tr("Directory for model.safetensors + config.json (Hugging Face names; bench/pytorch_forward.py loads it)."));
  if (ImGui::Button(imgui_label(tr("Save"), "save").c_str()) && snap.ready) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const std::filesystem::path d(dir);
    std::string error;
    if (!ec && save_weights((d / "model.safetensors").string(), snap.weights, snap.settings.model, &error) &&
        save_config((d / "config.json").string(), snap.settings.model, &error) &&
        (!snap.task.language() ||  // a language model's folder also needs its tokenizer to open in the stepper
         write_file_atomic((d / "tokenizer.json").string(), snap.task.language()->tokenizer_json, &error)))
      status = subst(tr("saved step {0} to {1}"), {std::to_string(snap.step), d.string()});
    else
      status = ec ? subst(tr("cannot create {0}: {1}"), {d.string(), ec.message()}) : error;
  }
  ImGui::SameLine();
  if (ImGui::Button(imgui_label(tr("Load"), "load").c_str())) {
    std::string error;
    status = session.load_checkpoint(dir, &error) ? subst(tr("loaded {0}"), {dir}) : error;
  }
  ImGui::SameLine();
  if (ImGui::Button(imgui_label(tr("Open in forward stepper"), "open_forward").c_str()) && snap.ready)
    open_in_stepper(snap, handoffs);
  help_marker(tr("Hands a copy of the current weights to the Forward pass stepper (training goes on here)."));
  if (!status.empty()) ImGui::TextWrapped("%s", status.c_str());
}

}  // namespace tw
