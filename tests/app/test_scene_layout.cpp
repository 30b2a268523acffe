// Presentation state in scenes: zoom, focused panel, collapsed controls and window places round trip through the
// scene text, are clamped when out of range, leave old scenes loading, and are applied to the windows of a real
// (headless) ImGui frame: the focused panel fills the viewport with its controls collapsed, and leaving focus puts
// it back where it was.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include "app/fonts.h"
#include "app/scene.h"
#include "views/scene_test_util.h"
#include "views/widgets.h"

namespace tw {

// EXPECT_EQ on window places prints every field of both.
void PrintTo(const WindowLayout& l, std::ostream* os) {
  *os << "{known " << l.known << ", x " << l.x << ", y " << l.y << ", w " << l.w << ", h " << l.h << ", collapsed "
      << l.collapsed << "}";
}

namespace {

// A panel with the shared two-column layout, reporting what the last draw saw.
struct LayoutProbe {
  bool drawn = false;
  bool controls_collapsed = false;
  float figures_width = 0;  // the width the figures column got
};

class LayoutTestPanel : public Panel {
 public:
  PanelInfo info() const override { return {"layouttest", "Layout test panel", "Zz tests", "Only in this test"}; }
  void draw(const DrawContext& ctx) override {
    probe.drawn = true;
    probe.controls_collapsed = ctx.controls_collapsed && *ctx.controls_collapsed;
    begin_controls_column(ctx, 330);
    draw_controls_column(controls(), ctx, 150);
    begin_figures_column();
    probe.figures_width = ImGui::GetContentRegionAvail().x;
    end_figures_column();
  }
  LayoutProbe probe;
  int n = 3;

