// Slide mode (app/slide_mode.h) in a headless ImGui frame at 1280×720 and 150% zoom, as on a projector: the figure
// keeps 16:9, fills the window's height or width, and it and its controls lie inside the window; the clicker steps the
// panel's stepper; Esc leaves; the slide round-trips through scene text.
#include "app/slide_mode.h"

#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>  // the navigation cursor and the tooltip window

#include <cfloat>

#include "app/fonts.h"
#include "app/lesson_bar.h"
#include "app/lesson_scene.h"
#include "app/scene.h"
#include "core/base/i18n.h"
#include "scratch_dir.h"
#include "views/plot/plot_imgui.h"
#include "views/scene_test_util.h"

namespace tw {
namespace {

// A panel with a stepper and one figure: the clicker's steps land in `step`.
class SlideTestPanel : public Panel {
 public:
  PanelInfo info() const override { return {"slidetest", "Slide test panel", "Zz tests", "Only in this test"}; }
  void draw(const DrawContext&) override {}
  std::vector<plot::Figure> figures() override {
    plot::Figure fig("curve", tr("Slide mode"));  // a translated title: the Chinese run lays out Chinese text
    const std::vector<double> xs = {0, 1, 2, 3}, ys = {0, gain, 2 * gain, 3 * gain};
    fig.axes().setup("x", "", "y", "");
    fig.axes().line("y = gain x", xs, ys);
    return {fig};
  }
  bool presenter_step(PresenterStep s) override {
    apply_presenter_step(s, &step, 0, 9);
    return true;
  }
  int step = 0;
  float gain = 1.0f;
  int count = 3;
  std::string note;

