// Lesson 2–5 quantities against reference numbers worked out by hand (closed forms written out below), plus the
// rules every quantity follows: nullopt, never a guess, when a value it needs is missing or unusable.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/lessons/lesson_quantity.h"

namespace tw {
namespace {

using Json = nlohmann::json;

std::vector<LessonQuantity> all_quantities() {
  std::vector<LessonQuantity> all;
  for (auto list : {lesson_2_quantities, lesson_3_quantities, lesson_4_quantities, lesson_5_quantities})
    for (const LessonQuantity& q : list()) all.push_back(q);
  return all;
}

std::optional<double> q(const std::string& name, const Json& values) {
  for (const LessonQuantity& l : all_quantities())
    if (name == l.name) return l.compute(values);
  ADD_FAILURE() << "no quantity " << name;
  return std::nullopt;
}

// Each panel's keys at their defaults (docs/scenes.md), with `over` on top.
Json with(Json base, const Json& over) {
  for (const auto& [k, v] : over.items()) base[k] = v;
  return base;
}
const Json kNorms = {{"norms.vector", "1, 2, 3, 4, 5, 6, 7, 8, 9"}, {"norms.batch", 8},         {"norms.eps", 1e-5},
                     {"norms.dims", {512, 1024, 2048, 4096}},       {"norms.multiple_of", 256}, {"norms.seed", 1}};
const Json kRope = {
    {"rope.head_dim", 64}, {"rope.base", 10000.0}, {"rope.query_pos", 12}, {"rope.pair", 0}, {"rope.scaling", "none"}};
const Json kGqa = {{"gqa.model", "custom"}, {"gqa.n_heads", 8},         {"gqa.n_kv_heads", 2},
                   {"gqa.head_dim", 128},   {"gqa.layers", 32},         {"gqa.seq_len", 4096},
                   {"gqa.batch", 1},        {"gqa.bytes_per_value", 2}, {"gqa.head_similarity", 0.0},
                   {"gqa.group", 0},        {"gqa.toy_tokens", 10},     {"gqa.seed", 1}};
const Json kMasks = {{"masks.T", 24},
                     {"masks.base", "causal"},
                     {"masks.prefix", 6},
                     {"masks.window", false},
                     {"masks.window_size", 4},
                     {"masks.padding", false},
                     {"masks.pad_count", 3},
                     {"masks.pad_side", "left"},
                     {"masks.documents", false},
                     {"masks.doc_lengths", {8, 6, 10}},
                     {"masks.dilated", false},
                     {"masks.stride", 2},
                     {"masks.global", false},
                     {"masks.global_count", 2},
                     {"masks.layers", 6},
                     {"masks.global_every", 0}};
const Json kArch = {{"architectures.d_model", 256}, {"architectures.layers", 4},  {"architectures.heads", 8},
                    {"architectures.kv_heads", 4},  {"architectures.d_ff", 768},  {"architectures.vocab", 8192},
                    {"architectures.gated", true},  {"architectures.tied", false}};
const Json kAlibi = {
    {"alibi.n_heads", 8},        {"alibi.T", 24},         {"alibi.head", 0},       {"alibi.symmetric", false},
    {"alibi.scores", "uniform"}, {"alibi.train_len", 64}, {"alibi.eval_len", 256}, {"alibi.seed", 0}};
const Json kFlash = {{"flash.T", 256},    {"flash.D", 64},         {"flash.tile_q", 4},
                     {"flash.tile_k", 4}, {"flash.causal", false}, {"flash.seed", 1}};
const Json kMoe = {
    {"moe.tokens", 16}, {"moe.dim", 16},     {"moe.experts", 8},       {"moe.top_k", 2}, {"moe.capacity_factor", 1.0},
    {"moe.hidden", 64}, {"moe.gated", true}, {"moe.router_bias", 1.0}, {"moe.seed", 1}};
const Json kDecoding = {{"decoding.logits_p", "3, 2, 1.5, 1, 0.5, 0, -0.5, -1"},
                        {"decoding.temp_p", 1.0},
                        {"decoding.logits_q", "2, 2, 1.5, 1, 1, 0.5, 0, 0"},
                        {"decoding.temp_q", 1.0},
                        {"decoding.temperature", 1.0},
                        {"decoding.top_k", 0},
                        {"decoding.top_p", 1.0},
                        {"decoding.min_p", 0.0},
                        {"decoding.min_keep", 1},
                        {"decoding.loss", 1.2}};
const Json kStability = {{"stability.cap", 5.0}, {"stability.x_range", 20.0}, {"stability.z_loss", 1e-4}};

TEST(LessonQuantities, NamesAreUniqueAndDescribed) {
  std::vector<std::string> names;
  for (const LessonQuantity& l : all_quantities()) {
    EXPECT_EQ(std::count(names.begin(), names.end(), l.name), 0) << l.name;
    names.push_back(l.name);
    EXPECT_GT(std::string(l.what).size(), 10u) << l.name;
    EXPECT_FALSE(l.compute(Json::object()).has_value()) << l.name << " computed something from no values";
    EXPECT_FALSE(l.compute(Json::array()).has_value()) << l.name;
  }
  EXPECT_GE(names.size(), 20u);
}

TEST(LessonQuantities, Norms) {
  EXPECT_NEAR(*q("norms.mean_square", kNorms), 285.0 / 9.0, 1e-9);  // (1 + 4 + … + 81) / 9
  EXPECT_NEAR(*q("norms.mean_square", with(kNorms, {{"norms.vector", "3, 4"}})), 12.5, 1e-9);
  EXPECT_FALSE(q("norms.mean_square", with(kNorms, {{"norms.vector", "3, x"}})).has_value());
  EXPECT_EQ(*q("norms.gated_hidden", with(kNorms, {{"norms.dims", {4096}}})), 11008);  // 43 · 256
  EXPECT_EQ(*q("norms.gated_hidden", with(kNorms, {{"norms.dims", {2048}}})), 5632);   // ⌈5461 / 256⌉ = 22
  EXPECT_EQ(*q("norms.gated_hidden", with(kNorms, {{"norms.dims", {4096}}, {"norms.multiple_of", 1}})), 10922);
  EXPECT_FALSE(q("norms.gated_hidden", with(kNorms, {{"norms.dims", Json::array()}})).has_value());
}

TEST(LessonQuantities, RopeWavelength) {
  const double two_pi = 2 * 3.14159265358979323846;
  EXPECT_NEAR(*q("rope.pair_wavelength", kRope), two_pi, 1e-12);                                   // θ_0 = 1
  EXPECT_NEAR(*q("rope.pair_wavelength", with(kRope, {{"rope.pair", 8}})), two_pi / 0.1, 1e-9);    // 10^4^(−1/4)
  EXPECT_NEAR(*q("rope.pair_wavelength", with(kRope, {{"rope.pair", 16}})), two_pi / 0.01, 1e-8);  // 10^4^(−1/2)
  EXPECT_NEAR(*q("rope.pair_wavelength", with(kRope, {{"rope.query_pos", 40}})), two_pi, 1e-12);   // not m
  EXPECT_FALSE(q("rope.pair_wavelength", with(kRope, {{"rope.scaling", "linear"}})).has_value());
}

TEST(LessonQuantities, GqaCache) {
  EXPECT_DOUBLE_EQ(*q("gqa.cache_ratio", kGqa), 0.25);
  EXPECT_DOUBLE_EQ(*q("gqa.cache_ratio", with(kGqa, {{"gqa.n_kv_heads", 3}})), 0.25);  // snapped down to 2
  EXPECT_DOUBLE_EQ(*q("gqa.cache_ratio", with(kGqa, {{"gqa.n_kv_heads", 8}})), 1.0);
  EXPECT_DOUBLE_EQ(*q("gqa.cache_ratio", with(kGqa, {{"gqa.model", "Llama-3-8B"}})), 0.25);  // 8 of 32
  // 2 · 32 layers · 8 KV heads · 128 · 8192 tokens · 2 bytes = 2^30.
  EXPECT_DOUBLE_EQ(*q("gqa.bytes_per_token", with(kGqa, {{"gqa.model", "Llama-3-8B"}, {"gqa.seq_len", 8192}})),
                   131072.0);  // per token: 2 · 32 · 8 · 128 · 2 bytes = 2^30 / 8192
  EXPECT_DOUBLE_EQ(*q("gqa.bytes_per_token", with(kGqa, {{"gqa.model", "Llama-3-8B"}, {"gqa.seq_len", 100}})),
                   131072.0);
  EXPECT_FALSE(q("gqa.cache_ratio", with(kGqa, {{"gqa.model", "GPT-9"}})).has_value());
}

TEST(LessonQuantities, Masks) {
  const Json t8 = with(kMasks, {{"masks.T", 8}});
  EXPECT_EQ(*q("masks.visible_cells", t8), 36);
  EXPECT_EQ(*q("masks.visible_cells", with(t8, {{"masks.base", "bidirectional"}})), 64);
  const Json t12 = with(kMasks, {{"masks.T", 12}});
  EXPECT_EQ(*q("masks.visible_cells", with(t12, {{"masks.base", "prefix-LM"}, {"masks.prefix", 4}})), 78 + 6);
  EXPECT_EQ(*q("masks.visible_cells", with(t12, {{"masks.padding", true}})), 45);  // 9 real tokens, causal
  EXPECT_EQ(*q("masks.visible_cells", with(t8, {{"masks.window", true}, {"masks.window_size", 2}})), 8 + 7);
  EXPECT_FALSE(q("masks.visible_cells", with(t8, {{"masks.base", "sideways"}})).has_value());
  // Window W = 8 over 6 layers: 6 · 7 = 42 positions back, 43 positions counting itself.
  const Json local = with(kMasks, {{"masks.T", 64}, {"masks.window", true}, {"masks.window_size", 8}});
  EXPECT_EQ(*q("masks.last_query_reach", local), 42);
  EXPECT_EQ(*q("masks.last_query_count", local), 43);
  EXPECT_EQ(*q("masks.last_query_count", with(local, {{"masks.global_every", 6}})), 64);
  EXPECT_EQ(*q("masks.last_query_count", with(local, {{"masks.layers", 1}})), 8);
}

TEST(LessonQuantities, Architectures) {
  // Per layer: attention 256² + 2·256·4·32 + 256² = 196608, SwiGLU 3·256·768 = 589824, norms 512.
  const double layer = 196608 + 589824 + 512;
  EXPECT_EQ(*q("architectures.total_params", kArch), 4 * layer + 256 + 2 * 8192.0 * 256);
  EXPECT_EQ(*q("architectures.total_params", with(kArch, {{"architectures.tied", true}})),
            4 * layer + 256 + 8192.0 * 256);
  EXPECT_NEAR(*q("architectures.mlp_share", kArch), 4 * 589824.0 / (4 * layer + 256 + 2 * 8192.0 * 256), 1e-12);
  // LLaMA 2 7B as published: 6,738,415,616.
  const Json llama2 = {{"architectures.d_model", 4096}, {"architectures.layers", 32},  {"architectures.heads", 32},
                       {"architectures.kv_heads", 32},  {"architectures.d_ff", 11008}, {"architectures.vocab", 32000},
                       {"architectures.gated", true},   {"architectures.tied", false}};
  EXPECT_EQ(*q("architectures.total_params", llama2), 6738415616.0);
  EXPECT_FALSE(q("architectures.total_params", with(kArch, {{"architectures.heads", 0}})).has_value());
}

TEST(LessonQuantities, Alibi) {
  EXPECT_DOUBLE_EQ(*q("alibi.penalty_at_100", kAlibi), 50.0);  // 100 · 2^(−8·1/8)
  EXPECT_DOUBLE_EQ(*q("alibi.penalty_at_100", with(kAlibi, {{"alibi.head", 7}})), 100.0 / 256);
  EXPECT_DOUBLE_EQ(*q("alibi.penalty_at_100", with(kAlibi, {{"alibi.n_heads", 4}})), 25.0);       // 2^(−8·1/4)
  EXPECT_DOUBLE_EQ(*q("alibi.penalty_at_100", with(kAlibi, {{"alibi.head", 60}})), 100.0 / 256);  // clamped
  // Uniform scores: the slowest head (m = 1/256) weighs distance d by r^d, r = e^(−1/256), d = 0 … 255;
  // its share at d ≥ 64 is (r^64 − r^256) / (1 − r^256).
  const double r = std::exp(-1.0 / 256);
  EXPECT_NEAR(*q("alibi.most_beyond_train", kAlibi), (std::pow(r, 64) - std::pow(r, 256)) / (1 - std::pow(r, 256)),
              1e-6);  // the probabilities are floats
  EXPECT_NEAR(*q("alibi.most_beyond_train", with(kAlibi, {{"alibi.train_len", 256}})), 0.0, 1e-12);
  EXPECT_FALSE(q("alibi.most_beyond_train", with(kAlibi, {{"alibi.scores", "learned"}})).has_value());
}

TEST(LessonQuantities, FlashTraffic) {
  // Standard: 4TD + 4T² = 327680 floats. Tiled without a mask: 2TD + 2TD·⌈T/tile_q⌉.
  EXPECT_NEAR(*q("flash.traffic_saving", kFlash), 327680.0 / (32768.0 + 32768.0 * 64), 1e-12);
  EXPECT_NEAR(*q("flash.traffic_saving", with(kFlash, {{"flash.tile_q", 128}})), 327680.0 / 98304.0, 1e-12);
  EXPECT_FALSE(q("flash.traffic_saving", with(kFlash, {{"flash.T", 0}})).has_value());
}

TEST(LessonQuantities, Moe) {
  EXPECT_GT(*q("moe.dropped", kMoe), 0);  // expert 0 is favoured and overflows at capacity ⌈16·2/8⌉ = 4
  // Capacity ⌈4·16·2/8⌉ = 16: every expert can take every token.
  EXPECT_EQ(*q("moe.dropped", with(kMoe, {{"moe.capacity_factor", 4.0}})), 0);
  // Expert 3·16·64 = 3072, router 8·16 = 128: active (2·3072 + 128) of (8·3072 + 128).
  EXPECT_NEAR(*q("moe.active_share", kMoe), 6272.0 / 24704.0, 1e-12);
}

TEST(LessonQuantities, Decoding) {
  const Json flat = with(kDecoding, {{"decoding.logits_p", "0, 0, 0, 0, 0, 0, 0, 0"}});
  EXPECT_NEAR(*q("decoding.entropy_p", flat), 3.0, 1e-12);
  EXPECT_NEAR(*q("decoding.kl_pq", with(kDecoding, {{"decoding.logits_q", "3, 2, 1.5, 1, 0.5, 0, -0.5, -1"}})), 0.0,
              1e-12);
  // p = (1/2, 1/2), q = (1/4, 3/4): H(p, q) = ½·2 + ½·log2(4/3) bits.
  const Json two = with(kDecoding, {{"decoding.logits_p", "0, 0"}, {"decoding.logits_q", "0, 1.0986122886681098"}});
  EXPECT_NEAR(*q("decoding.cross_entropy", two), 1.0 + 0.5 * std::log2(4.0 / 3.0), 1e-9);
  EXPECT_NEAR(*q("decoding.kl_pq", two), 0.5 * std::log2(4.0 / 3.0), 1e-9);  // H(p, q) − H(p), H(p) = 1
  EXPECT_NEAR(*q("decoding.typed_perplexity", with(kDecoding, {{"decoding.loss", 2.3}})), std::exp(2.3), 1e-5);
  // Probabilities 0.524, 0.193, 0.117, 0.071, …: top-p 0.9 keeps the first four (0.83 < 0.9 ≤ 0.91).
  EXPECT_EQ(*q("decoding.kept_tokens", with(kDecoding, {{"decoding.top_p", 0.9}})), 4);
  EXPECT_EQ(*q("decoding.kept_tokens", with(kDecoding, {{"decoding.top_k", 2}})), 2);
  double z = 0;
  for (double l : {3.0, 2.0, 1.5, 1.0, 0.5, 0.0, -0.5, -1.0}) z += std::exp(l);
  EXPECT_NEAR(*q("decoding.top_probability", kDecoding), std::exp(3.0) / z, 1e-6);
  EXPECT_FALSE(q("decoding.entropy_p", with(kDecoding, {{"decoding.logits_q", "1, 2"}})).has_value());  // lengths
}

TEST(LessonQuantities, WordPieceTokens) {
  const Json t = {
      {"tokenizers.text", "the newest widest lowest road. the newest road, the widest road, the lowest road."},
      {"tokenizers.file", ""},
      {"tokenizers.vocab", 400},
      {"tokenizers.sentence", "the newest widest lowest road"}};
  EXPECT_EQ(*q("tokenizers.wordpiece_tokens", t), 5);  // every word is in the training text: one token each
  const double few = *q("tokenizers.wordpiece_tokens", with(t, {{"tokenizers.vocab", 20}}));
  EXPECT_GT(few, 5);
  EXPECT_LE(few, 25);  // at worst one token per character (25 letters, spaces split words)
  EXPECT_FALSE(q("tokenizers.wordpiece_tokens", with(t, {{"tokenizers.file", "/tmp/x.txt"}})).has_value());
}

TEST(LessonQuantities, Stability) {
  EXPECT_NEAR(*q("stability.softcap_at_edge", kStability), 5 * std::tanh(4.0), 1e-6);
  EXPECT_NEAR(*q("stability.softcap_at_edge", with(kStability, {{"stability.cap", 30.0}})), 30 * std::tanh(2.0 / 3),
              1e-5);
  EXPECT_NEAR(*q("stability.zloss_at_15", kStability), 1e-4 * 225, 1e-7);  // the slider holds 1e-4 as a float
  EXPECT_FALSE(q("stability.zloss_at_15", with(kStability, {{"stability.z_loss", 0.0}})).has_value());
}

// What the lessons' solution texts claim about other answers than the stored one.
TEST(LessonQuantities, SolutionTextClaims) {
  // "any c above about 20 passes": 20·tanh(1) = 15.23 ≥ 15 > 19·tanh(20/19) = 14.87.
  EXPECT_GE(*q("stability.softcap_at_edge", with(kStability, {{"stability.cap", 20.0}})), 15.0);
  EXPECT_LT(*q("stability.softcap_at_edge", with(kStability, {{"stability.cap", 19.0}})), 15.0);
  // "anything below about 0.4 passes" (top probability ≥ 0.9): 0.91 at τ = 0.38, 0.897 at τ = 0.4.
  EXPECT_GE(*q("decoding.top_probability", with(kDecoding, {{"decoding.temperature", 0.38}})), 0.9);
  EXPECT_LT(*q("decoding.top_probability", with(kDecoding, {{"decoding.temperature", 0.4}})), 0.9);
  // "Every 2nd (Gemma 2) or 3rd also passes".
  const Json local = with(kMasks, {{"masks.T", 64}, {"masks.window", true}, {"masks.window_size", 8}});
  for (int every : {2, 3, 6}) EXPECT_EQ(*q("masks.last_query_count", with(local, {{"masks.global_every", every}})), 64);
  EXPECT_LT(*q("masks.last_query_count", with(local, {{"masks.global_every", 7}})), 64);  // no global layer in 6
  // "under 0.1 from L ≈ 216" for the slowest ALiBi head at evaluation length 256.
  EXPECT_LT(*q("alibi.most_beyond_train", with(kAlibi, {{"alibi.train_len", 218}})), 0.1);
  EXPECT_GT(*q("alibi.most_beyond_train", with(kAlibi, {{"alibi.train_len", 212}})), 0.1);
  // "H_kv = 1 (MQA) also passes" the quarter-cache exercise.
  EXPECT_DOUBLE_EQ(*q("gqa.cache_ratio", with(kGqa, {{"gqa.n_kv_heads", 1}})), 0.125);
  // The plain-MLP exercise: d_ff = 4d keeps LLaMA 2 7B within 1%.
  const Json plain = {{"architectures.d_model", 4096}, {"architectures.layers", 32},  {"architectures.heads", 32},
                      {"architectures.kv_heads", 32},  {"architectures.d_ff", 16384}, {"architectures.vocab", 32000},
                      {"architectures.gated", false},  {"architectures.tied", false}};
  EXPECT_NEAR(*q("architectures.total_params", plain), 6738415616.0, 0.01 * 6738415616.0);
}

}  // namespace
}  // namespace tw
