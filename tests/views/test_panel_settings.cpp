// The settings structs core keeps for the panels (core/experiments/<x>_settings.h), from which the panels bind their
// controls (views/bind_settings.h) and the lessons read scene values: reading a panel's current values back, at its
// defaults and moved off them, gives exactly the fields the panel holds, and a key missing or of another type is not
// read; then each panel's mapping from settings to parameters.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "core/experiments/alibi_settings.h"
#include "core/experiments/architecture_settings.h"
#include "core/experiments/decoding_settings.h"
#include "core/experiments/flash_settings.h"
#include "core/experiments/gqa_settings.h"
#include "core/experiments/mask_settings.h"
#include "core/experiments/moe_settings.h"
#include "core/lessons/scene_settings.h"
#include "views/panel.h"

namespace tw {
namespace {

using Json = nlohmann::json;

// Each field as the panel's control stores it in a scene: {key: value}, enums by option name.
struct ToJson {
  Json out = Json::object();
  template <class T, class Spec>
  void operator()(const char* key, T& f, const Spec&) {
    put(key, f);
  }
  template <class E>
  void operator()(const char* key, E& f, const OptionsSpec& o) {
    const auto i = static_cast<size_t>(f);
    put(key, i < o.names.size() ? Json(o.names[i]) : Json(nullptr));
  }