 protected:
  void bind(Controls& c) override { c.add_int("n", &n, 1, 9, "n", "A number."); }
};
TW_REGISTER_PANEL(LayoutTestPanel);

LayoutTestPanel& probe_panel(AppState& app) {
  PanelSlot* slot = app.find("layouttest");
  EXPECT_NE(slot, nullptr);
  return static_cast<LayoutTestPanel&>(*slot->panel);
}

// Zoomed, focused, controls collapsed, both windows placed (the overview collapsed to its title bar).
AppState presenting_state() {
  AppState app = make_app_state();
  app.zoom = 2.0f;
  app.open_panel("layouttest");
  app.toggle_focus("layouttest");
  PanelSlot& slot = *app.find("layouttest");
  slot.controls_collapsed = true;
  slot.layout = {.known = true, .x = 120, .y = 80, .w = 900, .h = 640, .collapsed = false};
  app.overview_layout = {.known = true, .x = 10, .y = 30, .w = 400, .h = 500, .collapsed = true};
  app.last_active = "layouttest";  // the panel in front
  return app;
}

TEST(SceneLayout, ZoomFocusCollapsedControlsAndWindowPlacesRoundTrip) {
  AppState saved = presenting_state();
  auto [text, loaded, r] = testing::scene_round_trip(saved);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
  EXPECT_EQ(loaded.zoom, 2.0f);
  EXPECT_EQ(loaded.focused, "layouttest");
  EXPECT_EQ(loaded.front_request, "layouttest");
  const PanelSlot& slot = *loaded.find("layouttest");
  EXPECT_TRUE(slot.open);
  EXPECT_TRUE(slot.controls_collapsed);
  EXPECT_EQ(slot.layout, saved.find("layouttest")->layout);
  EXPECT_TRUE(slot.place_next_frame);
  EXPECT_EQ(loaded.overview_layout, saved.overview_layout);
  EXPECT_TRUE(loaded.place_overview_next_frame);
  // Panels the scene gave no place keep none (first-use placement applies).
  for (const PanelSlot& other : loaded.panels) {
    if (other.info.id != "layouttest") {
      EXPECT_FALSE(other.layout.known || other.controls_collapsed) << other.info.id;
    }
  }
  EXPECT_EQ(scene_to_text(loaded), text);
}

TEST(SceneLayout, OldScenesLoadAndKeepTheScreenAsItIs) {
  AppState app = presenting_state();
  const WindowLayout before = app.find("layouttest")->layout;
  const SceneLoad r = load_scene_text(app, R"({"version": 1, "open": ["layouttest"]})");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(app.zoom, 2.0f);  // presentation is not content: a preset keeps the lecturer's zoom and windows
  EXPECT_EQ(app.find("layouttest")->layout, before);
  EXPECT_EQ(app.focused, "");  // a scene without a focus shows the normal layout
  EXPECT_FALSE(app.find("layouttest")->controls_collapsed);
}

TEST(SceneLayout, OutOfRangeValuesAreClampedWithAWarning) {
  AppState app = make_app_state();
  const SceneLoad r = load_scene_text(app, R"({"version": 1, "zoom": 10, "open": ["layouttest"],
      "windows": {"layouttest": {"x": -300, "y": 1e9, "w": -5, "h": 50000, "controls_collapsed": true},
                  "nosuchpanel": {"x": 0, "y": 0, "w": 100, "h": 100}}})");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.warnings.size(), 6u);  // zoom, x, y, w, h, the unknown window
  EXPECT_EQ(app.zoom, kZoomMax);
  const WindowLayout& l = app.find("layouttest")->layout;
  EXPECT_TRUE(l.known);
  EXPECT_EQ(l.x, 0.0f);
  EXPECT_EQ(l.y, 16384.0f);
  EXPECT_EQ(l.w, kMinWindowSize);
  EXPECT_EQ(l.h, 16384.0f);
  EXPECT_TRUE(app.find("layouttest")->controls_collapsed);
}

TEST(SceneLayout, WrongTypesAreErrorsAndChangeNothing) {
  for (const char* text :
       {R"({"version": 1, "zoom": "big"})", R"({"version": 1, "focus": 3})", R"({"version": 1, "windows": []})",
        R"({"version": 1, "windows": {"layouttest": {"x": "left", "y": 0, "w": 1, "h": 1}}})",
        R"({"version": 1, "windows": {"layouttest": {"collapsed": 1}}})"}) {
    AppState app = presenting_state();
    const std::string before = scene_to_text(app);
    const SceneLoad r = load_scene_text(app, text);
    EXPECT_FALSE(r.ok) << text;
    EXPECT_EQ(scene_to_text(app), before) << text;
  }
}

TEST(SceneLayout, NextZoomWalksTheStepsAndStopsAtTheEnds) {
  EXPECT_EQ(next_zoom(1.0f, +1), 1.1f);
  EXPECT_EQ(next_zoom(1.0f, -1), 0.9f);
  EXPECT_EQ(next_zoom(1.3f, +1), 1.5f);  // from between two steps to the next one
  EXPECT_EQ(next_zoom(1.3f, -1), 1.25f);
  EXPECT_EQ(next_zoom(kZoomMax, +1), kZoomMax);
  EXPECT_EQ(next_zoom(kZoomMin, -1), kZoomMin);
}

// [SECTION] the state applied to windows in a headless ImGui frame
class SceneLayoutFrame : public ::testing::Test {
 protected:
  void SetUp() override {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(1600, 1000);
    io.DeltaTime = 1.0f / 60.0f;
  }
  void TearDown() override { ImGui::DestroyContext(); }
  // The fonts at the app's zoomed size, as main() builds them.
  void zoom_fonts(const AppState& app) {
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();
    load_fonts(TW_FONT_DIR, plot::kBaseFontSize * app.ui_scale());
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    apply_theme(app.theme, app.ui_scale());
  }
  static void frames(AppState& app, int n) {
    for (int i = 0; i < n; ++i) {
      ImGui::NewFrame();
      handle_shortcuts(app);
      draw_main_menu(app);
      draw_windows(app);
      ImGui::Render();
    }
  }
};

TEST_F(SceneLayoutFrame, ASavedPresentationReopensIdentically) {
  AppState app = make_app_state();
  ASSERT_TRUE(load_scene_text(app, scene_to_text(presenting_state())).ok);
  zoom_fonts(app);
  EXPECT_EQ(ImGui::GetIO().Fonts->Fonts[0]->FontSize, 30.0f);  // real glyphs at twice the size, not a scaled 15 px font
  frames(app, 3);

  // Focused: the window fills the viewport below the menu bar; the controls are a strip, the figures get the rest.
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  // panel_window_title: the window's id is the panel id, the same in every language.
  const ImGuiWindow* w = ImGui::FindWindowByName("###layouttest");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->Pos.x, vp->WorkPos.x);
  EXPECT_EQ(w->Pos.y, vp->WorkPos.y);
  EXPECT_GT(vp->WorkPos.y, 0.0f);  // below the menu bar
  EXPECT_EQ(w->Size.x, vp->WorkSize.x);
  EXPECT_EQ(w->Size.y, vp->WorkSize.y);
  const LayoutProbe& probe = probe_panel(app).probe;
  ASSERT_TRUE(probe.drawn);
  EXPECT_TRUE(probe.controls_collapsed);
  EXPECT_GT(probe.figures_width, 1600 - 4 * ImGui::GetFrameHeight());  // 330 × 2 would leave under 940
  const ImGuiWindow* overview = ImGui::FindWindowByName("###Overview");
  EXPECT_TRUE(overview == nullptr || !overview->Active);  // hidden while a panel is focused

