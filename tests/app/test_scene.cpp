// Scene files: round trip, validation before apply, warnings, --set parsing, last session.
// A test-only panel (registered here, so it exists in this executable only) covers every control type.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>

#include "app/scene.h"
#include "scratch_dir.h"
#include "views/scene_test_util.h"

namespace tw {
namespace {

struct SceneTestState {
  bool causal = true;
  int heads = 8;
  float temperature = 1.0f;
  int mode = 0;  // index into {"plain", "alibi", "rope"}
  std::string prompt = "the cat";
  std::vector<int> tokens = {1, 2, 3};
  float angle = 1.0f;
};

class SceneTestPanel : public Panel {
 public:
  PanelInfo info() const override { return {"scenetest", "Scene test panel", "Zz tests", "Only in test_scene"}; }
  void draw(const DrawContext&) override {}
  SceneTestState s;

 protected:
  void bind(Controls& c) override {
    c.add_bool("causal", &s.causal, "Causal", "Mask future tokens.");
    c.add_int("heads", &s.heads, 1, 64, "Heads", "Number of heads.");
    c.add_float("temperature", &s.temperature, 0.05f, 10.0f, "Temperature", "Divides the logits.", true);
    c.add_enum("mode", &s.mode, {"plain", "alibi", "rope"}, "Mode", "Position scheme.");
    c.add_text("prompt", &s.prompt, 32, "Prompt", "Text to tokenize.");
    c.add_int_list("tokens", &s.tokens, 0, 99, 4, "Tokens", "Token ids.");
    c.add_float("angle", &s.angle, 0.0f, 6.2832f, "Angle", "A float bound that is not exact in binary.");
  }
};
TW_REGISTER_PANEL(SceneTestPanel);

SceneTestState& test_state(AppState& app) {
  PanelSlot* slot = app.find("scenetest");
  EXPECT_NE(slot, nullptr);
  return static_cast<SceneTestPanel*>(slot->panel.get())->s;
}

// A state that differs from the defaults in every field the scene covers.
AppState changed_state() {
  AppState app = make_app_state();
  SceneTestState& s = test_state(app);
  s.causal = false;
  s.heads = 12;
  s.temperature = 0.1f;
  s.mode = 2;
  s.prompt = "héllo \"world\"";
  s.tokens = {7, 0, 99};
  app.theme = Theme::Print;
  app.open_panel("scenetest");
  return app;
}

using testing::read_file_bytes;
using testing::ScopedEnv;
using testing::ScratchDir;

TEST(Scene, RoundTripRestoresEveryValueOpenPanelAndTheme) {
  auto [text, loaded, r] = testing::scene_round_trip(changed_state());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.warnings.empty());
  const SceneTestState& s = test_state(loaded);
  EXPECT_FALSE(s.causal);
  EXPECT_EQ(s.heads, 12);
  EXPECT_EQ(s.temperature, 0.1f);  // exact: the shortest form reads back as the same float
  EXPECT_EQ(s.mode, 2);
  EXPECT_EQ(s.prompt, "héllo \"world\"");
  EXPECT_EQ(s.tokens, (std::vector<int>{7, 0, 99}));
  EXPECT_EQ(loaded.theme, Theme::Print);
  EXPECT_TRUE(loaded.find("scenetest")->open);
  EXPECT_EQ(scene_to_text(loaded), text);
}

// A valid value different from the default (when the control allows one), for any control of any panel.
nlohmann::json other_value(const Control& c) {
  const nlohmann::json& d = c.default_value;
  switch (c.type) {
    case ControlType::Bool: return !d.get<bool>();
    case ControlType::Int: return d.get<double>() == c.max ? static_cast<int>(c.min) : static_cast<int>(c.max);
    case ControlType::Float: return d.get<double>() == c.max ? c.min : c.max;
    case ControlType::Enum: return c.options.back() == d ? c.options.front() : c.options.back();
    case ControlType::Text: return d == "x" ? "y" : "x";
    case ControlType::IntList: return nlohmann::json::array({static_cast<int>(c.max)});
  }
  return d;
}

// Every registered panel (real ones included, automatically as they are added) survives save → load.
TEST(Scene, EveryControlOfEveryPanelRoundTrips) {
  AppState saved = make_app_state();
  int changed = 0;
  for (auto& slot : saved.panels) {
    slot.open = true;
    for (Control& c : slot.panel->controls().all()) {
      const nlohmann::json v = other_value(c);
      ASSERT_FALSE(c.check(v, c.key)) << slot.info.id << "." << c.key << " " << v;
      c.set(v);
      changed += v != c.default_value;
    }
  }
  EXPECT_GT(changed, 6);
  auto [text, loaded, r] = testing::scene_round_trip(saved);
  ASSERT_TRUE(r.ok) << r.error;
  for (size_t i = 0; i < saved.panels.size(); ++i) {
    EXPECT_TRUE(loaded.panels[i].open);
    const auto& a = saved.panels[i].panel->controls().all();
    const auto& b = loaded.panels[i].panel->controls().all();
    ASSERT_EQ(a.size(), b.size());
    for (size_t k = 0; k < a.size(); ++k)
      EXPECT_EQ(a[k].get(), b[k].get()) << saved.panels[i].info.id << "." << a[k].key;
  }
  EXPECT_EQ(scene_to_text(loaded), text);
}

TEST(Scene, SavedTextIsReadableAndDeterministic) {
  const AppState app = changed_state();
  const std::string text = scene_to_text(app);
  EXPECT_EQ(text, scene_to_text(app));
  EXPECT_EQ(text.rfind("{\n  \"version\": 1,", 0), 0u) << text;  // version first, so it is seen first
  EXPECT_NE(text.find("\"scenetest.temperature\": 0.1,"), std::string::npos) << text;
  EXPECT_NE(text.find("\"scenetest.mode\": \"rope\""), std::string::npos) << text;
  EXPECT_EQ(text.back(), '\n');
}

TEST(Scene, FileRoundTripIsAtomicAndLeavesNoTemporaryFile) {
  ScratchDir dir("tw-scene-test");
  const AppState saved = changed_state();
  std::string error;
  ASSERT_TRUE(save_scene_file(saved, dir / "a.json", &error)) << error;
  ASSERT_TRUE(save_scene_file(saved, dir / "a.json", &error)) << error;  // overwrite through rename
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    ++files;
    EXPECT_EQ(entry.path().filename(), "a.json");
  }
  EXPECT_EQ(files, 1);
  AppState loaded = make_app_state();
  const SceneLoad r = load_scene_file(loaded, dir / "a.json");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(scene_to_text(loaded), scene_to_text(saved));
}