 private:
  void put(const char* key, Json v) {
    EXPECT_FALSE(out.contains(key)) << key << " listed twice";
    out[key] = std::move(v);
  }
};

template <class S>
ToJson json_of(S s) {
  ToJson j;
  for_each_setting(s, j);
  return j;
}

// Moves every control off its default (numbers to their maximum, bools flipped, enums to the last option).
void move_off_defaults(Controls& c) {
  for (Control& k : c.all()) {
    switch (k.type) {
      case ControlType::Int: k.set(static_cast<int>(k.max)); break;
      case ControlType::Float: k.set(k.max); break;
      case ControlType::Bool: k.set(!k.get().get<bool>()); break;
      case ControlType::Enum: k.set(k.options.back()); break;
      case ControlType::Text:
      case ControlType::IntList: break;
    }
  }
}

Json scene_values(const Controls& c) {
  Json v = Json::object();
  const Json controls = c.to_json();
  for (const auto& [key, value] : controls.items()) v[c.panel_id() + "." + key] = value;
  return v;
}

template <class S>
void check_against_panel() {
  SCOPED_TRACE(S::kPanel);
  auto p = make_panel(S::kPanel);
  ASSERT_NE(p, nullptr);
  Controls& c = p->controls();
  const ToJson defaults = json_of(S{});
  ASSERT_FALSE(defaults.out.empty());

  // The panel's values read back: the settings hold what the panel's controls hold.
  std::optional<S> read = read_scene_settings<S>(scene_values(c));
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(json_of(*read).out, defaults.out);
  move_off_defaults(c);
  read = read_scene_settings<S>(scene_values(c));
  ASSERT_TRUE(read.has_value());
  const Json moved = json_of(*read).out;
  EXPECT_NE(moved, defaults.out);
  for (const auto& [key, value] : moved.items()) EXPECT_EQ(c.find(key)->get(), value) << key;

  // A key missing, or of another type: not readable (the quantity says "not computable").
  for (const auto& [key, value] : defaults.out.items()) {
    Json v = scene_values(c);
    v.erase(std::string(S::kPanel) + "." + key);
    EXPECT_FALSE(read_scene_settings<S>(v).has_value()) << key << " missing";
    v[std::string(S::kPanel) + "." + key] = Json::array({"x"});
    EXPECT_FALSE(read_scene_settings<S>(v).has_value()) << key << " of another type";
  }
}

TEST(PanelSettings, GqaReadsWhatThePanelHolds) { check_against_panel<GqaSettings>(); }

TEST(PanelSettings, GqaUnknownModelIsNotRead) {
  Json v = scene_values(make_panel("gqa")->controls());
  v["gqa.model"] = "no such model";
  EXPECT_FALSE(read_scene_settings<GqaSettings>(v).has_value());
  v["gqa.model"] = gqa_model_options().back();
  ASSERT_TRUE(read_scene_settings<GqaSettings>(v).has_value());
  EXPECT_EQ(read_scene_settings<GqaSettings>(v)->model, static_cast<int>(gqa_model_options().size()) - 1);
}

TEST(PanelSettings, GqaParamsSnapAndClamp) {
  GqaSettings s;
  s.n_heads = 12, s.n_kv_heads = 5, s.group = 9;  // divisors of 12: 1 2 3 4 6 12 → 4
  const GqaParams p = params_of(s);
  EXPECT_EQ(p.n_kv_heads, 4);
  EXPECT_EQ(p.group, 3);
  EXPECT_EQ(p.hidden, 0);
  s.model = 1;  // the first preset's shape, whatever the sliders say
  const GqaModelPreset& m = gqa_model_presets().front();
  EXPECT_EQ(params_of(s).n_heads, m.n_heads);
  EXPECT_EQ(params_of(s).n_kv_heads, m.n_kv_heads);
  EXPECT_EQ(params_of(s).hidden, m.hidden);
}

TEST(PanelSettings, MasksReadWhatThePanelHolds) { check_against_panel<MasksSettings>(); }

TEST(PanelSettings, MasksTermsInListOrder) {
  MasksSettings s;
  EXPECT_EQ(terms_of(s).size(), 1u);  // causal only
  s.base = MaskBase::PrefixLM, s.window = s.padding = s.documents = s.dilated = s.global = true;
  const std::vector<MaskTerm> t = terms_of(s);
  ASSERT_EQ(t.size(), 6u);
  const MaskKind kinds[] = {MaskKind::PrefixLM, MaskKind::SlidingWindow, MaskKind::Padding,
                            MaskKind::Document, MaskKind::Dilated,       MaskKind::Global};
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(t[i].kind, kinds[i]) << i;
  // Query 3 of a prefix-LM with a 6-token prefix may read key 5 (inside the prefix); the causal base may not.
  EXPECT_TRUE(t[0].allows(3, 5));
  s.base = MaskBase::Causal;
  EXPECT_FALSE(terms_of(s)[0].allows(3, 5));
  s.pad_side = PadSide::Right;  // pads at the end: the term counts the keys (T) to find them
  EXPECT_FALSE(terms_of(s)[2].pad_left);
  EXPECT_EQ(terms_of(s)[2].length, s.T);
}

TEST(PanelSettings, AlibiReadsWhatThePanelHolds) { check_against_panel<AlibiSettings>(); }

TEST(PanelSettings, AlibiHeadClampedAndThumbnailsCapped) {
  AlibiSettings s;
  s.n_heads = 4, s.head = 9, s.T = 40, s.scores = AlibiScores::RandomQk;
  const AlibiParams p = params_of(s);
  EXPECT_EQ(p.head, 3);
  EXPECT_EQ(p.thumb_T, 16);
  EXPECT_TRUE(p.random_scores);
  s.T = 8;
  EXPECT_EQ(params_of(s).thumb_T, 8);
}

TEST(PanelSettings, MoeReadsWhatThePanelHolds) { check_against_panel<MoeSettings>(); }

TEST(PanelSettings, MoeSlidersReachTheParams) {
  MoeSettings s;
  s.capacity_factor = 2.5f, s.router_bias = 0.75f, s.seed = 42;
  const MoeParams p = params_of(s);
  EXPECT_EQ(p.capacity_factor, 2.5);
  EXPECT_EQ(p.router_bias, 0.75);
  EXPECT_EQ(p.seed, 42u);
  EXPECT_EQ(p.experts, s.params.experts);
}

TEST(PanelSettings, FlashReadsWhatThePanelHolds) { check_against_panel<FlashSettings>(); }

TEST(PanelSettings, ArchitecturesReadWhatThePanelHolds) { check_against_panel<ArchitectureSettings>(); }

TEST(PanelSettings, ArchitecturesOwnModel) {
  ArchitectureSettings s;
  s.d_model = 1000, s.heads = 8;
  const ArchitectureConfig c = params_of(s);
  EXPECT_EQ(c.head_dim, 125);
  EXPECT_EQ(c.context, 4096);
  EXPECT_EQ(c.vocab, s.vocab);
  s.heads = 0;
  EXPECT_EQ(params_of(s).head_dim, 0);
  EXPECT_FALSE(validate(params_of(s)).empty());
}

TEST(PanelSettings, DecodingReadsWhatThePanelHolds) { check_against_panel<DecodingSettings>(); }

TEST(PanelSettings, DecodingInputsParsedAndChecked) {
  DecodingSettings s;
  DecodingInputs in = params_of(s);
  EXPECT_EQ(in.error, "");
  EXPECT_EQ(in.logits_p, (std::vector<double>{3, 2, 1.5, 1, 0.5, 0, -0.5, -1}));
  EXPECT_EQ(in.logits_q.size(), 8u);
  s.logits_q = "1, 2";  // lengths differ
  EXPECT_NE(params_of(s).error.find("same number"), std::string::npos) << params_of(s).error;
  s.logits_q = "1, 2, 3, 4, 5, 6, 7, 20000";
  EXPECT_NE(params_of(s).error.find("1e4"), std::string::npos) << params_of(s).error;
  s.logits_q = s.logits_p;
  s.sampling.top_p = 0;  // validate(SamplingConfig) rejects it
  EXPECT_FALSE(params_of(s).error.empty());
  s.logits_p = "1, x";
  EXPECT_NE(params_of(s).error.find("logits $p$"), std::string::npos) << params_of(s).error;
}

}  // namespace
}  // namespace tw
