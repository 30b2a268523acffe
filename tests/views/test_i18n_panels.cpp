// The Chinese interface is complete: every registered panel, run headless in zh, shows no string that is still the
// English source — its name, category and description, every control's label, (?) help and option names, every
// figure's title, caption, axis labels and units, legend entries, colour-bar titles, levels and annotations, and its
// messages. Formulas ($…$), quoted user text, identifiers (d_k, n_heads), numbers and a short list of names and
// symbols the field writes in Latin letters everywhere are allowed. New panels are covered through the registry.
#include <gtest/gtest.h>

#include <cctype>
#include <functional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "core/experiments/mask_analysis.h"
#include "core/experiments/tokenizer_training.h"
#include "core/io/atomic_file.h"
#include "core/io/json_parse.h"
#include "core/io/read_file.h"
#include "core/model/weights.h"
#include "core/text/i18n.h"
#include "core/text/tokenizer_bpe.h"
#include "core/text/utf8.h"
#include "scratch_dir.h"
#include "views/panel.h"
#include "views/panel_test_util.h"
#include "views/plot/figure.h"

namespace tw {
namespace {

// Words that stay in Latin letters in the Chinese interface: method, model and product names, units, file formats,
// and terms the glossary keeps untranslated (token, softmax, logits).
const std::set<std::string> kKeptWords = {
    "token",       "tokens",  "softmax", "logit",  "logits",    "acc",     "eps",       "nat",     "nats",
    "rad",         "exp",     "log",     "cos",    "sin",       "RoPE",    "ALiBi",     "LoRA",    "rsLoRA",
    "GQA",         "MQA",     "MHA",     "BPE",    "WordPiece", "Unigram", "LayerNorm", "RMSNorm", "BatchNorm",
    "GELU",        "SiLU",    "ReLU",    "SwiGLU", "GeGLU",     "ReGLU",   "tanh",      "erf",     "SVD",
    "Adam",        "AdamW",   "SGD",     "HBM",    "FLOP",      "FLOPs",   "TFLOP",     "GFLOP",   "GEMM",
    "kFLOP",       "MFLOP",   "lens",  // "logit lens", a method's name
    "GEMV",        "GiB",     "MiB",     "KiB",    "NTK",       "Llama",   "LLaMA",     "Meta",    "Gemma",
    "PaLM",        "Mixtral", "Mistral", "Qwen",   "MoE",       "MLP",     "QK",        "KV",      "FlashAttention",
    "Transformer", "NaN",     "PNG",     "SVG",    "CSV",       "JSON",    "UTF",       "fp32",    "bf16",
    "fp16",        "int8",    "int4",    "fp8",    "top",       "min",     "max",       "var",     "mean",
    "RMS",         "viridis", "magma",   "Eckart", "Young",     "Hugging", "Face",      "peft",    "mod",
    "sqrt",        "none",    "byte",  // FLOP/byte, a unit
    "act",         "coef",             // formula symbols: act(x), the z-loss coefficient
    "loss",                            // only inside formulas such as exp(loss); prose uses 损失
    "up",          "gate",    "query",   "key",    "queries",   "keys",    "prefill",   "decode",
};

// Panels' data that is not interface text: a tokenizer's tokens joined by '|'.
bool is_data(const std::string& s) { return s.find('|') != std::string::npos && s.find(' ') == std::string::npos; }

// True when s holds a Han character or full-width punctuation: a translation, which may keep Latin terms on purpose.
bool has_chinese(const std::string& s) {
  for (uint32_t c : decode_utf8(s))
    if ((c >= 0x3000 && c <= 0x9FFF) || (c >= 0xFF00 && c <= 0xFFEF)) return true;
  return false;
}

// The English words of `s` a reader would see: formulas, quoted text, identifiers and numbers removed.
std::vector<std::string> english_words(std::string s) {
  s = std::regex_replace(s, std::regex(R"(\$[^$]*\$)"), " ");                                 // $…$ formulas
  s = std::regex_replace(s, std::regex(R"([A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+)"), " ");  // attn.q, config.json
  s = std::regex_replace(s, std::regex(R"("[^"]*")"), " ");                                   // "quoted user text"
  s = std::regex_replace(s, std::regex("\xE2\x80\x9C[^\xE2]*\xE2\x80\x9D"), " ");             // “quoted”
  std::vector<std::string> words;
  const std::regex word(R"([A-Za-z_][A-Za-z0-9_\-]*)");
  for (auto it = std::sregex_iterator(s.begin(), s.end(), word); it != std::sregex_iterator(); ++it) {
    const std::string w = it->str();
    if (w.size() < 3) continue;                                         // symbols: x, m, d_k, H, p
    if (w.find_first_of("_0123456789") != std::string::npos) continue;  // identifiers: n_heads, top-k, fp32
    if (kKeptWords.count(w)) continue;
    bool caps = true;  // acronyms (ALL CAPS) are kept as written
    for (char c : w) caps = caps && !std::islower(static_cast<unsigned char>(c));
    if (caps) continue;
    if (w.find('-') != std::string::npos) {  // "top-k", "prefix-LM", "z-loss": kept when every part is
      bool all_kept = true;
      size_t at = 0;
      while (at <= w.size()) {
        const size_t dash = std::min(w.find('-', at), w.size());
        const std::string part = w.substr(at, dash - at);
        all_kept = all_kept && (part.size() < 3 || kKeptWords.count(part));
        at = dash + 1;
      }
      if (all_kept) continue;
    }
    words.push_back(w);
  }
  return words;
}

// Every interface string of panel `id` in the current language, each with where it comes from.
std::vector<std::pair<std::string, std::string>> panel_strings(const std::string& id) {
  std::vector<std::pair<std::string, std::string>> out;
  auto add = [&](const std::string& where, const std::string& s) {
    if (!s.empty() && !is_data(s)) out.emplace_back(where, s);
  };
  std::unique_ptr<Panel> p = make_panel(id);
  if (!p) return out;
  const PanelInfo info = p->info();
  add("panel name", tr(info.name.c_str()));
  add("panel category", tr(info.category.c_str()));
  add("panel description", tr(info.description.c_str()));
  for (const Control& c : p->controls().all()) {
    add("control " + c.key + " label", tr(c.label.c_str()));
    add("control " + c.key + " help", tr(c.help.c_str()));
    // The model and device lists name presets (Llama 3 8B, NVIDIA A100 …): their own names, except the first, which
    // is ours ("custom", "this machine").
    const bool names = c.key == "model" || c.key == "device";
    for (size_t i = 0; i < c.options.size(); ++i)
      if (!names || i == 0) add("control " + c.key + " option", tr(c.options[i].c_str()));
  }
  for (const plot::Figure& f : testing::run(*p)) {
    const std::string at = "figure " + f.id;
    add(at + " title", f.title);
    add(at + " note", f.note);
    for (const plot::Axes& a : f.grid) {
      add(at + " axes title", a.title);
      add(at + " x label", a.x.label);
      add(at + " x unit", a.x.unit);
      add(at + " y label", a.y.label);
      add(at + " y unit", a.y.unit);
      for (const plot::Item& item : a.items) {
        if (const auto* l = std::get_if<plot::LineItem>(&item)) add(at + " legend", l->label);
        if (const auto* b = std::get_if<plot::BarsItem>(&item))
          for (const std::string& s : b->series) add(at + " legend", s);
        if (const auto* h = std::get_if<plot::HistogramItem>(&item)) add(at + " legend", h->label);
        if (const auto* h = std::get_if<plot::HeatmapItem>(&item)) {
          add(at + " heatmap", h->label);
          add(at + " colour bar", h->options.value_label);
          for (const std::string& s : h->options.levels) add(at + " level", s);
        }
        if (const auto* v = std::get_if<plot::ArrowItem>(&item)) add(at + " arrow", v->label);
        if (const auto* v = std::get_if<plot::ArcItem>(&item)) add(at + " arc", v->label);
        if (const auto* v = std::get_if<plot::TextItem>(&item)) add(at + " text", v->text);
        if (const auto* v = std::get_if<plot::MarkerLineItem>(&item)) add(at + " marker", v->label);
      }
    }
  }
  add("message", p->problem());
  return out;
}

class ChineseInterface : public ::testing::TestWithParam<std::string> {};

TEST_P(ChineseInterface, NoPanelStringIsStillTheEnglishSource) {
  const testing::LanguageScope zh(GetParam() + "@zh");
  ASSERT_EQ(language(), Language::Zh);
  ASSERT_TRUE(catalogue_loaded()) << "the build compiles po/zh.po into locale/zh/LC_MESSAGES";
  const auto strings = panel_strings(zh.id);
  EXPECT_FALSE(strings.empty());
  for (const auto& [where, s] : strings) {
    if (has_chinese(s)) continue;
    const std::vector<std::string> words = english_words(s);
    if (words.empty()) continue;
    std::string list;
    for (const std::string& w : words) list += (list.empty() ? "" : ", ") + w;
    ADD_FAILURE() << zh.id << " " << where << ": \"" << s << "\" is still English (" << list << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(AllPanels, ChineseInterface, ::testing::ValuesIn(testing::registered_ids()),
                         testing::panel_param_name);

// The check itself: English prose is caught, formulas, names and identifiers are not.
TEST(ChineseInterfaceCheck, FindsEnglishProseOnly) {
  EXPECT_EQ(english_words("Softmax saturation"), (std::vector<std::string>{"Softmax", "saturation"}));
  EXPECT_TRUE(english_words("softmax 饱和").empty());
  EXPECT_TRUE(english_words("头 {0} 的偏置（$m$ = 0.25）").empty());
  EXPECT_TRUE(english_words("n_heads H, head_dim D, $\\sqrt{d_k}$, RoPE, GQA-4, top-k").empty());
  EXPECT_TRUE(english_words("选中：\"the newest\" + \"road\"").empty());
  EXPECT_EQ(english_words("query head 3"), std::vector<std::string>{"head"});
}

// [SECTION] error messages
// Errors a user meets loading files — a missing or broken file, a JSON document that does not parse, a tokenizer.json
// naming a stage this program does not know, a checkpoint whose tensors do not fit the config, a bad training text or
// mask setting — are produced in each language: in Chinese each one holds Chinese and differs from the English.
struct Triggered {
  std::string what;
  std::function<std::string()> make;  // runs the failing call, returns its message
};

std::vector<Triggered> failing_calls(const std::string& dir) {
  std::vector<Triggered> calls;
  calls.push_back({"read a missing file", [dir] {
                     std::string bytes, error;
                     EXPECT_FALSE(read_file_bounded(dir + "/missing.json", 1024, &bytes, &error));
                     return error;
                   }});
  calls.push_back({"read a directory", [dir] {
                     std::string bytes, error;
                     EXPECT_FALSE(read_file_bounded(dir, 1024, &bytes, &error));
                     return error;
                   }});
  calls.push_back({"read a file over its cap", [dir] {
                     std::string bytes, error;
                     EXPECT_TRUE(write_file_atomic(dir + "/big.txt", std::string(300, 'x'), &error)) << error;
                     EXPECT_FALSE(read_file_bounded(dir + "/big.txt", 100, &bytes, &error));
                     return error;
                   }});
  calls.push_back({"broken JSON", [] {
                     nlohmann::json j;
                     std::string error;
                     EXPECT_FALSE(parse_json("{\"a\": [1,", &j, &error));
                     return error;
                   }});
  calls.push_back({"JSON that is not an object", [] {
                     nlohmann::json j;
                     std::string error;
                     EXPECT_FALSE(parse_json_object("[1, 2]", &j, &error));
                     return error;
                   }});
  calls.push_back({"write into a directory", [dir] {
                     std::string error;
                     EXPECT_FALSE(write_file_atomic(dir, "x", &error));
                     return error;
                   }});
  const std::string vocab = R"("model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": []})";
  for (const auto& stage_kind : std::vector<std::pair<std::string, std::string>>{{"pre_tokenizer", "Shredder"},
                                                                                 {"normalizer", "Shouting"},
                                                                                 {"decoder", "Mumble"},
                                                                                 {"post_processor", "Gift"}}) {
    // Copies, not structured bindings: clang 14 (the sanitizer stage) cannot capture a binding in a lambda.
    const std::string stage = stage_kind.first, kind = stage_kind.second;
    calls.push_back({"tokenizer.json with an unknown " + stage, [vocab, stage, kind] {
                       BpeTokenizer t;
                       std::string error;
                       const std::string text = "{" + vocab + ", \"" + stage + "\": {\"type\": \"" + kind + "\"}}";
                       EXPECT_FALSE(bpe_tokenizer_from_json(text, &t, &error)) << text;
                       EXPECT_NE(error.find(kind), std::string::npos) << error;
                       return error;
                     }});
  }
  calls.push_back({"tokenizer.json with an unknown model type", [] {
                     BpeTokenizer t;
                     std::string error;
                     EXPECT_FALSE(bpe_tokenizer_from_json(R"({"model": {"type": "Oracle", "vocab": {}}})", &t, &error));
                     return error;
                   }});
  calls.push_back({"a checkpoint tensor of the wrong shape", [] {
                     const ModelConfig c = tiny_config();
                     SafeTensors file = to_safetensors(init_weights(c, 1), c);
                     for (NamedTensor& t : file.tensors)
                       if (t.name == "model.layers.0.self_attn.q_proj.weight") {
                         t.shape = {t.shape[1], t.shape[0] / 2};
                         t.data.resize(size_t(t.shape[0] * t.shape[1]));
                       }
                     ModelWeights w;
                     std::string error;
                     EXPECT_FALSE(from_safetensors(file, c, &w, &error));
                     EXPECT_NE(error.find("q_proj"), std::string::npos) << error;
                     return error;
                   }});
  calls.push_back({"a checkpoint missing a tensor", [] {
                     const ModelConfig c = tiny_config();
                     SafeTensors file = to_safetensors(init_weights(c, 1), c);
                     file.tensors.pop_back();
                     ModelWeights w;
                     std::string error;
                     EXPECT_FALSE(from_safetensors(file, c, &w, &error));
                     return error;
                   }});
  calls.push_back({"an empty training text", [] { return check_training_text(""); }});
  calls.push_back({"a training text of spaces", [] { return check_training_text("   \n "); }});
  calls.push_back({"too many merges", [] {
                     BpeTraining out;
                     std::string error;
                     EXPECT_FALSE(train_bpe("some words to train on", 100000, &out, &error));
                     return error;
                   }});
  calls.push_back({"a mask with 0 layers", [] { return receptive_field({}, 8, 0, 0).error; }});
  return calls;
}

TEST(ChineseErrorMessages, LoadAndInputErrorsAreTranslated) {
  const testing::ScratchDir dir("i18n-errors");
  const std::vector<Triggered> calls = failing_calls(dir.path());
  for (const Triggered& c : calls) {
    std::string en, zh;
    {
      const testing::LanguageScope scope("errors@en");
      en = c.make();
    }
    {
      const testing::LanguageScope scope("errors@zh");
      ASSERT_TRUE(catalogue_loaded());
      zh = c.make();
    }
    ASSERT_FALSE(en.empty()) << c.what << ": the call did not fail";
    EXPECT_NE(zh, en) << c.what << ": the Chinese interface shows the English message";
    EXPECT_TRUE(has_chinese(zh)) << c.what << ": \"" << zh << "\" holds no Chinese";
  }
}

}  // namespace
}  // namespace tw
