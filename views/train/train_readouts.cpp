#include "views/train/train_readouts.h"

#include <imgui.h>

#include <string>

#include "core/base/i18n.h"
#include "views/widgets.h"

namespace tw {

void draw_parameter_estimate(const TrainSnapshot& snap) {
  if (!snap.ready) return;
  const ModelConfig& m = snap.settings.model;
  const double total = double(parameter_count(m)), active = double(active_parameter_count(m));
  // Training holds each parameter four times in float32: weights, gradients and AdamW's two moments.
  const double mib = 4.0 * 4.0 * total / (1024.0 * 1024.0);
  if (m.moe())
    ImGui::TextWrapped(tr("parameters %.0f, active per token %.0f (%.0f%%); weights + grads + AdamW %.2f MiB"), total,
                       active, 100 * active / total, mib);
  else
    ImGui::TextWrapped(tr("parameters %.0f; weights + grads + AdamW %.2f MiB"), total, mib);
}

void draw_train_probe(const TrainSnapshot& snap) {
  ImGui::TextUnformatted(tr("probe:"));
  const TaskSample& p = snap.probe;
  for (size_t t = 0; t < p.tokens.size(); ++t) {
    ImGui::SameLine();
    const std::string tok = snap.task.token_string(p.tokens[t]);
    if (!p.answer[t]) {
      ImGui::TextDisabled("%s", tok.c_str());
      continue;
    }
    const bool right = t >= 1 && t - 1 < snap.probe_predictions.size() && snap.probe_predictions[t - 1] == p.tokens[t];
    role_text(right ? plot::UiRole::Good : plot::UiRole::Bad, tok.c_str());
    if (ImGui::IsItemHovered() && t >= 1 && t - 1 < snap.probe_predictions.size())
      ImGui::SetTooltip(tr("answer %s, model predicts %s"), tok.c_str(),
                        snap.task.token_string(snap.probe_predictions[t - 1]).c_str());
  }
  ImGui::SameLine();
  help_marker(tr("Grey: prompt. Coloured: answer tokens (green = the model's arg-max prediction is right)."));
}

}  // namespace tw
