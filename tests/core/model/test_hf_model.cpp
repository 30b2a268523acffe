#include "core/model/hf_model.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/base/read_file.h"
#include "core/compare.h"
#include "core/model/forward.h"
#include "core/ops/rope.h"

namespace tw {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

ModelConfig small_llama(bool tied) {
  ModelConfig c{.dim = 32, .n_layers = 2, .n_heads = 4, .n_kv_heads = 2, .vocab = 300, .hidden = 48, .max_seq = 64};
  c.tie_embeddings = tied;
  return c;
}

std::string fresh_hf_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/hf_" + name;
  fs::remove_all(dir);
  return dir;
}

void write_text(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// Where a test wrote its checkpoint.
struct Saved {
  std::string dir;
  std::vector<std::string> files;  // the file names save_hf_checkpoint wrote
};

// Saves (w, c) as a Hugging Face checkpoint into a fresh temp folder hf_<name>.
::testing::AssertionResult save_fresh(Saved* out, const std::string& name, const ModelWeights& w, const ModelConfig& c,
                                      const HfSaveOptions& options) {
  out->dir = fresh_hf_dir(name);
  std::string error;
  if (!save_hf_checkpoint(out->dir, w, c, options, &out->files, &error)) {
    return ::testing::AssertionFailure() << "save_hf_checkpoint: " << error;
  }
  return ::testing::AssertionSuccess();
}

// save_fresh, then the checkpoint loaded back into *m: where every round trip starts.
::testing::AssertionResult save_and_load(Saved* out, HfModel* m, const std::string& name, const ModelWeights& w,
                                         const ModelConfig& c, const HfSaveOptions& save,
                                         const HfLoadOptions& load = {}) {
  if (::testing::AssertionResult saved = save_fresh(out, name, w, c, save); !saved) return saved;
  std::string error;
  if (!load_hf_model(out->dir, load, m, &error)) return ::testing::AssertionFailure() << "load_hf_model: " << error;
  return ::testing::AssertionSuccess();
}

// Every float the loader produced equals the original rounded to the stored type, bit for bit.
void expect_rounded_copy(const ModelWeights& got, ModelWeights want, const ModelConfig& c, StorageType t) {
  round_weights(want, c, t);
  std::vector<std::pair<std::string, std::vector<float>>> a, b;
  ModelWeights g = got;
  visit_parameters(g, c, [&](const std::string& n, float* d, int64_t s, ParamKind) { a.push_back({n, {d, d + s}}); });
  visit_parameters(want, c, [&](const std::string& n, float* d, int64_t s, ParamKind) {
    b.push_back({n, {d, d + s}});
  });
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].first, b[i].first);
    EXPECT_EQ(a[i].second, b[i].second) << a[i].first;
  }
}

// [SECTION] round trips

TEST(HfModel, Bf16ShardedTiedCheckpointLoadsExactly) {
  const ModelConfig c = small_llama(/*tied=*/true);
  const ModelWeights w = init_weights(c, 7);
  double last_progress = 0;
  HfLoadOptions opt;
  opt.progress = [&](double f) {
    EXPECT_GE(f, last_progress);
    last_progress = f;
    return true;
  };
  Saved saved;
  HfModel m;
  // 8 KB shards: the 300×32 embedding alone is 19 KB in BF16, so the checkpoint spreads over several files.
  ASSERT_TRUE(save_and_load(&saved, &m, "bf16_sharded", w, c, {StorageType::BF16, 8192}, opt));
  EXPECT_GT(saved.files.size(), 4u);
  EXPECT_TRUE(fs::exists(saved.dir + "/model.safetensors.index.json"));
  EXPECT_FALSE(fs::exists(saved.dir + "/model.safetensors"));

  EXPECT_EQ(m.architecture, "LlamaForCausalLM");
  EXPECT_EQ(m.stored_dtype, StorageType::BF16);
  EXPECT_EQ(m.shards, static_cast<int>(saved.files.size()) - 2);  // minus config.json and the index
  EXPECT_DOUBLE_EQ(last_progress, 1.0);
  EXPECT_TRUE(m.config.tie_embeddings);
  EXPECT_EQ(m.weights.lm_head.size(), 0);
  EXPECT_EQ(m.stored_bytes, parameter_count(c) * 2);
  expect_rounded_copy(m.weights, w, c, StorageType::BF16);
  EXPECT_FALSE(m.has_tokenizer);
}

