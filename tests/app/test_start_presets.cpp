// Start page data (app/start_presets.h): card titles and one-line summaries, the thumbnail's box filter, a real
// preset's thumbnail (the first figure of its first panel, not blank) and a broken preset's error for its card.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string_view>

#include "app/app_state.h"
#include "app/file_menu.h"
#include "app/scene_presets.h"
#include "app/start_presets.h"
#include "views/handoffs.h"

namespace tw {
namespace {

namespace fs = std::filesystem;

TEST(StartPresets, TitlesSpellTheFieldsNames) {
  const std::pair<std::string, std::string> preset_titles[] = {{"softmax", "Softmax"},
                                                               {"train-pre-vs-post", "Train: pre vs post"},
                                                               {"stability-zloss", "Stability: z-loss"},
                                                               {"gqa", "GQA"},
                                                               {"rope", "RoPE"}};
  for (const auto& [preset, title] : preset_titles) EXPECT_EQ(preset_title(preset), title);
}

TEST(StartPresets, SummaryIsTheFirstSentence) {
  EXPECT_EQ(preset_summary("Lecture: one thing. Another thing."), "one thing.");
  // A decimal point and an ellipsis are not sentence ends.
  EXPECT_EQ(preset_summary("LayerNorm of [1 ... 9] is 0.5 wide. Then more."), "LayerNorm of [1 ... 9] is 0.5 wide.");
  const std::string longer = preset_summary(std::string(300, 'a') + " end.", 50);
  EXPECT_LE(longer.size(), 50u + 4u);  // cut, then " …"
  EXPECT_EQ(longer.substr(longer.size() - 3), "\xE2\x80\xA6");
}

TEST(StartPresets, HalvingAveragesTwoByTwoBlocks) {
  // 4 × 2 pixels → 2 × 1: each output is the rounded mean of a 2 × 2 block, channel by channel.
  std::vector<uint8_t> rgba(4 * 2 * 4);
  for (size_t i = 0; i < rgba.size(); ++i) rgba[i] = static_cast<uint8_t>(i * 7 % 256);
  int w = 0, h = 0;
  const std::vector<uint8_t> half = halve_rgba(rgba, 4, 2, &w, &h);
  ASSERT_EQ(w, 2);
  ASSERT_EQ(h, 1);
  for (int x = 0; x < 2; ++x)
    for (int k = 0; k < 4; ++k) {
      auto at = [&](int yy, int xx) { return int(rgba[size_t((yy * 4 + xx) * 4 + k)]); };
      const int expected = (at(0, 2 * x) + at(0, 2 * x + 1) + at(1, 2 * x) + at(1, 2 * x + 1) + 2) / 4;
      EXPECT_EQ(int(half[size_t(x * 4 + k)]), expected);
    }
}

TEST(StartPresets, EveryShippedPresetHasACardAndTheSoftmaxThumbnailShowsAFigure) {
  const std::vector<ScenePreset> presets = list_presets();
  ASSERT_FALSE(presets.empty()) << "no presets found in " << presets_dir();
  const auto it = std::find_if(presets.begin(), presets.end(), [](const auto& p) { return p.name == "softmax"; });
  ASSERT_NE(it, presets.end());
  AppState scratch = make_app_state();
  const PresetThumbnail t = render_preset_thumbnail(scratch, *it);
  EXPECT_EQ(t.error, "");
  // Half the figure's export size (640 × 400 logical at scale 1 for one axes; small multiples are larger).
  EXPECT_GE(t.width, 320);
  EXPECT_GE(t.height, 150);
  ASSERT_EQ(t.rgba.size(), size_t(t.width) * size_t(t.height) * 4);
  std::set<uint32_t> colours;
  for (size_t i = 0; i + 3 < t.rgba.size(); i += 4)
    colours.insert(uint32_t(t.rgba[i]) << 16 | uint32_t(t.rgba[i + 1]) << 8 | t.rgba[i + 2]);
  EXPECT_GT(colours.size(), 20u) << "the thumbnail is (nearly) blank";
}

// A thumbnail is a preview: rendering a preset that hands a comparison to the Training panel (a Stability
// "compare" scene) must neither post it nor ask the app to focus a panel, or the start page would switch the user's
// window to a training run nobody started.
TEST(StartPresets, AThumbnailNeverHandsAnythingToTheUsersPanels) {
  const std::vector<ScenePreset> presets = list_presets();
  const auto it =
      std::find_if(presets.begin(), presets.end(), [](const auto& p) { return p.name == "stability-zloss-compare"; });
  ASSERT_NE(it, presets.end());
  AppState live = make_app_state();  // the user's panels, with something handed over and not taken yet
  live.handoffs->post_values("forward", {{"temperature", 0.7}});
  live.handoffs->take_focus_request();
  AppState scratch = make_app_state();
  ASSERT_NE(scratch.handoffs, live.handoffs);
  const PresetThumbnail t = render_preset_thumbnail(scratch, *it);
  EXPECT_EQ(t.error, "");
  EXPECT_GT(t.width, 0);
  EXPECT_EQ(live.handoffs->take_focus_request(), "");
  EXPECT_FALSE(live.handoffs->take_train_comparison().has_value());
  EXPECT_EQ(live.handoffs->latest_training_run(), nullptr);
  EXPECT_EQ(live.handoffs->take_posted_values("forward"), nlohmann::json({{"temperature", 0.7}}))
      << "a preview does not take what was handed to the user's panels";
  // The preview's stability panel did hand its comparison over, to the preview's own Training panel.
  EXPECT_EQ(scratch.handoffs->take_focus_request(), "train");
}

// Every card shows its own content: no two shipped presets' thumbnails alike (the six Stability presets once shared
// one), and a training preset a curve from a short real run (points on its loss lines), not empty axes.
TEST(StartPresets, ThumbnailsOfDifferentCardsDifferAndTrainingCardsShowACurve) {
  const std::vector<ScenePreset> presets = list_presets();
  std::map<size_t, std::string> seen;  // hash of the pixels → preset
  int checked = 0;
  for (const ScenePreset& p : presets) {
    const bool training = p.name == "train-sort" || p.name == "train-induction";
    AppState scratch = make_app_state();
    const PresetThumbnail t = render_preset_thumbnail(scratch, p);
    ASSERT_EQ(t.error, "") << p.name;
    ASSERT_GT(t.width, 0) << p.name;
    if (!p.thumbnail.empty()) {
      EXPECT_EQ(t.figure, p.thumbnail) << p.name << ": the figure its scene names";
    }
    if (training) {
      EXPECT_EQ(t.figure, "train.loss") << p.name;
      EXPECT_GE(t.line_points, 20) << p.name << ": a trained curve, not empty axes";
    }
    const size_t hash =
        std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char*>(t.rgba.data()), t.rgba.size()));
    const auto [at, fresh] = seen.emplace(hash, p.name);
    EXPECT_TRUE(fresh) << p.name << " has the same thumbnail as " << at->second;
    ++checked;
  }
  EXPECT_EQ(checked, int(presets.size()));
}