TEST(Scene, UnwritablePathIsAMessageNotACrash) {
  ScratchDir dir("tw-scene-test");
  const AppState app = make_app_state();
  std::string error;
  EXPECT_FALSE(save_scene_file(app, dir / "no/such/dir/a.json", &error));
  EXPECT_NE(error.find("no/such/dir/a.json"), std::string::npos) << error;
  EXPECT_FALSE(save_scene_file(app, dir.path(), &error));
  EXPECT_NE(error.find("directory"), std::string::npos) << error;
}

TEST(Scene, MissingKeysResetToDefaultsAndUnlistedPanelsClose) {
  AppState app = changed_state();
  const SceneLoad r = load_scene_text(app, R"({"version": 1, "values": {"scenetest.heads": 4}})");
  ASSERT_TRUE(r.ok) << r.error;
  const SceneTestState& s = test_state(app);
  EXPECT_EQ(s.heads, 4);
  const SceneTestState defaults;
  EXPECT_EQ(s.causal, defaults.causal);
  EXPECT_EQ(s.temperature, defaults.temperature);
  EXPECT_EQ(s.mode, defaults.mode);
  EXPECT_EQ(s.prompt, defaults.prompt);
  EXPECT_EQ(s.tokens, defaults.tokens);
  EXPECT_EQ(app.theme, Theme::Dark);
  EXPECT_FALSE(app.find("scenetest")->open);
}