TEST(HfModel, F16UntiedSingleFile) {
  const ModelConfig c = small_llama(/*tied=*/false);
  const ModelWeights w = init_weights(c, 8);
  Saved saved;
  HfModel m;
  ASSERT_TRUE(save_and_load(&saved, &m, "f16", w, c, {StorageType::F16, 0}));
  EXPECT_EQ(saved.files, (std::vector<std::string>{"config.json", "model.safetensors"}));
  EXPECT_EQ(m.stored_dtype, StorageType::F16);
  EXPECT_EQ(m.weights.lm_head.rows(), c.vocab);
  expect_rounded_copy(m.weights, w, c, StorageType::F16);
  // The loaded model runs, and its logits are those of the rounded weights.
  ModelWeights rounded = w;
  round_weights(rounded, c, StorageType::F16);
  Mat a, b;
  std::string error;
  ASSERT_TRUE(forward(a, nullptr, m.weights, m.config, {1, 5, 9, 299}, &error)) << error;
  ASSERT_TRUE(forward(b, nullptr, rounded, c, {1, 5, 9, 299}, &error)) << error;
  EXPECT_LT(max_rel_diff(a, b), 1e-6);
}

TEST(HfModel, Qwen2BiasesAreLoadedAndAdded) {
  ModelConfig c = small_llama(false);
  c.attn_bias = true;
  const ModelWeights w = init_weights(c, 9);
  ASSERT_EQ(w.layers[0].bq.size(), c.n_heads * c.head_dim());
  Saved saved;
  HfModel m;
  ASSERT_TRUE(save_and_load(&saved, &m, "qwen2", w, c, {StorageType::F32, 0}));
  EXPECT_EQ(m.architecture, "Qwen2ForCausalLM");
  ASSERT_TRUE(m.config.attn_bias);
  expect_rounded_copy(m.weights, w, c, StorageType::F32);

  // q = a·W_qᵀ + b_q, k and v alike, computed here in double from the traced norm output.
  Trace trace;
  Mat logits;
  std::string error;
  ASSERT_TRUE(forward(logits, &trace, m.weights, m.config, {3, 1, 4, 1, 5}, &error)) << error;
  const MatD a = trace.find("layers.1.attn_norm")->value.cast<double>();
  const LayerWeights& l = m.weights.layers[1];
  const std::pair<const char*, std::pair<const Mat*, const Vec*>> projections[] = {
      {"layers.1.attn.q", {&l.wq, &l.bq}}, {"layers.1.attn.k", {&l.wk, &l.bk}}, {"layers.1.attn.v", {&l.wv, &l.bv}}};
  for (const auto& [name, wb] : projections) {
    MatD want = a * wb.first->cast<double>().transpose();
    want.rowwise() += wb.second->cast<double>().transpose();
    EXPECT_LT(max_rel_diff(trace.find(name)->value, want.cast<float>()), 1e-5) << name;
  }
  // Zero biases give exactly the bias-free model: the bias is the only difference.
  ModelWeights zero_bias = w;
  for (LayerWeights& lw : zero_bias.layers) lw.bq.setZero(), lw.bk.setZero(), lw.bv.setZero();
  ModelConfig plain = c;
  plain.attn_bias = false;
  Mat with_zero, without;
  ASSERT_TRUE(forward(with_zero, nullptr, zero_bias, c, {3, 1, 4}, &error));
  ASSERT_TRUE(forward(without, nullptr, zero_bias, plain, {3, 1, 4}, &error));
  EXPECT_EQ(max_rel_diff(with_zero, without), 0.0);
}

