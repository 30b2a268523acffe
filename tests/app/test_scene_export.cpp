// export_open_panel_figures: the code behind File > Export figures… and `transformer-workbench export`.
// A test-only panel (registered here, so it exists in this executable only) records the call contract.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/export_figures.h"
#include "app/scene.h"
#include "scratch_dir.h"

namespace tw {
namespace {

struct ExportTestState {
  int slope = 2;
  bool duplicate_id = false;
};

// Figures are y = slope · x for x = 0..4; the panel counts update/wait_idle calls to check their order.
class ExportTestPanel : public Panel {
 public:
  PanelInfo info() const override { return {"exporttest", "Export test panel", "Zz tests", "Only in this test"}; }
  void draw(const DrawContext&) override {}
  void update() override {
    computed_slope_ = s.slope;
    ++updates;
  }
  void wait_idle() override { waited_after_update = updates > 0; }
  std::vector<plot::Figure> figures() override {
    figures_saw_update = waited_after_update;
    std::vector<plot::Figure> out;
    plot::Figure fig("line", "y = slope x");
    std::vector<double> xs, ys;
    for (int x = 0; x <= 4; ++x) {
      xs.push_back(x);
      ys.push_back(computed_slope_ * x);  // the computed result, not the raw control: update() must have run
    }
    fig.axes().setup("x", "", "y", "");
    fig.axes().line("y", xs, ys);
    out.push_back(fig);
    if (s.duplicate_id) out.push_back(fig);
    return out;
  }
  ExportTestState s;
  int updates = 0;
  bool waited_after_update = false, figures_saw_update = false;

 protected:
  void bind(Controls& c) override {
    c.add_int("slope", &s.slope, -10, 10, "Slope", "Slope of the line.");
    c.add_bool("duplicate_id", &s.duplicate_id, "Duplicate", "Emit a second figure with the same id.");
  }