TEST(StartPresets, ABrokenPresetGivesItsCardAnError) {
  const fs::path bad = fs::temp_directory_path() / ("tw_bad_preset_" + std::to_string(::getpid()) + ".json");
  { std::ofstream(bad) << R"({"version": 1, "open": ["no_such_panel"]})"; }
  AppState scratch = make_app_state();
  const PresetThumbnail t = render_preset_thumbnail(scratch, {.name = "bad", .path = bad.string()});
  fs::remove(bad);
  EXPECT_NE(t.error.find("no_such_panel"), std::string::npos) << t.error;
  EXPECT_EQ(t.width, 0);
}

}  // namespace
}  // namespace tw

namespace tw {
namespace {

// Cards follow the lecture: the first lesson's presets first, every shipped preset in a lesson.
TEST(StartPresets, PresetsAreInLessonOrder) {
  const std::vector<ScenePreset> presets = list_presets();
  ASSERT_GE(presets.size(), 4u);
  EXPECT_EQ(presets[0].name, "geometry");  // lesson 1 starts from the geometry of high dimensions
  EXPECT_EQ(presets[1].name, "softmax");
  EXPECT_EQ(presets[2].name, "lora");
  EXPECT_EQ(presets[3].name, "roofline");
  int last_lesson = 1;
  for (const ScenePreset& p : presets) {
    EXPECT_GE(p.lesson, 1) << p.name << " is in no lesson of lesson_order()";
    EXPECT_GE(p.lesson, last_lesson) << p.name << " comes after a later lesson";
    last_lesson = std::max(last_lesson, p.lesson);
  }
  const auto at = [&](const char* name) {
    return std::find_if(presets.begin(), presets.end(), [&](const auto& p) { return p.name == name; }) -
           presets.begin();
  };
  EXPECT_LT(at("forward"), at("alibi"));
  EXPECT_LT(at("alibi"), at("decoding"));
  EXPECT_LT(at("decoding"), at("stability"));
}

// The Forward card opens a trained model (the shipped language model of the interface language, else the sort
// model), not random weights.
TEST(StartPresets, TheForwardCardOpensATrainedModel) {
  const std::vector<ScenePreset> presets = list_presets();
  const auto it = std::find_if(presets.begin(), presets.end(), [](const auto& p) { return p.name == "forward"; });
  ASSERT_NE(it, presets.end());
  AppState app = make_app_state();
  ASSERT_TRUE(load_scene_into_state(app, it->path));
  PanelSlot* slot = app.find("forward");
  ASSERT_TRUE(slot && slot->open);
  slot->panel->update();
  slot->panel->wait_idle();
  EXPECT_EQ(slot->panel->error(), "");
  EXPECT_EQ(slot->panel->controls().find("model")->get(), "language");
  EXPECT_FALSE(slot->panel->figures().empty());
}

}  // namespace
}  // namespace tw