TEST(HfModel, LinearRopeScalingDividesFrequencies) {
  ModelConfig c = small_llama(false);
  c.rope_scaling = RopeScaling::Linear;
  c.rope_factor = 4.0f;
  std::string error;
  ModelConfig back;
  ASSERT_TRUE(config_from_json(config_to_json(c), &back, &error)) << error;
  EXPECT_EQ(back.rope_scaling, RopeScaling::Linear);
  EXPECT_EQ(back.rope_factor, 4.0f);
  const ModelWeights w = init_weights(c, 3);
  Trace trace;
  Mat logits;
  ASSERT_TRUE(forward(logits, &trace, w, c, {1, 2, 3, 4, 5, 6, 7, 8}, &error)) << error;
  // Independent reference: θ_k = base^(−2k/D) / factor, rotated with the plain rope_apply.
  std::vector<double> theta = rope_frequencies(c.head_dim(), c.rope_base);
  for (double& t : theta) t /= 4.0;
  Mat cos, sin, want;
  rope_cos_sin(cos, sin, theta, 0, 8);
  rope_apply(want, trace.find("layers.0.attn.q")->value, cos, sin, RopeConvention::HalfSplit, 8, c.n_heads,
             c.head_dim());
  EXPECT_LT(max_rel_diff(trace.find("layers.0.attn.q_rope")->value, want), 1e-6);
}

// [SECTION] config.json of real checkpoints

TEST(HfModel, ConfigKeysOfRealCheckpoints) {
  // SmolLM2-135M's shape (trimmed to the keys that matter).
  const std::string smol = R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 576, "intermediate_size": 1536,
    "num_hidden_layers": 30, "num_attention_heads": 9, "num_key_value_heads": 3, "vocab_size": 49152,
    "max_position_embeddings": 8192, "rms_norm_eps": 1e-05, "rope_theta": 100000, "rope_scaling": null,
    "tie_word_embeddings": true, "hidden_act": "silu", "bos_token_id": 0, "head_dim": 64})";
  ModelConfig c;
  std::string arch, error;
  ASSERT_TRUE(hf_config_from_json(smol, {}, &c, &arch, &error)) << error;
  EXPECT_EQ(c.dim, 576);
  EXPECT_EQ(c.n_kv_heads, 3);
  EXPECT_EQ(c.head_dim(), 64);
  EXPECT_EQ(c.max_seq, 512);  // capped for tracing
  EXPECT_TRUE(c.tie_embeddings);
  EXPECT_EQ(parameter_count(c), 134515008);  // SmolLM2-135M's published parameter count

  // Qwen2 names a window but switches it off; a Llama 3 rope_scaling block keeps its trained length.
  const std::string qwen = R"({"architectures": ["Qwen2ForCausalLM"], "hidden_size": 64, "intermediate_size": 96,
    "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 100,
    "max_position_embeddings": 32768, "sliding_window": 32, "use_sliding_window": false, "rope_theta": 1000000.0,
    "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192}})";
  ASSERT_TRUE(hf_config_from_json(qwen, {}, &c, &arch, &error)) << error;
  EXPECT_EQ(arch, "Qwen2ForCausalLM");
  EXPECT_TRUE(c.attn_bias);
  EXPECT_EQ(c.attention, AttentionPattern::Full);
  EXPECT_EQ(c.rope_scaling, RopeScaling::Llama3);
  EXPECT_EQ(rope_config(c).original_context, 8192);
  EXPECT_EQ(rope_config(c).factor, 8.0);

  // Mistral's window is kept when shorter than the sequences we run.
  json mistral = json::parse(qwen);
  mistral["architectures"] = {"MistralForCausalLM"};
  mistral.erase("use_sliding_window");
  mistral.erase("rope_scaling");
  ASSERT_TRUE(hf_config_from_json(mistral.dump(), {}, &c, &arch, &error)) << error;
  EXPECT_FALSE(c.attn_bias);
  EXPECT_EQ(c.attention, AttentionPattern::Sliding);
  EXPECT_EQ(c.window, 32);

  // Older configs give only model_type; HF's eps default (1e-6) applies when the key is absent.
  json typed = mistral;
  typed.erase("architectures");
  typed.erase("rms_norm_eps");
  typed["model_type"] = "qwen2";
  ASSERT_TRUE(hf_config_from_json(typed.dump(), {}, &c, &arch, &error)) << error;
  EXPECT_EQ(arch, "Qwen2ForCausalLM");
  EXPECT_TRUE(c.attn_bias);
  EXPECT_EQ(c.eps, 1e-6f);
  typed["mlp_bias"] = true;
  EXPECT_FALSE(hf_config_from_json(typed.dump(), {}, &c, &arch, &error));
  EXPECT_EQ(error, "config.json: mlp_bias (biases in the MLP projections) is not supported");

  mistral["architectures"] = {"GPTNeoXForCausalLM"};
  EXPECT_FALSE(hf_config_from_json(mistral.dump(), {}, &c, &arch, &error));
  EXPECT_EQ(error, "config.json: architecture 'GPTNeoXForCausalLM' is not supported (supported: " +
                       std::string(supported_architectures()) + ")");
  mistral["architectures"] = {"LlamaForCausalLM"};
  mistral["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 4.0}};
  EXPECT_FALSE(hf_config_from_json(mistral.dump(), {}, &c, &arch, &error));
  EXPECT_EQ(error, "config.json: rope_scaling type 'yarn' is not supported (linear, dynamic or llama3)");
}

