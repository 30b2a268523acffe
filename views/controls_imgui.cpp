// ImGui widgets for Controls (kept apart from controls.cpp, which headless code uses).
#include <imgui.h>
#include <imgui_internal.h>  // BeginComboPreview: a typeset formula as a combo's value
#include <imgui_stdlib.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "core/base/i18n.h"
#include "core/base/text_in_use.h"
#include "core/ops/attention.h"
#include "views/controls.h"
#include "views/plot/math.h"
#include "views/widgets.h"

namespace tw {

namespace {

// What a combo shows for an option: its translation, or core's formula when the option is an attention scale that
// scene files spell in ASCII ("1/sqrt(d_k)" is typed in a scene, $1/\sqrt{d_k}$ is what the reader sees).
std::string option_text(const std::string& name) {
  for (ScaleMode m : {ScaleMode::InvSqrtDk, ScaleMode::InvDk})
    if (name == scale_mode_name(m)) return scale_mode_formula(m);
  return tr(name.c_str());
}

bool draw_int_list(const Control& c, const char* label) {
  auto& values = *static_cast<std::vector<int>*>(c.target);
  std::string text;
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  if (!ImGui::InputText(label, &text, ImGuiInputTextFlags_EnterReturnsTrue)) return false;
  // Parse "3, 5, 2": keep only entries in range; a malformed entry leaves the list unchanged.
  std::vector<int> parsed;
  const char* p = text.c_str();
  while (*p) {
    while (*p == ' ' || *p == ',') ++p;
    if (!*p) break;
    char* end = nullptr;
    const long v = std::strtol(p, &end, 10);
    if (end == p || v < c.min || v > c.max) return false;
    parsed.push_back(static_cast<int>(v));
    p = end;
  }
  if (parsed.size() > static_cast<size_t>(c.max_items) || parsed == values) return false;
  values = std::move(parsed);
  return true;
}

}  // namespace

float combo_width_for_value(const Control& c) {
  if (c.type != ControlType::Enum) return 0.0f;
  const int v = c.get_index();
  const std::string preview = (v >= 0 && v < int(c.options.size())) ? option_text(c.options[size_t(v)]) : "?";
  return plot::label_width(preview, ImGui::GetFontSize()) + ImGui::GetFrameHeight() +
         2 * ImGui::GetStyle().FramePadding.x;
}

bool draw_control(const Control& c, bool label_above) {
  bool changed = false;
  ImGui::PushID(c.key.c_str());
  // The label in the interface language with an ImGui id that does not change with it (PushID(key) above makes
  // "###control" unique), so switching language keeps a slider's state. A label with a formula is drawn typeset after
  // the widget (ImGui would show its source).
  const std::string shown = tr(c.label.c_str());
  if (!label_above) {  // a label (and its "(?)") with no room beside the widget goes above it, wrapped, not cut
    const ImGuiStyle& style = ImGui::GetStyle();
    const float widget = c.type == ControlType::Bool ? ImGui::GetFrameHeight() : ImGui::CalcItemWidth();
    const float beside = plot::label_width(shown, ImGui::GetFontSize()) + style.ItemInnerSpacing.x +
                         (c.help.empty() ? 0.0f : ImGui::CalcTextSize("(?)").x + style.ItemSpacing.x);
    label_above = widget + beside > ImGui::GetContentRegionAvail().x + 0.5f;
  }
  const bool math = plot::has_math(shown) && !label_above;
  if (label_above) {
    math_text(shown.c_str(), 0.0f);
    if (!c.help.empty()) help_marker(tr(c.help.c_str()));
    ImGui::SetNextItemWidth(-FLT_MIN);
  }
  const std::string widget_label = math || label_above ? std::string("###control") : shown + "###control";
  const char* label = widget_label.c_str();
  switch (c.type) {
    case ControlType::Bool: changed = ImGui::Checkbox(label, static_cast<bool*>(c.target)); break;
    case ControlType::Int: {
      const ImGuiSliderFlags flags =
          ImGuiSliderFlags_AlwaysClamp | (c.log_scale ? ImGuiSliderFlags_Logarithmic : ImGuiSliderFlags_None);
      changed = ImGui::SliderInt(label, static_cast<int*>(c.target), int(c.min), int(c.max), "%d", flags);
      break;
    }
    case ControlType::Float: {
      const ImGuiSliderFlags flags =
          ImGuiSliderFlags_AlwaysClamp | (c.log_scale ? ImGuiSliderFlags_Logarithmic : ImGuiSliderFlags_None);
      changed = ImGui::SliderFloat(label, static_cast<float*>(c.target), float(c.min), float(c.max),
                                   c.format ? c.format : "%.3g", flags);
      break;
    }
    case ControlType::Enum: {
      const int v = c.get_index();
      // Option names stay English in the control (scene files store them); here they are translated, and the
      // ones that are formulas are typeset.
      const std::string preview = (v >= 0 && v < int(c.options.size())) ? option_text(c.options[v]) : "?";
      const bool typeset = plot::has_math(preview);
      const float room = ImGui::CalcItemWidth() - ImGui::GetFrameHeight() - 2 * ImGui::GetStyle().FramePadding.x;
      check_text_fits(c.key + " = \"" + preview + "\"", plot::label_width(preview, ImGui::GetFontSize()), room);
      // The list as wide as its longest option (ImGui makes it as narrow as the closed combo, cutting options).
      float widest = 0;
      for (const std::string& o : c.options)
        widest = std::max(widest, plot::label_width(option_text(o), ImGui::GetFontSize()));
      ImGui::SetNextWindowSizeConstraints(
          ImVec2(widest + 2 * ImGui::GetStyle().WindowPadding.x + ImGui::GetStyle().ScrollbarSize, 0),
          ImVec2(FLT_MAX, FLT_MAX));
      if (ImGui::BeginCombo(label, typeset ? "" : preview.c_str(), typeset ? ImGuiComboFlags_CustomPreview : 0)) {
        for (int i = 0; i < int(c.options.size()); ++i) {
          ImGui::PushID(i);
          const std::string shown = option_text(c.options[i]);
          bool picked;
          if (plot::has_math(shown)) {  // an empty selectable row with the formula drawn over it
            const ImVec2 at = ImGui::GetCursorPos();
            picked = ImGui::Selectable(
                "##option", i == v, 0,
                ImVec2(0, std::max(ImGui::GetTextLineHeight(), plot::label_height(shown, ImGui::GetFontSize()))));
            const ImVec2 after = ImGui::GetCursorPos();
            ImGui::SetCursorPos(at);
            math_text(shown.c_str(), -1.0f);
            ImGui::SetCursorPos(after);
          } else {
            picked = ImGui::Selectable(shown.c_str(), i == v);
          }
          ImGui::PopID();
          if (picked) {
            changed = (v != i);
            c.set_index(i);
          }
        }
        ImGui::EndCombo();
      }
      if (typeset && ImGui::BeginComboPreview()) {
        math_text(preview.c_str(), -1.0f);
        ImGui::EndComboPreview();
      }
      break;
    }
    case ControlType::Text: {
      auto* s = static_cast<std::string*>(c.target);
      note_text_in_use(*s);  // text from a scene or preset: the font atlas gains its characters (app/fonts.h)
      std::string edit = *s;
      if (ImGui::InputText(label, &edit) && edit.size() <= size_t(c.max)) {
        *s = edit;
        changed = true;
      }
      break;
    }
    case ControlType::IntList: changed = draw_int_list(c, label); break;
  }
  if (math) math_label(shown.c_str());
  if (!c.help.empty() && !label_above) help_marker(tr(c.help.c_str()));
  check_item_fits_across("control " + c.key + ": its label");  // the label (or its "(?)") whole, not cut at the edge
  ImGui::PopID();
  return changed;
}

}  // namespace tw