  // Saved again as it is on screen: the same scene (the focused window keeps its place from before focus).
  AppState reference = presenting_state();
  EXPECT_EQ(scene_to_text(app), scene_to_text(reference));

  // Leaving focus (Esc, F11 or the title-bar button) returns the window to its place, at the scene's size.
  app.toggle_focus("");
  frames(app, 2);
  EXPECT_FLOAT_EQ(w->Pos.x, 120.0f);
  EXPECT_FLOAT_EQ(w->Pos.y, 80.0f);
  EXPECT_FLOAT_EQ(w->SizeFull.x, 900.0f);
  EXPECT_FLOAT_EQ(w->SizeFull.y, 640.0f);
  EXPECT_TRUE(probe_panel(app).probe.controls_collapsed);  // collapsed controls stay a strip until shown again
  EXPECT_EQ(ImGui::GetCurrentContext()->NavWindow, w);     // in front of the overview that reappeared
  EXPECT_EQ(app.status, "");                               // returning to its own place is not news
  ASSERT_NE(overview = ImGui::FindWindowByName("###Overview"), nullptr);
  EXPECT_TRUE(overview->Collapsed);
  EXPECT_FLOAT_EQ(overview->Pos.x, 10.0f);
  EXPECT_FLOAT_EQ(overview->SizeFull.y, 500.0f);
}

TEST_F(SceneLayoutFrame, PlacesOffTheScreenArePulledOntoItWithAMessage) {
  AppState app = make_app_state();
  const SceneLoad r = load_scene_text(app, R"({"version": 1, "zoom": 1, "open": ["layouttest"],
      "windows": {"layouttest": {"x": 5000, "y": 3000, "w": 3000, "h": 800}}})");
  ASSERT_TRUE(r.ok) << r.error;
  zoom_fonts(app);
  frames(app, 2);
  // panel_window_title: the window's id is the panel id, the same in every language.
  const ImGuiWindow* w = ImGui::FindWindowByName("###layouttest");
  ASSERT_NE(w, nullptr);
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  EXPECT_GE(w->Pos.x, vp->WorkPos.x);
  EXPECT_GE(w->Pos.y, vp->WorkPos.y);
  EXPECT_LE(w->Pos.x + w->SizeFull.x, vp->WorkPos.x + vp->WorkSize.x + 0.5f);
  EXPECT_LE(w->Pos.y + w->SizeFull.y, vp->WorkPos.y + vp->WorkSize.y + 0.5f);
  EXPECT_NE(app.status.find("moved onto it"), std::string::npos) << app.status;
}

// The window in front: the last root window ImGui draws (g.Windows is back to front).
std::string front_window() {
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  for (int i = g.Windows.Size - 1; i >= 0; --i) {
    const ImGuiWindow* w = g.Windows[i];
    if (w->Active && !(w->Flags & (ImGuiWindowFlags_ChildWindow | ImGuiWindowFlags_Tooltip | ImGuiWindowFlags_Popup)) &&
        w->Name != std::string("##MainMenuBar"))
      return w->Name;
  }
  return "";
}

TEST_F(SceneLayoutFrame, ASessionReopensWithThePanelTheUserLeftInFront) {
  AppState app = make_app_state();
  for (const char* id : {"masks", "softmax", "rope", "layouttest"}) ASSERT_TRUE(app.open_panel(id));
  zoom_fonts(app);
  frames(app, 3);
  const std::string rope = panel_window_title(app.find("rope")->info);
  ImGui::SetWindowFocus(rope.c_str());  // the user clicks the RoPE window
  frames(app, 2);
  ASSERT_EQ(front_window(), rope);
  const std::string text = scene_to_text(app);
  EXPECT_NE(text.find("\"front\": \"rope\""), std::string::npos);

  ImGui::DestroyContext();  // a new process
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  ImGui::GetIO().DisplaySize = ImVec2(1600, 1000);
  ImGui::GetIO().DeltaTime = 1.0f / 60.0f;
  AppState reopened = make_app_state();
  ASSERT_TRUE(load_scene_text(reopened, text).ok);
  zoom_fonts(reopened);
  frames(reopened, 4);
  EXPECT_EQ(front_window(), rope) << "not the first panel of the list";
  EXPECT_EQ(scene_to_text(reopened), text) << "saved again unchanged: same places, no offset";
}

