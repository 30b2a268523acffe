// [SECTION] index
//   menu      : the three File menu items and their shortcuts
//   open      : path box + the shipped presets, one click each
//   save      : path box
//   model     : a Hugging Face folder for the forward stepper
//   export    : directory, formats, PNG scale, theme → export_open_panel_figures (same code as `export`)
#include "app/file_menu.h"

#include <imgui.h>
#include <imgui_internal.h>  // the current window's name, for the text-fit check
#include <imgui_stdlib.h>

#include <cstdio>
#include <filesystem>
#include <utility>

#include "app/export_figures.h"
#include "app/lesson_bar.h"
#include "app/scene.h"
#include "core/assets.h"
#include "core/base/i18n.h"
#include "views/forward/forward_panel.h"
#include "views/widgets.h"

namespace tw {

namespace {

constexpr const char* kOpenPopup = N_("Open scene");
constexpr const char* kSavePopup = N_("Save scene");
constexpr const char* kExportPopup = N_("Export figures");
constexpr const char* kModelPopup = N_("Open model folder");
// A popup's title in the interface language; its ImGui id ("###Open scene") stays the same in every language.
std::string popup_title(const char* id) { return std::string(tr(id)) + "###" + id; }

// Before a dialog's BeginPopupModal: centred on the screen every frame and never taller or wider than it, so its
// buttons stay on screen at any zoom (an auto-sized dialog that grows keeps its first place otherwise).
void keep_dialog_on_screen() {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->GetCenter(), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(vp->Size.x * 0.96f, vp->Size.y * 0.96f));
}

void show_message(const FileDialogs& d) {
  if (d.message.empty()) return;
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36.0f);
  if (d.message_is_error)
    role_text(plot::UiRole::Bad, d.message.c_str());
  else
    ImGui::TextUnformatted(d.message.c_str());
  ImGui::PopTextWrapPos();
}

void set_message(FileDialogs& d, std::string message, bool is_error) {
  d.message = std::move(message);
  d.message_is_error = is_error;
}

bool cancel_pressed() {
  return ImGui::Button(tr("Cancel")) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false);
}

// The foot of the open, save and model popups: the last message, Cancel (or Escape), the end of the popup.
void end_path_popup(const FileDialogs& d) {
  show_message(d);
  if (cancel_pressed()) ImGui::CloseCurrentPopup();
  check_item_fits(std::string(ImGui::GetCurrentWindow()->Name) + ": Cancel");
  ImGui::EndPopup();
}

// Loads a scene into the state; on failure the state is untouched and the message says why.
bool load_into_state(AppState& state, const std::string& path) {
  FileDialogs& d = state.file_dialogs;
  const SceneLoad r = load_scene_file(state, path);
  if (!r.ok) {
    set_message(d, r.error, true);
    state.status = subst(tr("Scene not loaded: {0}"), {r.error});
    return false;
  }
  state.status = subst(tr("Loaded {0}"), {path});
  if (!r.warnings.empty())
    state.status += subst(trn(" ({0} warning: {1})", " ({0} warnings: {1})", r.warnings.size()),
                          {std::to_string(r.warnings.size()), r.warnings.front()});
  return true;
}

}  // namespace

bool load_scene_into_state(AppState& state, const std::string& path) { return load_into_state(state, path); }

// [SECTION] menu
void draw_file_menu_items(AppState& state) {
  FileDialogs& d = state.file_dialogs;
  if (ImGui::MenuItem(tr("Open scene..."), "Ctrl+O")) d.requested = FileDialog::OpenScene;
  if (ImGui::MenuItem(tr("Save scene..."), "Ctrl+S")) d.requested = FileDialog::SaveScene;
  if (ImGui::MenuItem(tr("Open model folder..."))) d.requested = FileDialog::OpenModel;
  lesson_file_menu_item(state);
  if (ImGui::MenuItem(tr("Export figures..."), "Ctrl+E")) d.requested = FileDialog::ExportFigures;
}

void handle_file_shortcuts(AppState& state) {
  const ImGuiIO& io = ImGui::GetIO();
  if (!io.KeyCtrl || io.KeyShift || io.KeyAlt) return;  // Ctrl+Shift+O is the overview
  // One dialog at a time: a shortcut typed while a popup is open (even a text box) must not stack another.
  if (ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel)) return;
  FileDialogs& d = state.file_dialogs;
  if (ImGui::IsKeyPressed('O', false)) d.requested = FileDialog::OpenScene;
  if (ImGui::IsKeyPressed('S', false)) d.requested = FileDialog::SaveScene;
  if (ImGui::IsKeyPressed('E', false)) d.requested = FileDialog::ExportFigures;
}

