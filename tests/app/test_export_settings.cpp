// File > Export's rules (app/export_figures.h, app/scene.h): descriptive names, never overwriting without an
// answer (Ask writes nothing when a file exists; KeepBoth adds -2; Overwrite replaces), absolute folders only, and
// the export settings surviving a session round trip.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "app/app_state.h"
#include "app/export_figures.h"
#include "app/scene.h"
#include "core/io/user_dirs.h"

namespace tw {

namespace plot {
// EXPECT_EQ on export settings prints both as the session file stores them.
void PrintTo(const ExportSettings& ex, std::ostream* os) {
  nlohmann::ordered_json session;
  session_exports_to_json(ex, &session);
  *os << session.dump();
}
}  // namespace plot

namespace {

namespace fs = std::filesystem;

class GuiExport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tw_gui_export_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    state_ = make_app_state();
    ASSERT_TRUE(state_.open_panel("gallery"));
    request_.out_dir = dir_.string();
    request_.formats = plot::ExportFormat_Csv;
    request_.descriptive_names = true;
  }
  void TearDown() override { fs::remove_all(dir_); }
  size_t files() const {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++n;
    return n;
  }
  fs::path dir_;
  AppState state_;
  FigureExportRequest request_;
};

TEST_F(GuiExport, NamesSayWhatTheFigureShows) {
  request_.existing = FigureExportRequest::Existing::Ask;
  const FigureExportResult r = export_open_panel_figures(state_, request_);
  ASSERT_TRUE(r.ok()) << (r.errors.empty() ? "" : r.errors.front());
  EXPECT_TRUE(r.existing.empty());
  // The gallery's histogram: id "histogram", title "Histogram of N(0, 1) samples".
  EXPECT_TRUE(fs::exists(dir_ / "gallery-histogram-histogram-of-n.csv") ||
              fs::exists(dir_ / "gallery-histogram-histogram-of-n-samples.csv"))
      << "files: " << files();
  EXPECT_TRUE(fs::exists(dir_ / "gallery-scatter.csv"));  // the title only repeats the id
}

TEST_F(GuiExport, AskWritesNothingWhenAFileExistsThenKeepBothAndOverwrite) {
  request_.existing = FigureExportRequest::Existing::Ask;
  const FigureExportResult first = export_open_panel_figures(state_, request_);
  ASSERT_TRUE(first.ok());
  const size_t n = files();
  ASSERT_EQ(n, first.written.size());
  const fs::path scatter = dir_ / "gallery-scatter.csv";
  { std::ofstream(scatter) << "mine"; }  // the user edited one file

  const FigureExportResult again = export_open_panel_figures(state_, request_);
  EXPECT_EQ(again.existing.size(), n);  // every file is in the way, and the user is asked
  EXPECT_TRUE(again.written.empty());
  EXPECT_EQ(files(), n);

  request_.existing = FigureExportRequest::Existing::KeepBoth;
  const FigureExportResult both = export_open_panel_figures(state_, request_);
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(files(), 2 * n);
  EXPECT_TRUE(fs::exists(dir_ / "gallery-scatter-2.csv"));
  std::ifstream in(scatter);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "mine");  // kept

  request_.existing = FigureExportRequest::Existing::Overwrite;
  ASSERT_TRUE(export_open_panel_figures(state_, request_).ok());
  EXPECT_EQ(files(), 2 * n);  // no -3: the named files were replaced
  std::ifstream in2(scatter);
  std::string text2((std::istreambuf_iterator<char>(in2)), std::istreambuf_iterator<char>());
  EXPECT_NE(text2, "mine");
}

TEST(ExportSettingsRules, FolderMustBeAbsolute) {
  EXPECT_NE(export_dir_problem(""), "");
  EXPECT_NE(export_dir_problem("figures"), "");
  EXPECT_EQ(export_dir_problem("/tmp/some/new/folder"), "");
  EXPECT_TRUE(fs::path(default_export_dir()).is_absolute());
  // Under the user's home like the scenes and checkpoints, not in the working directory.
  EXPECT_EQ(default_export_dir(), (fs::path(user_work_dir()) / "figures").string());
  EXPECT_NE(fs::path(default_export_dir()).parent_path(), fs::current_path());
  const fs::path file = fs::temp_directory_path() / ("tw_not_a_folder_" + std::to_string(::getpid()));
  { std::ofstream(file) << "x"; }
  EXPECT_NE(export_dir_problem(file.string()), "");
  fs::remove(file);
}

TEST(ExportSettingsRules, SessionRoundTripKeepsTheSettingsAndIgnoresBadValues) {
  ExportSettings a;
  a.dir = "/home/lecturer/slides/figures";
  a.png = false;
  a.csv = false;
  a.png_scale = 3;
  a.print_theme = false;
  a.slide = true;     // 16:9
  a.caption = false;  // no title or note
  nlohmann::ordered_json session;
  session_exports_to_json(a, &session);
  ExportSettings b;
  session_exports_from_json(nlohmann::json::parse(session.dump()), &b);
  EXPECT_EQ(b, a);

  ExportSettings c;
  const ExportSettings defaults;
  session_exports_from_json(nlohmann::json::parse(R"({"exports": {"dir": "relative", "png_scale": 9, "png": "yes"}})"),
                            &c);
  EXPECT_EQ(c.dir, defaults.dir);
  EXPECT_EQ(c.png_scale, defaults.png_scale);
  EXPECT_EQ(c.png, defaults.png);
}

TEST(ExportSettingsRules, TheSessionRemembersTheExportFolder) {
  const fs::path config = fs::temp_directory_path() / ("tw_export_session_" + std::to_string(::getpid()));
  fs::remove_all(config);
  const char* old = std::getenv("XDG_CONFIG_HOME");
  const std::string saved = old ? old : "";
  ::setenv("XDG_CONFIG_HOME", config.c_str(), 1);
  AppState a = make_app_state();
  a.exports.dir = "/srv/lecture/figures";
  a.exports.png_scale = 4;
  std::string error;
  ASSERT_TRUE(save_last_session(a, &error)) << error;
  AppState b = make_app_state();
  const SceneLoad r = restore_last_session(b);
  if (old)
    ::setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
  else
    ::unsetenv("XDG_CONFIG_HOME");
  fs::remove_all(config);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(b.exports.dir, "/srv/lecture/figures");
  EXPECT_EQ(b.exports.png_scale, 4);
}

TEST(ExportSettingsRules, ASceneWithExportsLoadsWithoutWarnings) {
  AppState state = make_app_state();
  const SceneLoad r = load_scene_text(state, R"({"version": 1, "exports": {"dir": "/x"}})");
  EXPECT_TRUE(r.ok);
  EXPECT_TRUE(r.warnings.empty());
}

}  // namespace
}  // namespace tw