TEST_F(SceneLayoutFrame, ViewMenuBringsAnOpenPanelForwardAndNeverClosesIt) {
  AppState app = make_app_state();
  for (const char* id : {"masks", "softmax"}) ASSERT_TRUE(app.open_panel(id));
  zoom_fonts(app);
  frames(app, 3);
  const std::string masks = panel_window_title(app.find("masks")->info);
  ImGui::SetWindowFocus(panel_window_title(app.find("softmax")->info).c_str());
  frames(app, 1);
  ASSERT_NE(front_window(), masks);
  // What View > Attention masks does for an open panel (the menu's click handler, app/ui.cpp show_panel):
  app.front_request = "masks";
  frames(app, 2);
  EXPECT_TRUE(app.find("masks")->open);
  EXPECT_EQ(front_window(), masks);
}

TEST_F(SceneLayoutFrame, AtTwiceTheZoomNoWindowCoversTheMenuBar) {
  AppState app = make_app_state();
  for (auto& slot : app.panels) slot.open = true;  // every panel, tiled in pages at 100%
  zoom_fonts(app);
  frames(app, 4);
  const auto places_at_100 = scene_to_json(app)["windows"];
  app.zoom = 2.0f;  // Ctrl+= up to 200%: a taller menu bar over windows placed for the shorter one
  zoom_fonts(app);
  frames(app, 3);
  EXPECT_EQ(scene_to_json(app)["windows"], places_at_100) << "the push below the taller bar is not saved";
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  const ImGuiWindow* bar = ImGui::FindWindowByName("##MainMenuBar");
  ASSERT_NE(bar, nullptr);
  const float bar_bottom = bar->Pos.y + bar->Size.y;
  EXPECT_GE(bar_bottom, ImGui::GetFrameHeight() - 0.5f);
  for (const ImGuiWindow* w : g.Windows) {
    if (!w->Active || w == bar || (w->Flags & (ImGuiWindowFlags_ChildWindow | ImGuiWindowFlags_Tooltip))) continue;
    EXPECT_GE(w->Pos.y, bar_bottom - 0.5f) << w->Name << " covers the menu bar";
  }
  app.zoom = 1.0f;  // back to 100%: every window where it was
  zoom_fonts(app);
  frames(app, 3);
  EXPECT_EQ(scene_to_json(app)["windows"], places_at_100);
  const ImGuiWindow* masks = ImGui::FindWindowByName(panel_window_title(app.find("masks")->info).c_str());
  ASSERT_NE(masks, nullptr);
  EXPECT_FLOAT_EQ(masks->Pos.y, places_at_100["masks"]["y"].get<float>());
}

// Maximising the window (1280×720 → 1920×1080) lays the overview column and the panel beside it out again for the
// new size: nothing keeps the old size with a black band below or beside it (the overview once stayed 720 high).
TEST_F(SceneLayoutFrame, AResizedWindowLaysTheOverviewAndPanelsOutAgain) {
  ImGui::GetIO().DisplaySize = ImVec2(1280, 720);
  AppState app = make_app_state();
  app.show_overview = true;
  ASSERT_TRUE(app.open_panel("softmax"));
  zoom_fonts(app);
  frames(app, 3);
  const auto window = [](const std::string& title) {
    const ImGuiWindow* w = ImGui::FindWindowByName(title.c_str());
    EXPECT_NE(w, nullptr) << title;
    return w ? ImRect(w->Pos, ImVec2(w->Pos.x + w->Size.x, w->Pos.y + w->Size.y)) : ImRect();
  };
  const std::string overview = std::string(tr("Overview")) + "###Overview";
  const std::string softmax = panel_window_title(app.find("softmax")->info);
  EXPECT_NEAR(window(overview).Max.y, 720, 1);
  ImGui::GetIO().DisplaySize = ImVec2(1920, 1080);
  frames(app, 3);
  const ImRect side = window(overview), panel = window(softmax);
  EXPECT_NEAR(side.Max.y, 1080, 1) << "the overview reaches the new bottom edge";
  EXPECT_NEAR(panel.Max.y, 1080, 1);
  EXPECT_NEAR(panel.Max.x, 1920, 1) << "the panel reaches the new right edge";
  EXPECT_LE(side.Max.x, panel.Min.x + 0.5f) << "the overview column ends where the panel begins";
  EXPECT_GT(side.GetWidth(), 0.15f * 1920) << "a column of the new width, not squeezed";
}
}  // namespace
}  // namespace tw
