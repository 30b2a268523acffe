// LoRA fine-tuning of a whole model: chain-rule gradients against finite differences, step 0 = base, rank of ΔW,
// merging, peft files (names per huggingface/peft src/peft/utils/save_and_load.py) and bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/base/json_parse.h"
#include "core/base/read_file.h"
#include "core/io/safetensors.h"
#include "core/model/hf_model.h"
#include "core/train/lora_finetune.h"
#include "core/train/trainer.h"
#include "scratch_dir.h"

namespace tw {
namespace {

ModelConfig tiny_config() {
  return {.dim = 16, .n_layers = 2, .n_heads = 2, .n_kv_heads = 1, .vocab = 7, .hidden = 24, .max_seq = 8};
}

Batch tiny_batch(const ModelConfig& c) {
  Batch b;
  b.B = 2;
  b.T = 6;
  for (int i = 0; i < b.B * b.T; ++i) b.tokens.push_back((i * 5 + 3) % c.vocab);
  b.targets.assign(b.tokens.size(), -1);
  for (int i = 0; i < b.B * b.T; ++i)
    if (i % b.T != b.T - 1) b.targets[size_t(i)] = b.tokens[size_t(i + 1)];
  return b;
}

MatD& matrix_d(ModelWeightsD& w, int layer, LoraModule m) {
  LayerWeightsD& l = w.layers[size_t(layer)];
  switch (m) {
    case LoraModule::Q: return l.wq;
    case LoraModule::K: return l.wk;
    case LoraModule::V: return l.wv;
    case LoraModule::O: return l.wo;
    case LoraModule::Gate: return l.mlp.gate;
    case LoraModule::Up: return l.mlp.up;
    case LoraModule::Down: return l.mlp.down;
  }
  return l.wq;
}

// Random nonzero B (peft starts it at 0, where ∂L/∂A = 0 and the check would be empty).
LoraModel random_adapters(const ModelConfig& c, int r, bool rslora) {
  LoraModel m;
  std::string error;
  EXPECT_TRUE(lora_create(c, {.r = r, .alpha = 3.0f, .rslora = rslora, .seed = 5}, &m, &error)) << error;
  std::mt19937_64 rng(9);
  for (LoraSlot& s : m.slots)
    for (Eigen::Index i = 0; i < s.adapter.B.size(); ++i)
      s.adapter.B.data()[i] = static_cast<float>(0.3 * (2.0 * uniform01(rng) - 1.0));
  return m;
}

// Loss in double of base + s·B A with the adapters' values in double.
double loss_double(const ModelWeights& base, const LoraModel& m, const ModelConfig& c, const Batch& b) {
  ModelWeightsD w = to_double(base);
  for (const LoraSlot& s : m.slots)
    matrix_d(w, s.layer, s.module) +=
        double(s.adapter.scale()) * (s.adapter.B.cast<double>() * s.adapter.A.cast<double>());
  double loss = 0;
  std::string error;
  EXPECT_TRUE(train_forward_backward_double(nullptr, w, c, b, &loss, &error)) << error;
  return loss;
}

// LLaMA's block, and GPT-2's and Qwen3's (biases, tanh GELU, learned positions; QK-norm before RoPE): the adapters
// see the same chain rule through each family's backward.
TEST(LoraFinetune, ChainRuleGradientsMatchFiniteDifferences) {
  for (const auto& [family, rslora] : {std::pair{Family::Llama, false}, std::pair{Family::Llama, true},
                                       std::pair{Family::GPT2, false}, std::pair{Family::Qwen3, true}}) {
    ModelConfig c = tiny_config();
    apply_family(c, family);
    SCOPED_TRACE(to_string(family));
    const ModelWeights base = init_weights(c, 3);
    LoraModel m = random_adapters(c, 2, rslora);
    const Batch b = tiny_batch(c);
    // G = ∂L/∂W_eff from the double backward at the merged weights, rounded to float for lora_gradients.
    ModelWeightsD w = to_double(base), gd;
    for (const LoraSlot& s : m.slots)
      matrix_d(w, s.layer, s.module) +=
          double(s.adapter.scale()) * (s.adapter.B.cast<double>() * s.adapter.A.cast<double>());
    double loss = 0;
    std::string error;
    ASSERT_TRUE(train_forward_backward_double(&gd, w, c, b, &loss, &error)) << error;
    ModelWeights g = zero_weights(c);
    for (const LoraSlot& s : m.slots)
      lora_base_matrix(g, s.layer, s.module) = matrix_d(gd, s.layer, s.module).cast<float>();
    LoraGrads lg;
    lora_gradients(lg, g, m);
    const double h = 1e-3;
    int checked = 0;
    for (size_t k = 0; k < m.slots.size(); k += 3)  // q, o, down of layer 0; up of layer 1 …
      for (bool a : {true, false}) {
        Mat& P = a ? m.slots[k].adapter.A : m.slots[k].adapter.B;
        const Mat& analytic = a ? lg.A[k] : lg.B[k];
        for (Eigen::Index i = 0; i < P.size(); i += 7) {
          const float keep = P.data()[i];
          P.data()[i] = keep + float(h);
          const double up = loss_double(base, m, c, b);
          P.data()[i] = keep - float(h);
          const double down = loss_double(base, m, c, b);
          P.data()[i] = keep;
          const double step = double(keep + float(h)) - double(keep - float(h));
          const double fd = (up - down) / step;
          EXPECT_NEAR(analytic.data()[i], fd, 2e-4 * std::max(1.0, std::abs(fd)))
              << (a ? "A" : "B") << " of slot " << k << " entry " << i << (rslora ? " rsLoRA" : "");
          ++checked;
        }
      }
    EXPECT_GE(checked, 40);  // GPT-2 has no gate: 40 entries
  }
}

TEST(LoraFinetune, PeftInitAndStepZeroIsTheBaseModel) {
  const ModelConfig c = tiny_config();
  LoraModel m;
  std::string error;
  ASSERT_TRUE(lora_create(c, {.r = 4, .alpha = 8.0f}, &m, &error)) << error;
  // 7 modules (SwiGLU has a gate) × 2 layers; q (32×16): A 4×16, B 32×4.
  ASSERT_EQ(m.slots.size(), 14u);
  EXPECT_EQ(m.slots[0].adapter.A.rows(), 4);
  EXPECT_EQ(m.slots[0].adapter.A.cols(), 16);
  EXPECT_EQ(m.slots[0].adapter.B.rows(), 16);  // H·D = 2·8
  EXPECT_FLOAT_EQ(m.slots[0].adapter.scale(), 2.0f);
  for (const LoraSlot& s : m.slots) {
    EXPECT_EQ(s.adapter.B.cwiseAbs().maxCoeff(), 0.0f);
    // Kaiming-uniform with a = √5: U(±1/√d_in), and it fills the range (max |A| near the bound).
    const float bound = 1.0f / std::sqrt(float(s.adapter.A.cols()));
    EXPECT_LE(s.adapter.A.cwiseAbs().maxCoeff(), bound);
    EXPECT_GT(s.adapter.A.cwiseAbs().maxCoeff(), 0.5f * bound);
  }
  // Trainable: per layer r·(16+16) q + r·(16+8) k, v + r·(16+16) o + r·(16+24)·3 MLP.
  EXPECT_EQ(m.trainable(), 2 * 4 * (32 + 24 + 24 + 32 + 40 * 3));

  TrainSettings s;
  s.model = c;
  s.task = {.kind = TaskKind::Reverse, .length = 4, .alphabet = 7, .val_examples = 16};
  s.batch = 4;
  s.seed = 2;
  s.start_weights = std::make_shared<const ModelWeights>(init_weights(c, 77));
  s.lora = true;
  s.lora_spec = {.r = 2, .alpha = 4.0f};
  Trainer t;
  ASSERT_TRUE(t.init(s, &error)) << error;
  ModelWeights a = t.weights(), b = *s.start_weights;
  std::vector<float> wa, wb;
  visit_parameters(a, c, [&](const std::string&, float* d, int64_t n, ParamKind) { wa.insert(wa.end(), d, d + n); });
  visit_parameters(b, c, [&](const std::string&, float* d, int64_t n, ParamKind) { wb.insert(wb.end(), d, d + n); });
  EXPECT_EQ(wa, wb);  // bit for bit
  EXPECT_EQ(t.trainable_parameters(), t.lora()->trainable());
  // Training moves only the adapters: the base stays, the merged weights move.
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(t.step(&error)) << error;
  EXPECT_EQ(t.base_weights().layers[0].wq, s.start_weights->layers[0].wq);
  EXPECT_EQ(t.weights().layers[0].attn_norm.weight, s.start_weights->layers[0].attn_norm.weight);
  EXPECT_GT((t.weights().layers[0].wq - s.start_weights->layers[0].wq).norm(), 0.0f);
}

TEST(LoraFinetune, TrainerRefusesStartingWeightsOfAnotherShape) {
  const ModelConfig c = tiny_config();
  TrainSettings s;
  s.model = c;
  s.task = {.kind = TaskKind::Reverse, .length = 4, .alphabet = 7, .val_examples = 16};
  ModelConfig other = c;
  other.hidden = 32;
  s.start_weights = std::make_shared<const ModelWeights>(init_weights(other, 1));
  EXPECT_NE(check_settings(s), "");
  s.start_weights = std::make_shared<const ModelWeights>(init_weights(c, 1));
  EXPECT_EQ(check_settings(s), "");
  s.lora = true;
  s.lora_spec.r = 9;  // k_proj is 8 × 16
  EXPECT_NE(check_settings(s), "");
}

TEST(LoraFinetune, AdapterUpdateHasRankAtMostR) {
  const ModelConfig c = tiny_config();
  TrainSettings s{.model = c,
                  .task = {.kind = TaskKind::Reverse, .length = 4, .alphabet = 7, .val_examples = 16},
                  .optimizer = {.lr = 1e-2f},
                  .batch = 8,
                  .seed = 4};
  s.start_weights = std::make_shared<const ModelWeights>(init_weights(c, 1));
  s.lora = true;
  s.lora_spec = {.r = 3, .alpha = 6.0f};
  Trainer t;
  std::string error;
  ASSERT_TRUE(t.init(s, &error)) << error;
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(t.step(&error)) << error;
  for (const LoraSlot& slot : t.lora()->slots) {
    // ΔW = W_eff − W as the trainer runs it, against s·B A.
    const Mat dw = lora_base_matrix(t.weights(), slot.layer, slot.module) -
                   lora_base_matrix(t.base_weights(), slot.layer, slot.module);
    const Svd sv = svd_decompose(dw);
    ASSERT_GE(sv.sigma.size(), 4);
    EXPECT_GT(sv.sigma[2], 1e-4 * sv.sigma[0]);                                   // trained: all r directions used
    EXPECT_LT(sv.sigma[3], 1e-5 * sv.sigma[0]) << peft_module_name(slot.module);  // float rounding only
  }
}

TEST(LoraFinetune, MergedLayerMatchesTheAdapterPathAndUnmergeRestoresTheBase) {
  const ModelConfig c = tiny_config();
  const ModelWeights base = init_weights(c, 3);
  const LoraModel m = random_adapters(c, 2, false);
  const ModelWeights merged = lora_merged(base, m);
  std::mt19937_64 rng(1);
  for (const LoraSlot& s : m.slots) {
    const Mat& W0 = lora_base_matrix(base, s.layer, s.module);
    const int d_out = int(W0.rows()), d_in = int(W0.cols()), T = 5;
    Mat x(T, d_in);
    for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>(standard_normal(rng));
    Mat adapter_out, xa;
    lora_forward(adapter_out, xa, x, W0, s.adapter, T, d_in, d_out, 2);
    const Mat merged_out = x * lora_base_matrix(merged, s.layer, s.module).transpose();
    EXPECT_LT((merged_out - adapter_out).cwiseAbs().maxCoeff(), 1e-5f * adapter_out.cwiseAbs().maxCoeff());
    Mat back = lora_base_matrix(merged, s.layer, s.module);
    lora_unmerge(back, s.adapter);
    EXPECT_LT((back - W0).cwiseAbs().maxCoeff(), 1e-6f * W0.cwiseAbs().maxCoeff());
  }
}

Mat logits_of(const ModelWeights& w, const ModelConfig& c) {
  TrainState st;
  double loss = 0;
  std::string error;
  EXPECT_TRUE(train_forward(st, w, c, tiny_batch(c), &loss, &error)) << error;
  return train_logits(st);
}

TEST(LoraFinetune, PeftFilesRoundTripWithPeftNames) {
  const ModelConfig c = tiny_config();
  const ModelWeights base = init_weights(c, 3);
  LoraModel m = random_adapters(c, 2, true);
  testing::ScratchDir scratch("lora_peft");
  const std::string dir = scratch.path();
  std::string error;
  ASSERT_TRUE(save_peft_adapter(dir, m, "tiny-base", &error)) << error;

  SafeTensors st;
  ASSERT_TRUE(read_safetensors(dir + "/adapter_model.safetensors", &st, &error)) << error;
  EXPECT_EQ(st.tensors.size(), 28u);
  // The names peft writes for LlamaForCausalLM (PeftModel.base_model.model = the HF model, adapter name dropped).
  const NamedTensor* qa = st.find("base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight");
  ASSERT_NE(qa, nullptr);
  EXPECT_EQ(qa->shape, (std::vector<int64_t>{2, 16}));
  const NamedTensor* db = st.find("base_model.model.model.layers.1.mlp.down_proj.lora_B.weight");
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(db->shape, (std::vector<int64_t>{16, 2}));
  EXPECT_NE(st.find("base_model.model.model.layers.1.mlp.gate_proj.lora_A.weight"), nullptr);

  std::string text;
  ASSERT_TRUE(read_file_bounded(dir + "/adapter_config.json", 1 << 20, &text, &error)) << error;
  nlohmann::json cfg;
  ASSERT_TRUE(parse_json_object(text, &cfg, &error)) << error;
  EXPECT_EQ(cfg["peft_type"], "LORA");
  EXPECT_EQ(cfg["task_type"], "CAUSAL_LM");
  EXPECT_EQ(cfg["r"], 2);
  EXPECT_EQ(cfg["lora_alpha"], 3.0);
  EXPECT_EQ(cfg["use_rslora"], true);
  EXPECT_EQ(cfg["lora_dropout"], 0.0);
  EXPECT_EQ(cfg["base_model_name_or_path"], "tiny-base");
  EXPECT_EQ(cfg["target_modules"],
            (nlohmann::json{"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}));

  LoraModel back;
  std::string base_name;
  ASSERT_TRUE(load_peft_adapter(dir, c, &back, &base_name, &error)) << error;
  EXPECT_EQ(base_name, "tiny-base");
  EXPECT_TRUE(back.spec.rslora);
  EXPECT_EQ(logits_of(lora_merged(base, back), c), logits_of(lora_merged(base, m), c));  // identical

  // The merged model saved as a model folder and reloaded runs the same logits.
  const std::string folder = scratch / "merged";
  std::vector<std::string> files;
  ASSERT_TRUE(save_hf_checkpoint(folder, lora_merged(base, m), c, {}, &files, &error)) << error;
  HfModel hf;
  ASSERT_TRUE(load_hf_model(folder, {}, &hf, &error)) << error;
  EXPECT_EQ(logits_of(hf.weights, hf.config), logits_of(lora_merged(base, m), c));
}

TEST(LoraFinetune, RefusesBadAdaptersAndModels) {
  const ModelConfig c = tiny_config();
  LoraModel m = random_adapters(c, 2, false), keep = m;
  std::string error;
  // An adapter for a wider model does not load onto this one, and *out stays.
  ModelConfig wide = c;
  wide.dim = 32;
  wide.n_heads = 4;
  LoraModel other;
  ASSERT_TRUE(lora_create(wide, {.r = 2}, &other, &error)) << error;
  testing::ScratchDir scratch("lora_bad");
  const std::string dir = scratch.path();
  ASSERT_TRUE(save_peft_adapter(dir, other, "", &error)) << error;
  EXPECT_FALSE(load_peft_adapter(dir, c, &m, nullptr, &error));
  EXPECT_NE(error.find("shape"), std::string::npos) << error;
  EXPECT_EQ(m.slots[0].adapter.B, keep.slots[0].adapter.B);
  // A deeper model's tensors name layers this one lacks.
  ModelConfig deep = c;
  deep.n_layers = 3;
  ASSERT_TRUE(lora_create(deep, {.r = 2}, &other, &error)) << error;
  ASSERT_TRUE(save_peft_adapter(dir, other, "", &error)) << error;
  EXPECT_FALSE(load_peft_adapter(dir, c, &m, nullptr, &error));
  EXPECT_NE(error.find("layers.2"), std::string::npos) << error;
  // Broken config, missing folder.
  { std::ofstream(dir + "/adapter_config.json") << "{\"peft_type\": \"LORA\", \"r\": 0}"; }
  EXPECT_FALSE(load_peft_adapter(dir, c, &m, nullptr, &error));
  EXPECT_NE(error.find("$r$ must"), std::string::npos) << error;
  EXPECT_FALSE(load_peft_adapter(dir + "/missing", c, &m, nullptr, &error));
  // Specs the model cannot take.
  EXPECT_NE(check_lora_spec({.r = 9}, c), "");  // k_proj is 8 × 16
  EXPECT_NE(check_lora_spec({.r = 2, .targets = lora_target_bit(LoraModule::Gate)},
                            {.dim = 16, .n_heads = 2, .n_kv_heads = 1, .activation = ActivationKind::ReLU}),
            "");
  ModelConfig moe = c;
  moe.experts = 4;
  EXPECT_NE(check_lora_spec({.r = 2}, moe), "");
}

}  // namespace
}  // namespace tw