// Each bad scene must be refused with a message containing `names`, leaving the state byte-for-byte as it was.
struct BadScene {
  const char* text;
  const char* names;
};

TEST(Scene, MalformedScenesAreRejectedAndStateIsUnchanged) {
  const BadScene cases[] = {
      {"", "not valid JSON"},
      {"{", "not valid JSON"},
      {"{\"version\": 1,}", "not valid JSON"},
      {"[1, 2]", "JSON object"},
      {"42", "JSON object"},
      {"null", "JSON object"},
      {"{}", "version"},
      {"{\"version\": 2}", "version"},
      {"{\"version\": \"1\"}", "version"},
      {"{\"version\": 1.5}", "version"},
      {"{\"version\": 1, \"open\": [\"nope\"]}", "no panel with id 'nope'"},
      {"{\"version\": 1, \"open\": \"scenetest\"}", "open"},
      {"{\"version\": 1, \"open\": [3]}", "open"},
      {"{\"version\": 1, \"theme\": \"neon\"}", "theme"},
      {"{\"version\": 1, \"values\": []}", "values"},
      {"{\"version\": 1, \"values\": {\"scenetest.heads\": \"many\"}}", "scenetest.heads"},
      {"{\"version\": 1, \"values\": {\"scenetest.heads\": 4.5}}", "scenetest.heads"},
      {"{\"version\": 1, \"values\": {\"scenetest.heads\": 65}}", "scenetest.heads"},
      {"{\"version\": 1, \"values\": {\"scenetest.heads\": 0}}", "scenetest.heads"},
      {"{\"version\": 1, \"values\": {\"scenetest.temperature\": 1e400}}", "1e400"},
      {"{\"version\": 1, \"values\": {\"scenetest.temperature\": 0.01}}", "scenetest.temperature"},
      {"{\"version\": 1, \"values\": {\"scenetest.temperature\": 1e300}}", "scenetest.temperature"},
      {"{\"version\": 1, \"values\": {\"scenetest.temperature\": -1e300}}", "scenetest.temperature"},
      {"{\"version\": 1, \"values\": {\"scenetest.causal\": 1}}", "scenetest.causal"},
      {"{\"version\": 1, \"values\": {\"scenetest.mode\": \"sinusoidal\"}}", "scenetest.mode"},
      {"{\"version\": 1, \"values\": {\"scenetest.mode\": 1}}", "scenetest.mode"},
      {"{\"version\": 1, \"values\": {\"scenetest.prompt\": \"0123456789012345678901234567890123\"}}",
       "scenetest.prompt"},
      {"{\"version\": 1, \"values\": {\"scenetest.tokens\": [1, 100]}}", "scenetest.tokens"},
      {"{\"version\": 1, \"values\": {\"scenetest.tokens\": [1, 2, 3, 4, 5]}}", "scenetest.tokens"},
      {"{\"version\": 1, \"values\": {\"scenetest.tokens\": 5}}", "scenetest.tokens"},
      {"{\"version\": 1, \"description\": 5}", "description"},
  };
  for (const BadScene& bad : cases) {
    AppState app = changed_state();
    const std::string before = scene_to_text(app);
    const SceneLoad r = load_scene_text(app, bad.text);
    EXPECT_FALSE(r.ok) << bad.text;
    EXPECT_NE(r.error.find(bad.names), std::string::npos) << bad.text << " → " << r.error;
    EXPECT_EQ(scene_to_text(app), before) << bad.text;
  }
}

TEST(Scene, OneBadValueMeansNothingIsApplied) {
  AppState app = changed_state();
  const std::string before = scene_to_text(app);
  const SceneLoad r = load_scene_text(app, R"({"version": 1, "theme": "dark", "open": [],
      "values": {"scenetest.heads": 2, "scenetest.mode": "alibi", "scenetest.tokens": [1, -1]}})");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.error.find("scenetest.tokens"), std::string::npos) << r.error;
  EXPECT_EQ(test_state(app).heads, 12);
  EXPECT_EQ(scene_to_text(app), before);
}