// [SECTION] refusals: one line, and the previous model stays

TEST(HfModel, BadFoldersGiveOneLineAndKeepThePreviousModel) {
  const ModelConfig c = small_llama(true);
  const ModelWeights w = init_weights(c, 1);
  Saved saved;
  HfModel previous;
  ASSERT_TRUE(save_and_load(&saved, &previous, "good", w, c, {StorageType::BF16, 4096}));
  const std::string& good = saved.dir;
  std::string error;

  const auto expect_refused = [&](const std::string& dir, const std::string& needle) {
    HfModel m = previous;
    std::string e;
    EXPECT_FALSE(load_hf_model(dir, {}, &m, &e)) << dir;
    EXPECT_NE(e.find(needle), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    EXPECT_EQ(m.dir, good);  // untouched
  };
  expect_refused(good + "/nope", "is not a folder");

  // config.json that is a FIFO is refused by the bounded reader instead of blocking the load forever.
  const std::string fifo = fresh_hf_dir("fifo_config");
  fs::create_directories(fifo);
  ASSERT_EQ(::mkfifo((fifo + "/config.json").c_str(), 0600), 0);
  expect_refused(fifo, "has no readable config.json: ");
  expect_refused(fifo, "is a FIFO");
  // A symlink loop says so, rather than only "no readable config.json" (issue 45).
  const std::string loop = fresh_hf_dir("loop_config");
  fs::create_directories(loop);
  fs::create_symlink(loop + "/config.json", loop + "/config.json");
  expect_refused(loop, "Too many levels of symbolic links");
  // max_position_embeddings 0 or -1 is refused, not clamped to 1.
  for (const char* bad : {"0", "-1", "\"long\""}) {
    const std::string dir = fresh_hf_dir(std::string("mpe_") + (bad[0] == '"' ? "str" : bad));
    fs::copy(good, dir);
    std::string text;
    ASSERT_TRUE(read_file_bounded(dir + "/config.json", 1 << 20, &text, &error)) << error;
    nlohmann::json cfg = nlohmann::json::parse(text);
    cfg["max_position_embeddings"] = nlohmann::json::parse(bad);
    std::ofstream(dir + "/config.json") << cfg.dump();
    expect_refused(dir, std::string("max_position_embeddings must be a whole number of at least 1, not ") + bad);
  }

  // A shard named by the index is missing.
  const std::string missing_shard = fresh_hf_dir("missing_shard");
  fs::copy(good, missing_shard);
  fs::remove(missing_shard + "/" + saved.files[2]);
  expect_refused(missing_shard, "cannot open");

  // A tensor is missing / has the wrong shape / the dtype is quantized.
  const std::string broken = fresh_hf_dir("broken");
  fs::create_directories(broken);
  fs::copy(good + "/config.json", broken + "/config.json");
  SafeTensors st = to_safetensors(w, c);
  st.tensors.erase(st.tensors.begin() + 3);
  ASSERT_TRUE(write_safetensors(broken + "/model.safetensors", st, StorageType::BF16, &error));
  expect_refused(broken, "checkpoint has no tensor 'model.layers.0.self_attn.k_proj.weight' (shape (16, 32))");
  st = to_safetensors(w, c);
  st.tensors[2].shape = {16, 64};  // q_proj (after embed_tokens and input_layernorm)
  ASSERT_TRUE(write_safetensors(broken + "/model.safetensors", st, StorageType::BF16, &error));
  expect_refused(broken,
                 "tensor 'model.layers.0.self_attn.q_proj.weight' has shape (16, 64) but config.json needs "
                 "(32, 32)");
  st = to_safetensors(w, c);
  st.tensors.push_back({"model.vision_tower.weight", {2}, {1, 2}});
  ASSERT_TRUE(write_safetensors(broken + "/model.safetensors", st, StorageType::F32, &error));
  expect_refused(broken, "checkpoint has tensor 'model.vision_tower.weight' that a LlamaForCausalLM");
  const std::string header = R"({"model.embed_tokens.weight": {"dtype": "I8", "shape": [4], "data_offsets": [0, 4]}})";
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[size_t(i)] = char(uint64_t(header.size()) >> (8 * i));
  write_text(broken + "/model.safetensors", bytes + header + "abcd");
  expect_refused(broken, "dtype is I8; only F32, F16 and BF16 are supported");
  fs::remove(broken + "/model.safetensors");
  expect_refused(broken, "has neither model.safetensors nor model.safetensors.index.json");
  // A config.json cut in half says where the JSON ends, not "not an object".
  write_text(broken + "/config.json", "{\n  \"hidden_size\": 64,\n  \"num_atten");
  expect_refused(broken, "config.json: not valid JSON: parse error at line 3, column 13:");
  write_text(broken + "/config.json", R"({"architectures": ["BertForMaskedLM"]})");
  expect_refused(broken, "architecture 'BertForMaskedLM' is not supported");

  // Cancelling from the progress callback stops the load.
  HfModel m = previous;
  HfLoadOptions cancel;
  cancel.progress = [](double f) { return f < 0.5; };
  EXPECT_FALSE(load_hf_model(good, cancel, &m, &error));
  EXPECT_EQ(error, "loading cancelled");
  EXPECT_EQ(m.dir, good);
}

TEST(HfModel, TokenizerAndBosFromTheFolder) {
  const ModelConfig c = small_llama(true);
  Saved saved;
  ASSERT_TRUE(save_fresh(&saved, "tok", init_weights(c, 2), c, {}));
  const std::string& dir = saved.dir;
  // A byte-level vocabulary of 256 bytes + <|endoftext|> = 256 (fits the 300-token model).
  json vocab = json::object();
  for (int b = 0; b < 256; ++b) vocab[byte_level_alphabet()[size_t(b)]] = b;
  json tok = {{"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", json::array()}}},
              {"added_tokens", json::array({{{"id", 256}, {"content", "<|endoftext|>"}, {"special", true}}})},
              {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}}}};
  write_text(dir + "/tokenizer.json", tok.dump());
  json cfg = json::parse(config_to_json(c));
  cfg["bos_token_id"] = 256;
  write_text(dir + "/config.json", cfg.dump());
  write_text(dir + "/tokenizer_config.json", R"({"add_bos_token": true})");
  HfModel m;
  std::string error;
  ASSERT_TRUE(load_hf_model(dir, {}, &m, &error)) << error;
  ASSERT_TRUE(m.has_tokenizer) << m.tokenizer_warning;
  EXPECT_EQ(m.tokenizer.encode("hi"), (std::vector<int>{256, 'h', 'i'}));
  write_text(dir + "/tokenizer.json", "{broken");
  ASSERT_TRUE(load_hf_model(dir, {}, &m, &error)) << error;  // the weights still load
  EXPECT_FALSE(m.has_tokenizer);
  EXPECT_NE(m.tokenizer_warning.find("tokenizer.json"), std::string::npos) << m.tokenizer_warning;
}

}  // namespace
}  // namespace tw