 private:
  int computed_slope_ = 0;
};
TW_REGISTER_PANEL(ExportTestPanel);

ExportTestPanel& test_panel(AppState& app) {
  return *static_cast<ExportTestPanel*>(app.find("exporttest")->panel.get());
}

using testing::read_file_bytes;
using testing::ScratchDir;

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Only the test panel open, slope set through a scene with an override, as `export --set` does.
AppState scene_with_slope(int slope) {
  AppState app = make_app_state();
  const SceneLoad r =
      load_scene_text(app, R"({"version": 1, "open": ["exporttest"], "values": {"exporttest.slope": 1}})",
                      {{"exporttest.slope", slope}});
  EXPECT_TRUE(r.ok) << r.error;
  return app;
}

TEST(SceneExport, WritesEachFormatOfEachFigureOfOpenPanelsOnly) {
  ScratchDir dir("tw-scene-export");
  AppState app = scene_with_slope(3);
  FigureExportRequest request;
  request.out_dir = dir / "out";
  const FigureExportResult result = export_open_panel_figures(app, request);
  ASSERT_TRUE(result.ok()) << (result.errors.empty() ? result.summary() : result.errors.front());
  EXPECT_EQ(result.panels, 1);
  EXPECT_EQ(result.figures, 1);
  EXPECT_EQ(files_in(dir / "out"),
            (std::vector<std::string>{"exporttest-line.csv", "exporttest-line.png", "exporttest-line.svg"}));
  ASSERT_EQ(result.written.size(), 3u);
  for (const std::string& path : result.written) EXPECT_TRUE(std::filesystem::exists(path)) << path;
  EXPECT_EQ(result.summary(), "Exported 3 files from 1 figure");
}

TEST(SceneExport, CallsUpdateAndWaitIdleBeforeFiguresSoCsvHoldsTheSceneValues) {
  ScratchDir dir("tw-scene-export");
  AppState app = scene_with_slope(-7);
  FigureExportRequest request;
  request.out_dir = dir / "out";
  request.formats = plot::ExportFormat_Csv;
  ASSERT_TRUE(export_open_panel_figures(app, request).ok());
  EXPECT_GE(test_panel(app).updates, 1);
  EXPECT_TRUE(test_panel(app).figures_saw_update);
  const std::string csv = read_file_bytes(dir / "out/exporttest-line.csv");
  EXPECT_NE(csv.find("-28"), std::string::npos) << csv;  // y at x = 4 with slope -7
}

TEST(SceneExport, SameStateGivesByteIdenticalFiles) {
  ScratchDir dir("tw-scene-export");
  FigureExportRequest request;
  for (const char* sub : {"a", "b"}) {
    AppState app = scene_with_slope(5);
    request.out_dir = dir / sub;
    request.png_scale = 1.5f;
    ASSERT_TRUE(export_open_panel_figures(app, request).ok());
  }
  for (const char* name : {"exporttest-line.png", "exporttest-line.svg", "exporttest-line.csv"})
    EXPECT_EQ(read_file_bytes(dir / ("a/" + std::string(name))), read_file_bytes(dir / ("b/" + std::string(name))))
        << name;
}

TEST(SceneExport, PngWidthFollowsTheScale) {
  ScratchDir dir("tw-scene-export");
  std::string png[2];
  for (int scale : {1, 2}) {
    AppState app = scene_with_slope(1);
    FigureExportRequest request;
    request.out_dir = dir / std::to_string(scale);
    request.formats = plot::ExportFormat_Png;
    request.png_scale = static_cast<float>(scale);
    ASSERT_TRUE(export_open_panel_figures(app, request).ok());
    png[scale - 1] = read_file_bytes(dir / (std::to_string(scale) + "/exporttest-line.png"));
  }
  auto width = [](const std::string& p) {  // IHDR width, big-endian at byte 16
    return (uint8_t(p[16]) << 24) | (uint8_t(p[17]) << 16) | (uint8_t(p[18]) << 8) | uint8_t(p[19]);
  };
  ASSERT_GT(png[0].size(), 24u);
  EXPECT_EQ(width(png[1]), 2 * width(png[0]));
}

TEST(SceneExport, ProblemsAreMessagesNotCrashes) {
  ScratchDir dir("tw-scene-export");
  {
    AppState app = make_app_state();  // nothing open
    FigureExportRequest request;
    request.out_dir = dir / "none";
    const FigureExportResult r = export_open_panel_figures(app, request);
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.summary().find("no panel is open"), std::string::npos) << r.summary();
  }
  struct Case {
    FigureExportRequest request;
    const char* message;
  };
  std::ofstream(dir / "file") << "x";
  const Case cases[] = {
      {{.out_dir = "", .formats = plot::ExportFormat_All, .png_scale = 2, .theme = Theme::Print},
       "no output directory"},
      {{.out_dir = dir / "f", .formats = plot::ExportFormat_None, .png_scale = 2, .theme = Theme::Print},
       "no export format"},
      {{.out_dir = dir / "s", .formats = plot::ExportFormat_Png, .png_scale = 5, .theme = Theme::Print},
       "between 1 and 4"},
      {{.out_dir = dir / "s", .formats = plot::ExportFormat_Png, .png_scale = 0.5f, .theme = Theme::Print},
       "between 1 and 4"},
      {{.out_dir = dir / "file/sub", .formats = plot::ExportFormat_Csv, .png_scale = 2, .theme = Theme::Print},
       "file/sub"},
  };
  for (const Case& c : cases) {
    AppState app = scene_with_slope(1);
    const FigureExportResult r = export_open_panel_figures(app, c.request);
    EXPECT_FALSE(r.ok()) << c.message;
    ASSERT_FALSE(r.errors.empty()) << c.message;
    EXPECT_NE(r.errors.front().find(c.message), std::string::npos) << r.errors.front();
  }
}

TEST(SceneExport, DuplicateFigureIdsAreReportedAndTheFirstIsKept) {
  ScratchDir dir("tw-scene-export");
  AppState app = scene_with_slope(1);
  test_panel(app).s.duplicate_id = true;
  FigureExportRequest request;
  request.out_dir = dir / "dup";
  request.formats = plot::ExportFormat_Csv;
  const FigureExportResult r = export_open_panel_figures(app, request);
  EXPECT_EQ(r.written.size(), 1u);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors.front().find("share the id 'line'"), std::string::npos) << r.errors.front();
}

TEST(SceneExport, FormatListsParse) {
  plot::ExportFormats f = 0;
  EXPECT_FALSE(parse_export_formats("png,svg,csv", &f));
  EXPECT_EQ(f, plot::ExportFormat_All);
  EXPECT_FALSE(parse_export_formats("csv", &f));
  EXPECT_EQ(f, plot::ExportFormat_Csv);
  EXPECT_FALSE(parse_export_formats("svg,png", &f));
  EXPECT_EQ(f, plot::ExportFormat_Svg | plot::ExportFormat_Png);
  for (const char* bad : {"", "gif", "png,", "png,,svg", "PNG"}) {
    const auto problem = parse_export_formats(bad, &f);
    ASSERT_TRUE(problem) << bad;
    EXPECT_NE(problem->find("unknown format"), std::string::npos) << *problem;
  }
}

}  // namespace
}  // namespace tw