TEST(Scene, EveryProblemIsListedAndCounted) {
  AppState app = make_app_state();
  const SceneLoad r = load_scene_text(
      app, R"({"version": 1, "values": {"scenetest.heads": 99, "scenetest.causal": "yes", "scenetest.mode": 0}})");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.errors.size(), 3u);
  EXPECT_NE(r.error.find("(and 2 more)"), std::string::npos) << r.error;
}

TEST(Scene, UnknownKeysAndFieldsWarnAndTheRestIsApplied) {
  AppState app = make_app_state();
  const SceneLoad r = load_scene_text(app, R"({"version": 1, "colour": "red", "open": ["scenetest"],
      "values": {"scenetest.heads": 3, "scenetest.nope": 1, "nopanel.x": 2, "nodot": 3}})");
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.warnings.size(), 4u);
  const std::string all = r.warnings[0] + r.warnings[1] + r.warnings[2] + r.warnings[3];
  for (const char* name : {"colour", "scenetest.nope", "nopanel.x", "nodot"})
    EXPECT_NE(all.find(name), std::string::npos) << name << " not in: " << all;
  EXPECT_EQ(test_state(app).heads, 3);
  EXPECT_TRUE(app.find("scenetest")->open);
}

TEST(Scene, HostileInputIsRefusedWithoutCrashing) {
  AppState app = changed_state();
  const std::string before = scene_to_text(app);
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string deep_value =
      "{\"version\": 1, \"values\": {\"scenetest.heads\": " + std::string(5000, '[') + std::string(5000, ']') + "}}";
  const std::string bad_utf8 = "{\"version\": 1, \"values\": {\"scenetest.prompt\": \"\xff\xfe\"}}";
  const std::string nul = std::string("{\"version\": 1\0}", 15);
  for (const std::string& text : {deep, deep_value, bad_utf8, nul}) {
    const SceneLoad r = load_scene_text(app, text);
    EXPECT_FALSE(r.ok);
    EXPECT_FALSE(r.error.empty());
    EXPECT_LE(r.error.size(), 400u);  // one readable line, whatever the input
    EXPECT_EQ(scene_to_text(app), before);
  }
}

// Random byte edits of a valid scene: each load either succeeds or leaves the state untouched.
TEST(Scene, MutatedScenesEitherLoadOrChangeNothing) {
  const std::string valid = scene_to_text(changed_state());
  std::mt19937 rng(1234);
  int accepted = 0, rejected = 0;
  std::optional<AppState> app;
  std::string before;
  for (int i = 0; i < 3000; ++i) {
    std::string text = valid;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0: text[at] = static_cast<char>(rng() % 256); break;
        case 1: text.erase(at, 1 + rng() % 8); break;
        default: text.insert(at, 1, "{}[]\",:0-e."[rng() % 11]); break;
      }
    }
    // A refused load leaves the state as it was (asserted below), so the next edit starts from the same state; an
    // accepted one changed it, and the next starts from a fresh one. Building every panel's state 3,000 times took
    // most of this test's 90 s.
    if (!app) {
      app.emplace(make_app_state());
      test_state(*app).heads = 33;
      before = scene_to_text(*app);
    }
    const SceneLoad r = load_scene_text(*app, text);
    if (r.ok) {
      ++accepted;
      app.reset();
    } else {
      ++rejected;
      ASSERT_EQ(scene_to_text(*app), before) << text;
      ASSERT_FALSE(r.error.empty());
    }
  }
  EXPECT_GT(rejected, 0);
  EXPECT_GT(accepted, 0);  // edits inside strings or whitespace keep a scene valid
}

