// The lesson bar, the start page's lessons and lesson progress (app/lesson_bar.h).
//
// [SECTION] the run: lessons loaded, progress, the step's UI state
// [SECTION] opening lessons and steps
// [SECTION] the lesson window
// [SECTION] start page and File menu
#include "app/lesson_bar.h"

#include <imgui.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "app/layout.h"
#include "app/lesson_scene.h"
#include "app/slide_mode.h"
#include "core/base/json_parse.h"
#include "core/base/read_file.h"
#include "core/io/atomic_file.h"
#include "core/io/user_dirs.h"
#include "core/lessons/exercise_check.h"
#include "core/lessons/lesson_progress.h"
#include "views/plot/plot_imgui.h"
#include "views/presenter_keys.h"
#include "views/widgets.h"

namespace tw {

// [SECTION] the run

struct LessonRun {
  std::vector<Lesson> lessons;           // the shipped ones in order, then any opened from a file
  std::vector<std::string> load_errors;  // shipped files that failed to load (shown on the start page)
  LessonProgress progress;
  int current = -1;  // index into lessons of the lesson in the bar (-1: none)
  int step = 0;      // its step shown
  // The step's exercise, as the learner left it.
  char typed[64] = "";
  int hints_shown = 0;
  ExerciseAttempts attempts;                 // failed checks and whether the solution was asked for
  std::optional<CheckResult> number_result;  // the last "Check" of a number exercise
  CheckResult state_result;                  // the live check of a state exercise
  std::string values_seen;                   // the scene values the live check last ran on
  bool restore_overview = false;             // the overview was open before the lesson took its column
  bool place_window = false;                 // put the lesson window in the side column next frame
  bool own_work_saved = false;               // before-lesson.json holds the work from before this lesson run
  // File > Open lesson...
  bool open_file_requested = false;
  std::string file_path = user_work_dir() + "/my-lesson.json";
  std::string file_error;
};

namespace {

std::string config_file(const char* name) {
  const std::string session = last_session_path();
  if (session.empty()) return {};
  return (std::filesystem::path(session).parent_path() / name).string();
}

void save_progress(const LessonRun& run) {
  const std::string path = lesson_progress_path();
  if (path.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  std::string error;
  write_file_atomic(path, progress_to_json(run.progress).dump(2) + "\n", &error);  // best effort, like the session
}

LessonRun& run_of(AppState& state) {
  if (!state.lessons) {
    state.lessons = std::make_shared<LessonRun>();
    LessonRun& run = *state.lessons;
    run.lessons = load_shipped_lessons(state, &run.load_errors);
    std::string text, error;
    const std::string path = lesson_progress_path();
    if (!path.empty() && read_file_bounded(path, 1 << 20, &text, &error))
      run.progress = progress_from_json(parse_json_or_discarded(text, 8));
  }
  return *state.lessons;
}

const Lesson* current_lesson(const LessonRun& run) {
  return run.current >= 0 && size_t(run.current) < run.lessons.size() ? &run.lessons[size_t(run.current)] : nullptr;
}

void reset_exercise_ui(LessonRun& run) {
  run.typed[0] = '\0';
  run.hints_shown = 0;
  run.attempts = {};
  run.number_result.reset();
  run.state_result = {};
  run.values_seen.clear();
}

// [SECTION] opening lessons and steps

// The panel a step puts forward: the one with its "look at" figure, else the first it opens.
std::string step_panel(const AppState& state, const LessonStep& step) {
  if (!step.look_panel.empty()) return step.look_panel;
  for (const PanelSlot& slot : state.panels)
    if (slot.open) return slot.info.id;
  return "";
}

// Applies step `index` of the current lesson (its scene, the highlight) and remembers it. The presentation mode the
// lecturer is in (slide mode, a focused panel) stays on, moved to the new step's panel: a step's scene would turn it
// off, and a clicker must never drop the projector back to the desk.
void go_to_step(AppState& state, LessonRun& run, int index, const nlohmann::json& extra = nlohmann::json::object()) {
  const Lesson* lesson = current_lesson(run);
  if (!lesson || lesson->steps.empty()) return;
  index = std::clamp(index, 0, int(lesson->steps.size()) - 1);
  const LessonStep& step = lesson->steps[size_t(index)];
  const bool was_slide = state.slide.on(), was_focused = !state.focused.empty();
  const SceneLoad loaded = apply_lesson_step(state, step, extra);
  if (!loaded.ok) {
    state.status = subst(tr("Lesson step not applied: {0}"), {loaded.error});
    return;
  }
  if (const std::string panel = step_panel(state, step); !panel.empty()) {
    if (was_slide && !state.slide.on())
      enter_slide_mode(state, panel, step.look_panel == panel ? step.look_figure : std::string());
    if (was_focused && state.focused.empty()) state.toggle_focus(panel);
  }
  if (run.step != index || extra.empty()) reset_exercise_ui(run);
  run.step = index;
  run.progress.lesson = lesson->id;
  run.progress.open = true;
  run.progress.steps[lesson->id] = index;
  save_progress(run);
  plot::set_highlighted_figure(step.look_panel, step.look_figure);
  state.show_start_page = false;
}

void open_lesson(AppState& state, LessonRun& run, int index, int step) {
  if (index < 0 || size_t(index) >= run.lessons.size()) return;
  if (!run.own_work_saved) {  // the user's own work first: every step's scene replaces the whole state
    const std::string path = config_file("before-lesson.json");
    std::string error;
    if (!path.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
      run.own_work_saved = save_scene_file(state, path, &error);
    }
  }
  if (current_lesson(run) == nullptr) {
    run.restore_overview = state.show_overview;
    state.show_overview = false;  // the lesson takes the overview's column
  }
  run.current = index;
  run.place_window = true;
  state.tiling.retile = true;  // the panels move over to leave the lesson its column
  run.step = -1;
  go_to_step(state, run, step < 0 ? run.progress.step_of(run.lessons[size_t(index)].id) : step);
}

void close_lesson(AppState& state, LessonRun& run, bool back_to_own_work) {
  if (back_to_own_work && run.own_work_saved) {
    const SceneLoad loaded = load_scene_file(state, config_file("before-lesson.json"));
    state.status = loaded.ok ? std::string(tr("Your own work is back as it was before the lesson"))
                             : subst(tr("Could not restore your own work: {0}"), {loaded.error});
    run.own_work_saved = false;
  }
  run.current = -1;
  run.progress.open = false;
  save_progress(run);
  plot::set_highlighted_figure("", "");
  if (run.restore_overview) state.show_overview = true;
  // Nothing open any more (the work before the lesson was an empty desk): the start page, as at a first start.
  state.show_start_page = std::none_of(state.panels.begin(), state.panels.end(), [](const auto& p) { return p.open; });
}

// [SECTION] the lesson window

// "First set <control label> to <value>": the label and value as the panel shows them, not the scene key.
std::string unmet_text(const AppState& state, const std::string& key, const nlohmann::json& wants) {
  std::string label = key, value = wants.is_string() ? wants.get<std::string>() : wants.dump();
  const size_t dot = key.find('.');
  for (const PanelSlot& slot : state.panels) {
    if (dot == std::string::npos || !slot.panel || slot.info.id != key.substr(0, dot)) continue;
    const Control* c = slot.panel->controls().find(key.substr(dot + 1));
    if (!c) break;
    label = tr(c->label.c_str());
    if (wants.is_boolean())
      value = wants.get<bool>() ? tr("checked") : tr("unchecked");
    else if (wants.is_string() && c->type == ControlType::Enum)
      value = tr(wants.get<std::string>().c_str());
    else if (wants.is_string() && c->type == ControlType::Text)
      value = "\u201C" + value + "\u201D";
    break;
  }
  return subst(tr("First set \u201C{0}\u201D to {1}"), {label, value});
}

const char* op_symbol(CheckOp op) {
  switch (op) {
    case CheckOp::Less: return "<";
    case CheckOp::LessEqual: return "\xE2\x89\xA4";  // ≤
    case CheckOp::Greater: return ">";
    case CheckOp::GreaterEqual: return "\xE2\x89\xA5";  // ≥
    case CheckOp::Equal: return "=";
  }
  return "";
}

void draw_exercise(AppState& state, LessonRun& run, const Lesson& lesson, const LessonStep& step) {
  const Exercise& ex = *step.exercise;
  const float wrap = 0.0f;
  ImGui::Separator();
  role_text(plot::UiRole::Formula, tr("Exercise"));
  math_text(ex.question.here().c_str(), wrap);
  const bool done = run.progress.is_done(lesson.id, step.id);
  if (ex.check.kind == CheckKind::State) {
    // Live: the check runs whenever the settings change, but not while a slider is dragged or a number typed (typing
    // 0.5 passes through 0, which must not solve the exercise on the way).
    const nlohmann::json values = current_scene_values(state);
    std::string seen = values.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (seen != run.values_seen && !ImGui::IsAnyItemActive()) {
      run.values_seen = std::move(seen);
      run.state_result = check_exercise_state(ex.check, values);
      if (run.state_result.status == CheckStatus::Passed && !done) {
        run.progress.mark_done(lesson.id, step.id);
        save_progress(run);
      }
    }
    const CheckResult& r = run.state_result;
    if (r.status == CheckStatus::Passed) {
      char now[64];
      std::snprintf(now, sizeof now, "%.4g", r.actual ? *r.actual : 0.0);
      check_mark(true, subst(tr("Solved: now {0}"), {now}).c_str());
    } else if (!r.unmet_key.empty()) {
      check_mark(false, unmet_text(state, r.unmet_key, r.unmet_wants).c_str());
    } else if (r.actual) {
      char now[64];
      std::snprintf(now, sizeof now, "%.4g", *r.actual);
      char goal[96];
      const double tol = ex.check.relative ? ex.check.tolerance * std::fabs(ex.check.value) : ex.check.tolerance;
      const bool count = ex.check.value == std::round(ex.check.value) && tol <= 0.5;  // "= 2", not "= 2 ± 0.5"
      if (ex.check.op == CheckOp::Equal && !count)  // = 20 ± 0.2: the tolerance is part of the goal
        std::snprintf(goal, sizeof goal, "= %.4g \u00B1 %.2g", ex.check.value, tol);
      else
        std::snprintf(goal, sizeof goal, "%s %.4g", op_symbol(ex.check.op), ex.check.value);
      check_mark(false, subst(tr("Not yet: now {0}, the goal is {1}"), {now, goal}).c_str());
    } else {
      check_mark(false, tr("Cannot be checked with the current settings"));
    }
    if (done && r.status != CheckStatus::Passed) role_text(plot::UiRole::Good, tr("(solved before)"));
    if (run.attempts.failed_checks > 0 && r.status != CheckStatus::Passed)
      role_text(plot::UiRole::Link, tr(failed_check_message(run.attempts)));
    // A check the learner asks for: when the goal is not met it counts as a failed attempt (the second shows the
    // solution).
    if (ImGui::Button(tr("Check"))) {
      run.state_result = check_exercise_state(ex.check, values);
      run.values_seen = std::move(seen);
      run.attempts.record(run.state_result.status);
      if (run.state_result.status == CheckStatus::Passed && !done) {
        run.progress.mark_done(lesson.id, step.id);
        save_progress(run);
      }
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s",
                        tr("The verdict above follows your settings; Check asks for it (a second Check while the goal "
                           "is not met shows the solution)"));
    ImGui::SameLine();
  } else {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    const bool enter = ImGui::InputText("##answer", run.typed, sizeof run.typed,
                                        ImGuiInputTextFlags_EnterReturnsTrue | ImGuiInputTextFlags_CharsScientific);
    ImGui::SameLine();
    if (ImGui::Button(tr("Check")) || enter) {
      double typed = 0;
      const char* end = run.typed + std::strlen(run.typed);
      const auto [ptr, ec] = std::from_chars(run.typed, end, typed);
      if (ec != std::errc() || ptr != end || !std::isfinite(typed)) {
        run.number_result = CheckResult{};
        run.number_result->status = CheckStatus::NotYet;
      } else {
        run.number_result = check_exercise_number(ex.check, current_scene_values(state), typed);
        if (run.number_result->status == CheckStatus::Passed) {
          run.progress.mark_done(lesson.id, step.id);
          save_progress(run);
        }
      }
      run.attempts.record(run.number_result->status);
    }
    if (run.number_result) {
      if (run.number_result->status == CheckStatus::Passed)
        check_mark(true, tr("Correct"));
      else if (run.number_result->status == CheckStatus::Unavailable)
        check_mark(false, tr("Cannot be checked with the current settings"));
      else
        check_mark(false, tr(failed_check_message(run.attempts)));
    } else if (done) {
      role_text(plot::UiRole::Good, tr("(solved before)"));
    }
  }
  const bool solution = solution_visible(run.attempts);
  // Hints one at a time; the solution on request or after a second failed check.
  for (int h = 0; h < run.hints_shown && size_t(h) < ex.hints.size(); ++h) {
    ImGui::Bullet();
    ImGui::SameLine();
    math_text(ex.hints[size_t(h)].here().c_str(), wrap);
  }
  if (size_t(run.hints_shown) < ex.hints.size()) {
    if (ImGui::Button(run.hints_shown == 0 ? tr("Hint") : tr("Another hint"))) ++run.hints_shown;
    ImGui::SameLine();
  }
  if (!solution && ImGui::Button(tr("Show solution"))) run.attempts.solution_requested = true;
  if (solution) {
    ImGui::NewLine();
    role_text(plot::UiRole::Formula, tr("Solution"));
    math_text(ex.solution_text.here().c_str(), wrap);
    if (ex.check.kind == CheckKind::Number && ex.solution_number) {
      char n[64];
      std::snprintf(n, sizeof n, "%.6g", *ex.solution_number);
      ImGui::TextUnformatted(subst(tr("Answer: {0}"), {n}).c_str());
    }
    if (!ex.solution_values.empty() && ImGui::Button(tr("Apply the solution's settings")))
      go_to_step(state, run, run.step, ex.solution_values);
  }
}

void draw_lesson_body(AppState& state, LessonRun& run, const Lesson& lesson) {
  const int n = int(lesson.steps.size());
  const LessonStep& step = lesson.steps[size_t(std::clamp(run.step, 0, n - 1))];
  // Header: the lesson, step k of n, previous / next.
  ImGui::SetNextItemWidth(-FLT_MIN);  // the whole column: a lesson's title is long
  if (ImGui::BeginCombo("##lesson", lesson.title.here().c_str())) {
    for (size_t i = 0; i < run.lessons.size(); ++i) {
      const std::string label = std::to_string(run.lessons[i].number) + ". " + run.lessons[i].title.here();
      if (ImGui::Selectable(label.c_str(), int(i) == run.current)) open_lesson(state, run, int(i), -1);
    }
    ImGui::EndCombo();
  }
  // Each item on the line when it fits, else on the next: a narrow column at 200% never cuts "Next >".
  ImGui::BeginDisabled(run.step <= 0);
  if (ImGui::Button(tr("< Previous"))) go_to_step(state, run, run.step - 1);
  ImGui::EndDisabled();
  const std::string step_text = subst(tr("Step {0} of {1}"), {std::to_string(run.step + 1), std::to_string(n)});
  same_line_if_fits(ImGui::CalcTextSize(step_text.c_str()).x);
  ImGui::TextUnformatted(step_text.c_str());
  same_line_if_fits(button_width(tr("Next >")));
  ImGui::BeginDisabled(run.step >= n - 1);
  if (ImGui::Button(tr("Next >"))) go_to_step(state, run, run.step + 1);
  check_item_fits("lesson: Next >");
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", tr("PageDown / PageUp (or a presenter's clicker) move through the steps"));
  ImGui::Separator();
  // The step scrolls between the header and a foot that stays in the window: a long step at 200% no longer pushes
  // "Close lesson" below the screen. The foot's buttons wrap as same_line_if_fits places them.
  const int foot_rows = wrapped_rows(
      {button_width(tr("Reset this step")), button_width(tr("Back to my work")), button_width(tr("Close lesson"))});
  const ImGuiStyle& style = ImGui::GetStyle();
  const float foot = float(foot_rows) * ImGui::GetFrameHeightWithSpacing() + style.ItemSpacing.y + 2.0f;
  ImGui::PushID(run.step);  // each step its own scroll position: a new step opens at its top
  ImGui::BeginChild("##step", ImVec2(0, -foot));
  ImGui::PushFont(plot::screen_font(plot::FontStyle::Bold));
  math_text(step.title.here().c_str(), 0.0f);
  ImGui::PopFont();
  math_text(step.text.here().c_str(), 0.0f);
  if (!step.look.en.empty()) {
    ImGui::Spacing();
    role_text(plot::UiRole::Link, tr("Look at"));
    math_text(step.look.here().c_str(), 0.0f);
  }
  if (step.exercise) draw_exercise(state, run, lesson, step);
  ImGui::EndChild();
  ImGui::PopID();
  ImGui::Separator();
  if (ImGui::Button(tr("Reset this step"))) {
    run.progress.forget(lesson.id, step.id);
    go_to_step(state, run, run.step);
    reset_exercise_ui(run);
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("The step's settings again, its exercise not yet solved"));
  same_line_if_fits(button_width(tr("Back to my work")));
  if (ImGui::Button(tr("Back to my work"))) close_lesson(state, run, true);
  check_item_fits("lesson: Back to my work");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", tr("Close the lesson and reopen the panels and settings you had before it"));
  same_line_if_fits(button_width(tr("Close lesson")));
  if (ImGui::Button(tr("Close lesson"))) close_lesson(state, run, false);
  check_item_fits("lesson: Close lesson");
}

void draw_open_lesson_popup(AppState& state, LessonRun& run) {
  const char* id = "###OpenLesson";
  if (run.open_file_requested) {
    ImGui::OpenPopup(id);
    run.open_file_requested = false;
    run.file_error.clear();
  }
  const std::string title = std::string(tr("Open lesson")) + id;
  if (!ImGui::BeginPopupModal(title.c_str(), nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  ImGui::TextUnformatted(tr("A lesson file (docs/lesson-format.md describes the format):"));
  static char buffer[1024];
  if (ImGui::IsWindowAppearing()) {
    std::snprintf(buffer, sizeof buffer, "%s", run.file_path.c_str());
    ImGui::SetKeyboardFocusHere();  // type the path straight away
  }
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 30);
  const bool enter = ImGui::InputText("##path", buffer, sizeof buffer, ImGuiInputTextFlags_EnterReturnsTrue);
  if (!run.file_error.empty()) {
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32);
    role_text(plot::UiRole::Bad, run.file_error.c_str());
    ImGui::PopTextWrapPos();
  }
  if (ImGui::Button(tr("Open")) || enter) {
    run.file_path = buffer;
    LessonLoad l = load_lesson_file(run.file_path, lesson_names(state));
    if (!l.ok) {
      run.file_error = l.error;
    } else {
      auto same =
          std::find_if(run.lessons.begin(), run.lessons.end(), [&](const Lesson& x) { return x.id == l.lesson.id; });
      int index = int(same - run.lessons.begin());
      if (same == run.lessons.end())
        run.lessons.push_back(std::move(l.lesson));
      else
        *same = std::move(l.lesson);
      ImGui::CloseCurrentPopup();
      open_lesson(state, run, index, 0);
    }
  }
  ImGui::SameLine();
  if (ImGui::Button(tr("Cancel")) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false))
    ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

}  // namespace

bool lesson_is_open(const AppState& state) { return state.lessons && current_lesson(*state.lessons) != nullptr; }

std::string lesson_progress_path() { return config_file("lesson-progress.json"); }

void draw_lesson_window(AppState& state) {
  LessonRun& run = run_of(state);
  draw_open_lesson_popup(state, run);
  const Lesson* lesson = current_lesson(run);
  if (!lesson || !state.focused.empty()) return;  // a focused panel fills the window (F11 brings the bar back)
  if (run.place_window) {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const float scale = ImGui::GetFontSize() / plot::kBaseFontSize;
    const float top = menu_bar_bottom();  // this frame's bar: the work area follows a zoomed bar a frame later
    const WorkLayout w = split_work_area({vp->WorkPos.x, top, vp->WorkSize.x, vp->Pos.y + vp->Size.y - top}, scale,
                                         0.0f);  // as app/ui.cpp work_layout while a lesson is open
    ImGui::SetNextWindowPos(ImVec2(w.side.x, w.side.y), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(w.side.w, w.side.h), ImGuiCond_Always);
    ImGui::SetNextWindowFocus();
    run.place_window = false;
  }
  bool open = true;
  const std::string title = std::string(tr("Lesson")) + " " + std::to_string(lesson->number) + "###Lesson";
  if (ImGui::Begin(title.c_str(), &open)) draw_lesson_body(state, run, *lesson);
  ImGui::End();
  if (!open) close_lesson(state, run, false);
}

void place_lesson_window_again(AppState& state) {
  if (state.lessons) state.lessons->place_window = true;
}

void handle_lesson_keys(AppState& state) {
  if (!state.lessons) return;
  LessonRun& run = *state.lessons;
  const Lesson* lesson = current_lesson(run);
  if (!lesson || ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId)) return;
  // Drawn before the panels: with a lesson open the clicker moves the lesson, not a stepper behind it.
  if (int to = run.step; apply_presenter_step(take_presenter_step(), &to, 0, int(lesson->steps.size()) - 1))
    go_to_step(state, run, to);
}

// [SECTION] start page and File menu

bool draw_lesson_cards(AppState& state) {
  LessonRun& run = run_of(state);
  const float s = std::max(0.5f, ImGui::GetFontSize() / plot::kBaseFontSize);
  ImGui::PushFont(plot::screen_font(plot::FontStyle::Bold));
  ImGui::TextUnformatted(tr("Lessons"));
  ImGui::PopFont();
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(
      tr("A guided path: each step sets up the panels, says what to look at, and some ask you to do something the app "
         "checks."));
  ImGui::PopTextWrapPos();
  for (const std::string& e : run.load_errors) role_text(plot::UiRole::Bad, e.c_str());
  bool opened = false;
  // Every card as tall as the tallest needed in the last frame (a summary of six lines at 150% ran into the
  // progress line of a card 6.5 lines tall).
  ImGuiStorage* storage = ImGui::GetStateStorage();
  const ImGuiID needed_id = ImGui::GetID("lesson_card_height");
  const float card_w = 300.0f * s,
              card_h = std::max(ImGui::GetTextLineHeightWithSpacing() * 6.5f, storage->GetFloat(needed_id, 0.0f));
  float needed = 0.0f;
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  for (size_t i = 0; i < run.lessons.size(); ++i) {
    const Lesson& l = run.lessons[i];
    if (i > 0) {
      ImGui::SameLine();
      if (ImGui::GetCursorScreenPos().x + card_w > right) ImGui::NewLine();
    }
    ImGui::PushID(int(i));
    ImGui::BeginGroup();
    const ImVec2 top = ImGui::GetCursorScreenPos();
    push_card_highlight();
    const bool clicked =
        ImGui::Selectable("##lesson", false, ImGuiSelectableFlags_AllowItemOverlap, ImVec2(card_w, card_h));
    pop_card_highlight();
    if (clicked) {
      open_lesson(state, run, int(i), -1);
      opened = true;
    }
    const bool hovered = ImGui::IsItemHovered();
    ImGui::GetWindowDrawList()->AddRect(top, ImVec2(top.x + card_w, top.y + card_h),
                                        ImGui::GetColorU32(hovered ? ImGuiCol_ButtonHovered : ImGuiCol_Border),
                                        4.0f * s, 0, hovered ? 2.0f * s : 1.0f * s);
    const float pad = 6.0f * s;
    ImGui::SetCursorScreenPos(ImVec2(top.x + pad, top.y + pad));
    ImGui::PushClipRect(top, ImVec2(top.x + card_w, top.y + card_h), true);
    const float wrap_x = ImGui::GetCursorPosX() + card_w - 2 * pad;
    ImGui::PushFont(plot::screen_font(plot::FontStyle::Bold));
    math_text((std::to_string(l.number) + ". " + l.title.here()).c_str(), wrap_x);
    ImGui::PopFont();
    // Back to the card's padding: after a line ImGui puts the cursor at the window's left edge, the card's border.
    ImGui::SetCursorScreenPos(ImVec2(top.x + pad, ImGui::GetCursorScreenPos().y));
    math_text(l.summary.here().c_str(), wrap_x, false, card_summary_color(hovered));
    const float summary_end = ImGui::GetCursorScreenPos().y - top.y;  // below the title and summary
    needed = std::max(needed, summary_end + ImGui::GetTextLineHeightWithSpacing() + pad);
    // The room above the progress line (the tests' text-fit check: the summary's height against it).
    check_text_fits("lesson card " + std::to_string(l.number) + ": title and summary height", summary_end,
                    card_h - ImGui::GetTextLineHeightWithSpacing() - pad / 2);
    int exercises = 0;
    for (const LessonStep& st : l.steps) exercises += st.exercise.has_value();
    const std::string progress =
        subst(tr("{0} steps, {1} of {2} exercises solved"),
              {std::to_string(l.steps.size()), std::to_string(run.progress.done_in(l.id)), std::to_string(exercises)});
    ImGui::SetCursorScreenPos(ImVec2(top.x + pad, top.y + card_h - ImGui::GetTextLineHeightWithSpacing() - pad / 2));
    role_text(run.progress.done_in(l.id) >= exercises && exercises > 0 ? plot::UiRole::Good : plot::UiRole::Link,
              progress.c_str());
    ImGui::PopClipRect();
    ImGui::SetCursorScreenPos(ImVec2(top.x, top.y + card_h));
    ImGui::Dummy(ImVec2(card_w, 0));
    ImGui::EndGroup();
    ImGui::PopID();
  }
  storage->SetFloat(needed_id, needed);
  if (ImGui::SmallButton(tr("Open a lesson file..."))) run.open_file_requested = true;
  ImGui::Spacing();
  ImGui::Separator();
  ImGui::PushFont(plot::screen_font(plot::FontStyle::Bold));
  ImGui::TextUnformatted(tr("Lecture presets"));
  ImGui::PopFont();
  return opened;
}

void lesson_file_menu_item(AppState& state) {
  if (ImGui::MenuItem(tr("Open lesson..."))) run_of(state).open_file_requested = true;
}

std::string open_lesson_argument(AppState& state, const std::string& argument) {
  LessonRun& run = run_of(state);
  const LessonArgument parsed = parse_lesson_argument(argument);
  LessonLoad l = find_lesson_step(state, parsed);
  if (!l.ok) return "--lesson: " + l.error;
  auto same =
      std::find_if(run.lessons.begin(), run.lessons.end(), [&](const Lesson& x) { return x.id == l.lesson.id; });
  const int index = int(same - run.lessons.begin());
  if (same == run.lessons.end()) run.lessons.push_back(std::move(l.lesson));
  open_lesson(state, run, index, std::max(parsed.step, 0));
  return {};
}

}  // namespace tw