 protected:
  void bind(Controls& c) override {
    c.add_text("note", &note, 40, "note", "Not a slider: never offered on a slide.");
    c.add_float("gain", &gain, 0.1f, 10.0f, "gain", "The slope.");
    c.add_int("count", &count, 1, 9, "count", "A number.");
    c.add_seed(&count, "The seed.");
  }
};
TW_REGISTER_PANEL(SlideTestPanel);

bool inside(const SlideRect& outer, const SlideRect& r) {
  constexpr float e = 0.5f;
  return r.w > 0 && r.h > 0 && r.x >= outer.x - e && r.y >= outer.y - e && r.x + r.w <= outer.x + outer.w + e &&
         r.y + r.h <= outer.y + outer.h + e;
}

std::string str(const SlideRect& r) {
  std::string s = "(";
  for (float v : {r.x, r.y, r.w, r.h}) s.append(std::to_string(v)).append(" ");
  s.back() = ')';
  return s;
}

TEST(SlideGeometry, Fit16By9TakesTheSmallerOfWidthAndHeight) {
  const SlideRect wide = fit_16_9({10, 20, 1600, 450});  // height-bound: 800 × 450, centred
  EXPECT_FLOAT_EQ(wide.w, 800.0f);
  EXPECT_FLOAT_EQ(wide.h, 450.0f);
  EXPECT_FLOAT_EQ(wide.x, 10.0f + 400.0f);
  EXPECT_FLOAT_EQ(wide.y, 20.0f);
  const SlideRect tall = fit_16_9({0, 0, 640, 1000});  // width-bound: 640 × 360
  EXPECT_FLOAT_EQ(tall.w, 640.0f);
  EXPECT_FLOAT_EQ(tall.h, 360.0f);
  EXPECT_FLOAT_EQ(tall.x, 0.0f);
  const SlideRect none = fit_16_9({0, 0, 100, -5});
  EXPECT_FLOAT_EQ(none.w, 0.0f);
}

class SlideFrame : public ::testing::Test {
 protected:
  void SetUp() override {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(1280, 720);
    io.DeltaTime = 1.0f / 60.0f;
    for (int k = 0; k < ImGuiKey_COUNT; ++k) io.KeyMap[k] = 100 + k;
  }
  void TearDown() override {
    ImGui::DestroyContext();
    set_language(Language::En);
  }
  void fonts(const AppState& app) {
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();
    load_fonts(TW_FONT_DIR, plot::kBaseFontSize * app.ui_scale());
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    apply_theme(app.theme, app.ui_scale());
  }
  // `n` frames; `key` (an ImGuiKey, or -1) held in the first.
  static void frames(AppState& app, int n, int key = -1) {
    for (int i = 0; i < n; ++i) {
      for (int k = 0; k < ImGuiKey_COUNT; ++k) ImGui::GetIO().KeysDown[100 + k] = (i == 0 && k == key);
      ImGui::NewFrame();
      handle_shortcuts(app);
      draw_main_menu(app);
      draw_windows(app);
      ImGui::Render();
    }
  }
  // Checks the slide as drawn in the last frame: inside the viewport below the menu bar, 16:9, filling the room.
  static void expect_fitted(const char* what) {
    const SlideOnScreen& on = last_slide_on_screen();
    const SlideRect screen{0, 0, 1280, 720};
    EXPECT_TRUE(inside(screen, on.window)) << what << ": window " << str(on.window);
    EXPECT_GT(on.window.y, 0.0f) << what << ": below the menu bar";
    EXPECT_TRUE(inside(on.window, on.figure)) << what << ": figure " << str(on.figure);
    EXPECT_NEAR(on.figure.w / on.figure.h, 16.0 / 9.0, 0.01) << what << ": figure " << str(on.figure);
    // Fitted to the height (a 1280×720 window is wider than 16:9 once the menu bar and the controls row are off).
    EXPECT_GT(on.figure.y + on.figure.h, on.window.y + on.window.h - 2 * ImGui::GetStyle().WindowPadding.y - 1)
        << what << ": the figure ends at the window's bottom edge " << str(on.figure);
    EXPECT_GT(on.figure.h, 0.7f * 720) << what;
    ASSERT_EQ(on.controls.size(), 3u) << what << ": gain, count and the stepper";
    for (const SlideRect& c : on.controls) {
      EXPECT_TRUE(inside(on.window, c)) << what << ": control " << str(c);
      EXPECT_LE(c.y + c.h, on.figure.y + 0.5f) << what << ": control above the figure " << str(c);
    }
  }
};

TEST_F(SlideFrame, AtOneFiftyPercentOn1280x720TheFigureKeeps16By9AndEverythingFits) {
  for (Language lang : {Language::En, Language::Zh}) {
    set_language(lang);
    AppState app = make_app_state();
    app.zoom = 1.5f;
    fonts(app);
    enter_slide_mode(app, "slidetest", "curve");
    EXPECT_EQ(app.slide.controls, (std::vector<std::string>{"gain", "count"}));  // not the text box, not the seed
    plot::take_layout_report();
    frames(app, 3);
    const char* what = lang == Language::En ? "en" : "zh";
    expect_fitted(what);
    // Readable: the figure's layout reported no label cut short or ticks touching at this size.
    const plot::LayoutReport report = plot::take_layout_report();
    EXPECT_GE(report.layouts, 1) << what;
    for (const std::string& p : report.problems) ADD_FAILURE() << what << ": " << p;
    // On screen as the plot layer saw it, at the same rectangle.
    bool found = false;
    for (const plot::FigureOnScreen& f : plot::figures_on_screen())
      if (f.id == "curve") {
        found = true;
        EXPECT_NEAR(f.w, last_slide_on_screen().figure.w, 0.5f);
        EXPECT_NEAR(f.h, last_slide_on_screen().figure.h, 0.5f);
      }
    EXPECT_TRUE(found) << what;
  }
}

// Focus on a real panel at 1280×720, 150% and 200%: its first figure, caption included, lies inside the part of the
// figures column that shows (no scrolling needed), and that part inside the window; in English and Chinese.
TEST_F(SlideFrame, AFocusedPanelsFirstFigureAndCaptionFitTheWindow) {
  for (float zoom : {1.5f, 2.0f})
    for (Language lang : {Language::En, Language::Zh}) {
      set_language(lang);
      AppState app = make_app_state();
      app.zoom = zoom;
      fonts(app);
      app.toggle_focus("softmax");
      ASSERT_EQ(app.focused, "softmax");
      frames(app, 2);
      app.find("softmax")->panel->wait_idle();
      frames(app, 4);  // the explanation's height is known from the frame after it is drawn
      const std::string what = std::string(lang == Language::En ? "en " : "zh ") + std::to_string(zoom);
      const std::vector<plot::FigureOnScreen> shown = plot::figures_on_screen();  // a copy: scores points into it
      const plot::FigureOnScreen* scores = nullptr;
      for (const plot::FigureOnScreen& f : shown)
        if (f.id == "scores") scores = &f;
      ASSERT_NE(scores, nullptr) << what;
      const SlideRect fig{scores->x, scores->y, scores->w, scores->h};
      const SlideRect visible{scores->visible_x, scores->visible_y, scores->visible_w, scores->visible_h};
      EXPECT_TRUE(inside({0, 0, 1280, 720}, visible)) << what << ": column " << str(visible);
      EXPECT_TRUE(inside(visible, fig)) << what << ": figure " << str(fig) << " in " << str(visible);
      // Fitted, not shrunk to nothing: at least 40% of the window's height.
      EXPECT_GT(fig.h, 0.4f * 720) << what << ": figure " << str(fig);
    }
}

TEST_F(SlideFrame, TheClickerStepsThePanelAndEscLeaves) {
  AppState app = make_app_state();
  app.zoom = 1.5f;
  fonts(app);
  enter_slide_mode(app, "slidetest", "curve");
  frames(app, 2);
  auto& panel = static_cast<SlideTestPanel&>(*app.find("slidetest")->panel);
  frames(app, 2, ImGuiKey_PageDown);
  EXPECT_EQ(panel.step, 1);
  frames(app, 2, ImGuiKey_RightArrow);
  EXPECT_EQ(panel.step, 2);
  frames(app, 2, ImGuiKey_PageUp);
  EXPECT_EQ(panel.step, 1);
  frames(app, 2, ImGuiKey_End);
  EXPECT_EQ(panel.step, 9);
  EXPECT_TRUE(app.slide.on());
  frames(app, 2, ImGuiKey_Escape);
  EXPECT_FALSE(app.slide.on());
  EXPECT_TRUE(app.find("slidetest")->open);  // back to the panels, the slide's panel open among them
}

// A lecturer drags the slide's first slider (softmax d_k) with the mouse: in the frame the drag ends and in every
// frame after, the slide draws the figure the panel itself shows (Panel::shown_figures, one recompute path), and
// that figure equals one computed afresh by a headless panel set to the slider's value.
TEST_F(SlideFrame, TheSlidesFigureFollowsADraggedSlider) {
  AppState app = make_app_state();
  app.zoom = 1.5f;
  fonts(app);
  enter_slide_mode(app, "softmax", "scores");
  ASSERT_FALSE(app.slide.controls.empty());
  EXPECT_EQ(app.slide.controls[0], "d_k");
  frames(app, 2);
  Panel& panel = *app.find("softmax")->panel;
  panel.wait_idle();
  frames(app, 2);
  const int before = panel.controls().find("d_k")->get().get<int>();
  const SlideRect slider = last_slide_on_screen().controls.at(0);
  ImGuiIO& io = ImGui::GetIO();
  const float y = slider.y + slider.h * 0.5f;
  // Press near the slider's left end, drag to its middle, release.
  for (int i = 0; i < 6; ++i) {
    io.MousePos = ImVec2(slider.x + (i == 0 ? 4.0f : slider.w * 0.2f + float(i) * 10.0f), y);
    io.MouseDown[0] = i < 5;
    ImGui::NewFrame();
    handle_shortcuts(app);
    draw_main_menu(app);
    draw_windows(app);
    ImGui::Render();
    panel.wait_idle();
  }
  const int after = panel.controls().find("d_k")->get().get<int>();
  ASSERT_NE(after, before) << "the drag did not move the slider";
  for (int frame = 0; frame < 3; ++frame) {
    const plot::Figure* shown = last_slide_on_screen().shown;
    ASSERT_NE(shown, nullptr);
    const std::vector<plot::Figure>& panel_figs = panel.shown_figures();
    const plot::Figure* same = nullptr;
    for (const plot::Figure& f : panel_figs)
      if (&f == shown) same = &f;
    EXPECT_NE(same, nullptr) << "frame " << frame << ": the slide drew a figure the panel does not show";
    std::unique_ptr<Panel> fresh = make_panel("softmax");
    ASSERT_TRUE(fresh->controls().find("d_k"));
    for (Control& c : fresh->controls().all()) c.set(panel.controls().find(c.key)->get());
    fresh->update();
    fresh->wait_idle();
    const plot::Figure* reference = nullptr;
    const std::vector<plot::Figure> ref_figs = fresh->figures();
    for (const plot::Figure& f : ref_figs)
      if (f.id == "scores") reference = &f;
    ASSERT_NE(reference, nullptr);
    EXPECT_EQ(shown->note, reference->note) << "frame " << frame << ", d_k " << after;
    EXPECT_NE(shown->note.find(std::to_string(after)), std::string::npos) << shown->note;
    frames(app, 1);
  }
}

// A lecturer in a lesson presses every clicker key, in slide mode and in focus (F11): each key moves the lesson a
// step and keeps the mode it was pressed in, on the new step's panel (its "look at" figure on the slide).
TEST_F(SlideFrame, EveryClickerKeyKeepsThePresentationModeInALesson) {
  const testing::ScratchDir config("slide-lesson");
  ASSERT_EQ(setenv("XDG_CONFIG_HOME", config.path().c_str(), 1), 0);  // lesson progress goes here, not to $HOME
  std::vector<std::string> errors;
  AppState app = make_app_state();
  app.zoom = 1.5f;
  fonts(app);
  const std::vector<Lesson> lessons = load_shipped_lessons(app, &errors);
  ASSERT_FALSE(lessons.empty());
  const Lesson& lesson = lessons[0];
  ASSERT_GE(lesson.steps.size(), 3u);
  const auto step_now = [&] {  // the step the lesson's scene shows: its panel is open
    for (size_t i = 0; i < lesson.steps.size(); ++i)
      if (const std::string& p = lesson.steps[i].look_panel;
          !p.empty() && app.slide.panel == p && app.slide.figure == lesson.steps[i].look_figure)
        return int(i);
    return -1;
  };
  struct Key {
    int key;
    int expect_step;  // from step 1 (index 1)
  };
  for (const bool slide : {true, false}) {
    ASSERT_EQ(open_lesson_argument(app, "1:2"), "");
    if (slide)
      enter_slide_mode(app, lesson.steps[1].look_panel, lesson.steps[1].look_figure);
    else
      app.toggle_focus(lesson.steps[1].look_panel);
    frames(app, 2);
    const int last = int(lesson.steps.size()) - 1;
    for (const Key& k : {Key{ImGuiKey_PageDown, 2}, Key{ImGuiKey_PageUp, 1}, Key{ImGuiKey_RightArrow, 2},
                         Key{ImGuiKey_LeftArrow, 1}, Key{ImGuiKey_End, last}, Key{ImGuiKey_Home, 0}}) {
      frames(app, 2, k.key);
      if (PanelSlot* shown = app.find(slide ? app.slide.panel : app.focused)) shown->panel->wait_idle();
      frames(app, 2);
      const std::string what = std::string(slide ? "slide" : "focus") + ", key " + std::to_string(k.key);
      if (slide) {
        ASSERT_TRUE(app.slide.on()) << what << ": left slide mode";
        if (!lesson.steps[size_t(k.expect_step)].look_panel.empty()) {
          EXPECT_EQ(step_now(), k.expect_step) << what << ": slide on " << app.slide.panel << "/" << app.slide.figure;
        }
        EXPECT_TRUE(inside({0, 0, 1280, 720}, last_slide_on_screen().figure)) << what;
      } else {
        EXPECT_FALSE(app.focused.empty()) << what << ": left focus";
        if (const std::string& p = lesson.steps[size_t(k.expect_step)].look_panel; !p.empty())
          EXPECT_EQ(app.focused, p) << what;
      }
    }
    if (slide) leave_slide_mode(app);
    app.toggle_focus("");
  }
  unsetenv("XDG_CONFIG_HOME");
}

// A clicker's key belongs to the presenter, not to ImGui's keyboard navigation (on in the app, app/window.cpp): after
// every clicker key in a lesson, and after Esc leaves slide mode, no button is keyboard-highlighted, hovering follows
// the mouse, no tooltip is up while the mouse is outside the window, and Space then presses nothing (it once pressed
// "Close lesson").
TEST_F(SlideFrame, AClickerKeyLeavesNoButtonKeyboardFocused) {
  const testing::ScratchDir config("slide-nav");
  ASSERT_EQ(setenv("XDG_CONFIG_HOME", config.path().c_str(), 1), 0);
  ImGuiIO& io = ImGui::GetIO();
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  AppState app = make_app_state();
  app.zoom = 1.5f;
  fonts(app);
  ASSERT_EQ(open_lesson_argument(app, "1:2"), "");
  frames(app, 3);
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  const auto expect_no_keyboard_focus = [&](const std::string& what) {
    EXPECT_FALSE(io.NavVisible) << what << ": item " << g.NavId << " is keyboard-highlighted";
    EXPECT_FALSE(g.NavDisableMouseHover) << what << ": hovering does not follow the mouse";
    const ImGuiWindow* tip = ImGui::FindWindowByName("##Tooltip_00");
    EXPECT_FALSE(tip && tip->Active) << what << ": a tooltip is up with the mouse outside the window";
  };
  const auto settle = [&] {
    for (PanelSlot& s : app.panels)
      if (s.open) s.panel->wait_idle();
    frames(app, 3);
  };
  for (const int key : {ImGuiKey_PageDown, ImGuiKey_PageDown, ImGuiKey_PageUp, ImGuiKey_End, ImGuiKey_Home,
                        ImGuiKey_RightArrow, ImGuiKey_LeftArrow}) {
    frames(app, 2, key);
    settle();
    expect_no_keyboard_focus("lesson, key " + std::to_string(key));
  }
  frames(app, 2, ImGuiKey_Space);
  settle();
  EXPECT_TRUE(lesson_is_open(app)) << "Space pressed a lesson button the clicker had left focused";
  // Slide mode: the clicker, then Esc back to the panels.
  ASSERT_EQ(open_lesson_argument(app, "1:2"), "");
  std::vector<std::string> errors;
  const std::vector<Lesson> lessons = load_shipped_lessons(app, &errors);
  ASSERT_FALSE(lessons.empty());
  enter_slide_mode(app, lessons[0].steps[1].look_panel, lessons[0].steps[1].look_figure);
  settle();
  for (const int key : {ImGuiKey_PageDown, ImGuiKey_PageUp, ImGuiKey_Escape}) {
    frames(app, 2, key);
    settle();
    expect_no_keyboard_focus("slide, key " + std::to_string(key));
  }
  EXPECT_FALSE(app.slide.on());
  EXPECT_TRUE(lesson_is_open(app));
  unsetenv("XDG_CONFIG_HOME");
}

TEST(SlideMenu, FigureTitlesAreListedWithoutRawTeX) {
  plot::Figure f("scores", "Raw scores $q\\cdot k$ at $d = 512$");
  const std::string label = slide_menu_label(f);
  EXPECT_EQ(label.find('$'), std::string::npos) << label;
  EXPECT_EQ(label.find('\\'), std::string::npos) << label;
  EXPECT_NE(label.find("512"), std::string::npos) << label;
  EXPECT_EQ(slide_menu_label(plot::Figure("x", "")), "x");
}

TEST(SlideScene, RoundTripsAndChecksItsFields) {
  AppState saved = make_app_state();
  enter_slide_mode(saved, "slidetest", "curve");
  saved.slide.controls = {"count"};
  auto [text, loaded, r] = testing::scene_round_trip(saved);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(loaded.slide, saved.slide);
  EXPECT_TRUE(loaded.find("slidetest")->open);
  EXPECT_NE(text.find("\"slide\""), std::string::npos);

  // A scene without "slide" turns it off (a scene is the whole state).
  ASSERT_TRUE(load_scene_text(loaded, R"({"version": 1})").ok);
  EXPECT_FALSE(loaded.slide.on());

  // Unknown panel or control: warnings, the rest applies; a wrong type: an error that changes nothing.
  AppState app = make_app_state();
  SceneLoad w = load_scene_text(app, R"({"version": 1, "slide": {"panel": "nosuch", "figure": "x"}})");
  ASSERT_TRUE(w.ok) << w.error;
  EXPECT_EQ(w.warnings.size(), 1u);
  EXPECT_FALSE(app.slide.on());
  w = load_scene_text(app, R"({"version": 1, "slide": {"panel": "slidetest", "figure": "curve",
                                "controls": ["note", "gain", "nosuch"]}})");
  ASSERT_TRUE(w.ok) << w.error;
  EXPECT_EQ(w.warnings.size(), 2u);
  EXPECT_EQ(app.slide.controls, std::vector<std::string>{"gain"});
  const std::string before = scene_to_text(app);
  for (const char* bad : {R"({"version": 1, "slide": "softmax"})", R"({"version": 1, "slide": {"panel": 3}})",
                          R"({"version": 1, "slide": {"panel": "slidetest", "figure": "curve", "controls": 1}})"}) {
    EXPECT_FALSE(load_scene_text(app, bad).ok) << bad;
    EXPECT_EQ(scene_to_text(app), before) << bad;
  }
}

}  // namespace
}  // namespace tw