TEST(Scene, SetArgumentsParseAsJsonWithLiteralStringsForEnumAndText) {
  const AppState app = make_app_state();
  struct Good {
    const char* arg;
    const char* key;
    nlohmann::json value;
  };
  const Good good[] = {
      {"scenetest.heads=16", "scenetest.heads", 16},
      {"scenetest.temperature=0.5", "scenetest.temperature", 0.5},
      {"scenetest.causal=false", "scenetest.causal", false},
      {"scenetest.mode=alibi", "scenetest.mode", "alibi"},
      {"scenetest.mode=\"rope\"", "scenetest.mode", "rope"},
      {"scenetest.prompt=42", "scenetest.prompt", "42"},
      {"scenetest.prompt=a=b", "scenetest.prompt", "a=b"},
      {"scenetest.prompt=", "scenetest.prompt", ""},
      {"scenetest.tokens=[4,5]", "scenetest.tokens", nlohmann::json::array({4, 5})},
      // The bound as printed (6.2832) is accepted though 6.2832 > double(6.2832f): values are rounded to float.
      {"scenetest.angle=6.2832", "scenetest.angle", static_cast<double>(6.2832f)},
  };
  for (const Good& g : good) {
    SceneOverride out;
    const auto problem = parse_set_argument(app, g.arg, &out);
    EXPECT_FALSE(problem) << g.arg << ": " << problem.value_or("");
    EXPECT_EQ(out.first, g.key);
    EXPECT_EQ(out.second, g.value) << g.arg;
  }
  const std::pair<const char*, const char*> bad[] = {
      {"scenetest.heads", "key=value"},
      {"=3", "key=value"},
      {"scenetest.nope=3", "scenetest.nope: no such key"},
      {"scenetest.heads=abc", "scenetest.heads"},
      {"scenetest.heads=1000", "scenetest.heads"},
      {"scenetest.mode=sinusoidal", "scenetest.mode"},
      {"scenetest.causal=yes", "scenetest.causal"},
      {"scenetest.angle=6.2833", "scenetest.angle"},
  };
  for (const auto& [arg, names] : bad) {
    SceneOverride out;
    const auto problem = parse_set_argument(app, arg, &out);
    ASSERT_TRUE(problem) << arg;
    EXPECT_NE(problem->find(names), std::string::npos) << arg << " → " << *problem;
  }
}

TEST(Scene, OverridesWinOverTheSceneAndUnknownOverridesAreErrors) {
  AppState app = make_app_state();
  const char* scene = R"({"version": 1, "values": {"scenetest.heads": 4, "scenetest.mode": "rope"}})";
  SceneLoad r = load_scene_text(app, scene, {{"scenetest.heads", 6}});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(test_state(app).heads, 6);
  EXPECT_EQ(test_state(app).mode, 2);

  const std::string before = scene_to_text(app);
  r = load_scene_text(app, scene, {{"scenetest.heads", 2}, {"scenetest.typo", 1}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("scenetest.typo"), std::string::npos) << r.error;
  EXPECT_EQ(scene_to_text(app), before);
  r = load_scene_text(app, scene, {{"scenetest.heads", 0}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("scenetest.heads"), std::string::npos) << r.error;
  EXPECT_EQ(scene_to_text(app), before);
}

TEST(Scene, MissingAndDirectoryFilesAreMessages) {
  ScratchDir dir("tw-scene-test");
  AppState app = changed_state();
  const std::string before = scene_to_text(app);
  SceneLoad r = load_scene_file(app, dir / "absent.json");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("absent.json"), std::string::npos) << r.error;
  r = load_scene_file(app, dir.path());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("directory"), std::string::npos) << r.error;
  EXPECT_EQ(scene_to_text(app), before);
}