// [SECTION] open
static void draw_open_popup(AppState& state) {
  FileDialogs& d = state.file_dialogs;
  keep_dialog_on_screen();
  if (!ImGui::BeginPopupModal(popup_title(kOpenPopup).c_str(), nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  ImGui::TextUnformatted(tr("Scene file (JSON):"));
  if (d.scene_browser.draw(tr("Open"))) {
    d.scene_path = d.scene_browser.path();
    if (load_into_state(state, d.scene_path)) ImGui::CloseCurrentPopup();
  }

  ImGui::Separator();
  ImGui::TextUnformatted(tr("Lecture presets"));
  if (d.presets.empty()) {
    ImGui::TextDisabled("%s", d.presets_dir.empty() ? tr("No presets found (no assets/scenes folder)")
                                                    : subst(tr("No presets found in {0}"), {d.presets_dir}).c_str());
  } else {
    ImGui::TextDisabled("%s", d.presets_dir.c_str());
    // The presets scroll in the room the screen leaves below the browser, above the message and Cancel (the foot
    // end_path_popup draws: a separator, the message, the button, the window's padding), never wider than the screen.
    const ImGuiStyle& style = ImGui::GetStyle();
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    float footer = 2 * style.ItemSpacing.y + 1.0f + ImGui::GetFrameHeight() + style.WindowPadding.y + 2.0f;
    if (!d.message.empty())
      footer +=
          ImGui::CalcTextSize(d.message.c_str(), nullptr, false, ImGui::GetFontSize() * 36.0f).y + style.ItemSpacing.y;
    const float room = vp->Size.y * 0.96f - ImGui::GetCursorPosY() - footer;
    const float width = std::min(ImGui::GetFontSize() * 42.0f, vp->Size.x * 0.96f - 2 * style.WindowPadding.x);
    ImGui::BeginChild("presets", ImVec2(width, std::max(room, ImGui::GetFrameHeight() * 2)));
    for (const ScenePreset& preset : d.presets) {
      ImGui::PushID(preset.path.c_str());
      // A preset loads but does not become the Save target: saving must never overwrite a shipped file.
      if (ImGui::Selectable(preset.name.c_str(), false, ImGuiSelectableFlags_DontClosePopups,
                            ImVec2(ImGui::GetFontSize() * 8.0f, 0)) &&
          load_into_state(state, preset.path))
        ImGui::CloseCurrentPopup();
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", preset.path.c_str());
      if (!preset.description.empty()) {
        ImGui::SameLine();
        // Descriptions are a sentence or three: wrap them in a column instead of widening the popup.
        math_text(preset_description(preset).c_str(), 0.0f, false, ImGui::GetColorU32(ImGuiCol_TextDisabled));
      }
      ImGui::PopID();
    }
    ImGui::EndChild();
  }
  ImGui::Separator();
  end_path_popup(d);
}

// [SECTION] save
static void draw_save_popup(AppState& state) {
  FileDialogs& d = state.file_dialogs;
  keep_dialog_on_screen();
  if (!ImGui::BeginPopupModal(popup_title(kSavePopup).c_str(), nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  ImGui::TextUnformatted(tr("Save the open panels, every control and the theme to:"));
  if (d.scene_browser.draw(tr("Save"))) {
    d.scene_path = d.scene_browser.path();
    std::string error;
    std::error_code ec;  // the default folder (under home) may not exist yet; a failure is reported by the save
    if (const std::filesystem::path parent = std::filesystem::path(d.scene_path).parent_path(); !parent.empty())
      std::filesystem::create_directories(parent, ec);
    if (save_scene_file(state, d.scene_path, &error)) {
      state.status = subst(tr("Saved scene to {0}"), {d.scene_path});
      ImGui::CloseCurrentPopup();
    } else {
      set_message(d, error, true);
      state.status = subst(tr("Scene not saved: {0}"), {error});
    }
  }
  end_path_popup(d);
}

// [SECTION] model
void open_model_folder(AppState& state, const std::string& dir, bool from_command_line) {
  PanelSlot* slot = state.find("forward");
  if (!slot) return;
  state.show_panel("forward");  // in front of the Training panel or whatever was there
  slot->panel->controls().find("model_dir")->set(dir);
  slot->panel->controls().find("model")->set("folder");
  state.status = subst(tr("Opening model folder {0} in the forward stepper\u2026"), {dir});
  state.opening_model = AppState::ModelOpening{.dir = dir, .from_command_line = from_command_line};
}

void report_model_opening(AppState& state) {
  if (!state.opening_model) return;
  PanelSlot* slot = state.find("forward");
  auto* forward = slot ? dynamic_cast<ForwardPanel*>(slot->panel.get()) : nullptr;
  if (!forward) {
    state.opening_model.reset();
    return;
  }
  if (state.opening_model->wait_frames-- > 0 || forward->loading_model()) return;  // the panel shows the progress
  const AppState::ModelOpening opening = *std::exchange(state.opening_model, std::nullopt);
  if (forward->folder_shown() == opening.dir) {
    state.status = subst(tr("Opened model folder {0}"), {opening.dir});
    return;
  }
  // Failed or cancelled: the stepper went back to the model it showed; say which one that is.
  const nlohmann::json shown = slot->panel->controls().find("model")->get();
  const std::string why = forward->error().empty() ? tr("the folder could not be opened") : forward->error();
  state.status = subst(tr("{0}; the forward stepper shows the {1} model instead"),
                       {why, shown.is_string() ? shown.get<std::string>()
                                               : shown.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)});
  if (opening.from_command_line)
    std::fprintf(stderr, "transformer-workbench: --model %s: %s\n", opening.dir.c_str(), why.c_str());
}

static void draw_model_popup(AppState& state) {
  FileDialogs& d = state.file_dialogs;
  keep_dialog_on_screen();
  if (!ImGui::BeginPopupModal(popup_title(kModelPopup).c_str(), nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 46.0f);  // the browser's width
  ImGui::TextUnformatted(
      tr("Hugging Face model folder (config.json, model.safetensors or shards, and tokenizer.json; without it the "
         "prompt is typed as token ids):"));
  ImGui::PopTextWrapPos();
  ImGui::TextDisabled("%s", tr("LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM; F32, F16 or BF16 tensors."));
  if (d.model_browser.draw(tr("Open"))) {
    d.model_dir = d.model_browser.path();
    std::error_code ec;
    if (!std::filesystem::is_directory(d.model_dir, ec)) {
      set_message(d, subst(tr("'{0}' is not a folder"), {d.model_dir}), true);
    } else {
      open_model_folder(state, d.model_dir);
      ImGui::CloseCurrentPopup();
    }
  }
  end_path_popup(d);
}

// [SECTION] export
// Runs File > Export with the app's settings; `existing` is the answer to "these files exist" (Ask the first time).
static void run_export(AppState& state, FigureExportRequest::Existing existing) {
  FileDialogs& d = state.file_dialogs;
  const ExportSettings& ex = state.exports;
  FigureExportRequest request;
  request.out_dir = ex.dir;
  request.formats = (ex.png ? plot::ExportFormat_Png : 0) | (ex.svg ? plot::ExportFormat_Svg : 0) |
                    (ex.csv ? plot::ExportFormat_Csv : 0);
  request.png_scale = static_cast<float>(ex.png_scale);
  request.slide = ex.slide;
  request.caption = ex.caption;
  request.theme = ex.print_theme ? Theme::Print : Theme::Dark;
  request.descriptive_names = true;
  request.existing = existing;
  const FigureExportResult result = export_open_panel_figures(state, request);
  d.existing = result.existing;
  if (!result.existing.empty()) {
    set_message(d, "", false);
    return;  // the popup asks: overwrite / keep both / cancel
  }
  const std::string summary = result.written.empty() && !result.errors.empty()
                                  ? subst(tr("Export failed: {0}"), {result.errors.front()})
                                  : result.summary();
  state.status = summary + (result.written.empty() ? "" : subst(tr(" into {0}"), {ex.dir}));
  if (result.ok())
    ImGui::CloseCurrentPopup();
  else
    set_message(d, summary, true);
}

static void draw_export_popup(AppState& state) {
  FileDialogs& d = state.file_dialogs;
  ExportSettings& ex = state.exports;
  keep_dialog_on_screen();
  if (!ImGui::BeginPopupModal(popup_title(kExportPopup).c_str(), nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  if (ImGui::IsWindowAppearing()) d.existing.clear();
  ImGui::TextUnformatted(tr("Every figure of every open panel, named <panel>-<figure>-<what it shows>.<ext>, into:"));
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 30.0f);
  ImGui::InputText((std::string(tr("Folder")) + "###Folder").c_str(), &ex.dir);
  ImGui::SameLine();
  browse_button("export_dir", d.export_browser, &ex.dir);
  const std::string dir_problem = export_dir_problem(ex.dir);
  if (!dir_problem.empty()) role_text(plot::UiRole::Bad, dir_problem.c_str());
  ImGui::TextDisabled("%s",
                      tr("The same settings apply to every figure's right-click menu; the folder is remembered."));
  ImGui::Checkbox("PNG", &ex.png);
  ImGui::SameLine();
  ImGui::Checkbox("SVG", &ex.svg);
  ImGui::SameLine();
  ImGui::Checkbox("CSV", &ex.csv);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10.0f);
  ImGui::SliderInt((std::string(tr("PNG scale")) + "###PNG scale").c_str(), &ex.png_scale,
                   static_cast<int>(kMinPngScale), static_cast<int>(kMaxPngScale), "%d\u00D7",
                   ImGuiSliderFlags_AlwaysClamp);
  ImGui::Checkbox(tr("16:9 slide (1280 \u00D7 720)"), &ex.slide);
  ImGui::SameLine();
  ImGui::Checkbox(tr("Caption (title and note)"), &ex.caption);
  ImGui::TextUnformatted(tr("Theme:"));
  ImGui::SameLine();
  if (ImGui::RadioButton(tr("Print (white)"), ex.print_theme)) ex.print_theme = true;
  ImGui::SameLine();
  if (ImGui::RadioButton(tr("Dark (screen)"), !ex.print_theme)) ex.print_theme = false;

  if (!d.existing.empty()) {  // an earlier click found files in the way: never overwrite without asking
    ImGui::Separator();
    role_text(plot::UiRole::Warning, subst(trn("{0} file exists in the folder, e.g. {1}",
                                               "{0} files exist in the folder, e.g. {1}", d.existing.size()),
                                           {std::to_string(d.existing.size()), d.existing.front()})
                                         .c_str());
    if (ImGui::Button(tr("Overwrite"))) run_export(state, FigureExportRequest::Existing::Overwrite);
    ImGui::SameLine();
    if (ImGui::Button(tr("Keep both (add -2)"))) run_export(state, FigureExportRequest::Existing::KeepBoth);
    ImGui::SameLine();
    if (ImGui::Button((std::string(tr("Cancel")) + "##existing").c_str())) d.existing.clear();

  } else {
    ImGui::BeginDisabled(!dir_problem.empty());
    if (ImGui::Button(tr("Export"))) run_export(state, FigureExportRequest::Existing::Ask);
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (cancel_pressed()) ImGui::CloseCurrentPopup();
  }
  show_message(d);
  ImGui::EndPopup();
}

void draw_file_dialogs(AppState& state) {
  FileDialogs& d = state.file_dialogs;
  switch (d.requested) {
    case FileDialog::None: break;
    case FileDialog::OpenScene:
      d.scene_browser.open(d.scene_path);
      d.presets_dir = presets_dir();
      d.presets = list_presets();
      ImGui::OpenPopup(popup_title(kOpenPopup).c_str());
      break;
    case FileDialog::SaveScene:
      d.scene_browser.open(d.scene_path);
      ImGui::OpenPopup(popup_title(kSavePopup).c_str());
      break;
    case FileDialog::ExportFigures: ImGui::OpenPopup(popup_title(kExportPopup).c_str()); break;
    case FileDialog::OpenModel:
      d.model_browser.open(d.model_dir.empty() ? find_asset_dir("models") : d.model_dir);
      ImGui::OpenPopup(popup_title(kModelPopup).c_str());
      break;
  }
  if (d.requested != FileDialog::None) set_message(d, "", false);
  d.requested = FileDialog::None;
  draw_open_popup(state);
  draw_save_popup(state);
  draw_export_popup(state);
  draw_model_popup(state);
}

}  // namespace tw
