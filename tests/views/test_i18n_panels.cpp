// The Chinese interface is complete: every registered panel, run headless in zh, shows no string that is still the
// English source — its name, category and description, every control's label, (?) help and option names, every
// figure's title, caption, axis labels and units, legend entries, colour-bar titles, levels and annotations, and its
// messages. Formulas ($…$), quoted user text, identifiers (d_k, n_heads), numbers and a short list of names and
// symbols the field writes in Latin letters everywhere are allowed. New panels are covered through the registry.
#include <gtest/gtest.h>

#include <cctype>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "core/text/i18n.h"
#include "core/text/utf8.h"
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

}  // namespace
}  // namespace tw