// A scene named " " (or with a trailing slash) would be a file no one sees in a listing: refused with a message.
TEST(Scene, SavingUnderABlankNameIsRefused) {
  ScratchDir dir("tw-scene-test");
  AppState app = make_app_state();
  for (const std::string name : {" ", "   ", "\t", "sub/"}) {
    std::string error;
    EXPECT_FALSE(save_scene_file(app, dir / name, &error)) << "'" << name << "'";
    EXPECT_NE(error.find("has no file name"), std::string::npos) << error;
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
  std::string error;
  EXPECT_TRUE(save_scene_file(app, dir / "a b.json", &error)) << error;  // spaces inside a name are fine
}

TEST(Scene, LastSessionSavesAndRestoresUnderXdgConfigHome) {
  ScratchDir dir("tw-scene-test");
  ScopedEnv xdg("XDG_CONFIG_HOME", dir.path());
  EXPECT_EQ(last_session_path(), dir / "transformer-workbench/last-session.json");

  AppState fresh = make_app_state();
  SceneLoad r = restore_last_session(fresh);  // no file yet: fine, nothing to say
  EXPECT_TRUE(r.ok);
  EXPECT_TRUE(r.warnings.empty());

  std::string error;
  ASSERT_TRUE(save_last_session(changed_state(), &error)) << error;  // creates the directory
  AppState restored = make_app_state();
  r = restore_last_session(restored);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(scene_to_text(restored), scene_to_text(changed_state()));

  AppState skipped = make_app_state();
  restore_session_at_startup(skipped, /*fresh=*/true);
  EXPECT_EQ(scene_to_text(skipped), scene_to_text(make_app_state()));
}

TEST(Scene, BrokenLastSessionIsAWarningAndTheStateStaysDefault) {
  ScratchDir dir("tw-scene-test");
  ScopedEnv xdg("XDG_CONFIG_HOME", dir.path());
  std::filesystem::create_directories(dir / "transformer-workbench");
  std::ofstream(dir / "transformer-workbench/last-session.json") << "{\"version\": 1, \"values\": {";
  AppState app = make_app_state();
  restore_session_at_startup(app, /*fresh=*/false);
  EXPECT_NE(app.status.find("Last session not restored"), std::string::npos) << app.status;
  app.status.clear();
  EXPECT_EQ(scene_to_text(app), scene_to_text(make_app_state()));
}

// A session that fails to load is never lost: it is moved to last-session.json.bad, the message says where, and
// the save at exit writes a new session beside it.
TEST(Scene, FailedLastSessionIsKeptAsBadAndTheUserIsToldWhere) {
  const std::string broken[] = {
      "{\"version\": 1, \"values\": {",                               // corrupt (cut off mid-write)
      "{\"version\": 99, \"open\": []}",                              // written by a newer build
      "{\"version\": 1, \"values\": {\"scenetest.heads\": 100000}}",  // one bad value
  };
  for (const std::string& text : broken) {
    ScratchDir dir("tw-scene-test");
    ScopedEnv xdg("XDG_CONFIG_HOME", dir.path());
    const std::string path = last_session_path();
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << text;
    AppState app = make_app_state();
    restore_session_at_startup(app, /*fresh=*/false);
    EXPECT_NE(app.status.find("kept as " + path + ".bad"), std::string::npos) << app.status;
    EXPECT_EQ(read_file_bytes(path + ".bad"), text);
    EXPECT_FALSE(std::filesystem::exists(path));
    save_session_at_exit(app);
    EXPECT_EQ(read_file_bytes(path), scene_to_text(app));
    EXPECT_EQ(read_file_bytes(path + ".bad"), text) << "the save at exit must not touch the kept file";
  }
}

// Each failed session gets its own name: a second broken session never replaces the first one kept.
TEST(Scene, KeptSessionsAreNumberedNotOverwritten) {
  ScratchDir dir("tw-scene-test");
  ScopedEnv xdg("XDG_CONFIG_HOME", dir.path());
  const std::string path = last_session_path();
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  const std::string kept[] = {path + ".bad", path + ".bad.2", path + ".bad.3"};
  for (int i = 0; i < 3; ++i) {
    const std::string text = "{\"version\": 1, \"values\": {" + std::to_string(i);
    std::ofstream(path) << text;
    AppState app = make_app_state();
    restore_session_at_startup(app, /*fresh=*/false);
    EXPECT_NE(app.status.find("kept as " + kept[i]), std::string::npos) << app.status;
    EXPECT_EQ(read_file_bytes(kept[i]), text);
  }
  EXPECT_EQ(read_file_bytes(kept[0]), "{\"version\": 1, \"values\": {0") << "the oldest kept file is untouched";
}

// A corrupt export-settings.json is not reset silently: the defaults are used, the file is kept aside, and the
// status line and stderr say so.
TEST(Scene, CorruptExportSettingsAreKeptAsBadWithAMessage) {
  ScratchDir dir("tw-scene-test");
  ScopedEnv xdg("XDG_CONFIG_HOME", dir.path());
  std::string error;
  AppState saved = make_app_state();
  saved.exports.png_scale = 3;
  ASSERT_TRUE(save_last_session(saved, &error)) << error;
  const std::string settings = session_exports_path();
  AppState good = make_app_state();
  restore_session_at_startup(good, /*fresh=*/false);
  EXPECT_EQ(good.exports.png_scale, 3);
  EXPECT_TRUE(good.status.empty()) << good.status;

  for (const std::string& broken :
       {std::string("{\"exports\": {\"png_scale\": 3"), std::string("[1, 2]"), std::string(100, '[')}) {
    std::ofstream(settings, std::ios::trunc) << broken;
    AppState app = make_app_state();
    restore_session_at_startup(app, /*fresh=*/false);
    EXPECT_EQ(app.exports.png_scale, make_app_state().exports.png_scale) << broken;
    EXPECT_NE(app.status.find("export settings reset to defaults, the file was kept as " + settings + ".bad"),
              std::string::npos)
        << app.status;
    EXPECT_EQ(read_file_bytes(settings + ".bad"), broken);
    std::filesystem::remove(settings + ".bad");
  }
}

TEST(Scene, UnreadableLastSessionIsKeptToo) {
  ScratchDir dir("tw-scene-test");
  ScopedEnv xdg("XDG_CONFIG_HOME", dir.path());
  const std::string path = last_session_path();
  std::filesystem::create_directories(path);  // a directory where the file should be: it cannot be read
  AppState app = make_app_state();
  restore_session_at_startup(app, /*fresh=*/false);
  EXPECT_NE(app.status.find("is a directory"), std::string::npos) << app.status;
  EXPECT_NE(app.status.find("kept as " + path + ".bad"), std::string::npos) << app.status;
  EXPECT_TRUE(std::filesystem::is_directory(path + ".bad"));
}

TEST(Scene, FreshDoesNotOverwriteTheSavedSessionUnlessSomethingChanges) {
  ScratchDir dir("tw-scene-test");
  ScopedEnv xdg("XDG_CONFIG_HOME", dir.path());
  std::string error;
  ASSERT_TRUE(save_last_session(changed_state(), &error)) << error;
  const std::string saved = read_file_bytes(last_session_path());

  AppState untouched = make_app_state();
  restore_session_at_startup(untouched, /*fresh=*/true);
  save_session_at_exit(untouched);
  EXPECT_EQ(read_file_bytes(last_session_path()), saved) << "--fresh with no change must keep the saved session";

  AppState changed = make_app_state();
  restore_session_at_startup(changed, /*fresh=*/true);
  changed.theme = changed.theme == Theme::Print ? Theme::Dark : Theme::Print;
  save_session_at_exit(changed);
  EXPECT_EQ(read_file_bytes(last_session_path()), scene_to_text(changed)) << "a change made after --fresh is saved";
}

TEST(Scene, UnusableConfigDirectoryWarnsAtRestore) {
  ScratchDir dir("tw-scene-test");
  ScopedEnv xdg("XDG_CONFIG_HOME", dir.path());
  std::ofstream(dir / "transformer-workbench") << "a file where the directory should be";
  EXPECT_NE(session_dir_problem().find("is not a directory"), std::string::npos) << session_dir_problem();
  AppState app = make_app_state();
  restore_session_at_startup(app, /*fresh=*/false);
  EXPECT_NE(app.status.find("session cannot be saved"), std::string::npos) << app.status;
}

TEST(Scene, RelativeXdgConfigHomeIsIgnoredInFavourOfHome) {
  ScopedEnv xdg("XDG_CONFIG_HOME", "relative/dir");
  ScopedEnv home("HOME", "/home/someone");
  EXPECT_EQ(last_session_path(), "/home/someone/.config/transformer-workbench/last-session.json");
}

}  // namespace
}  // namespace tw
