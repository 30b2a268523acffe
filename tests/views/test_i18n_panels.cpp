// The Chinese interface is complete: every registered panel, run headless in zh, shows no string that is still the
// English source — its name, category and description, every control's label, (?) help and option names, every
// figure's title, caption, axis labels and units, legend entries, colour-bar titles, levels and annotations, and its
// messages. Formulas ($…$), quoted user text, identifiers (d_k, n_heads), numbers and a short list of names and
// symbols the field writes in Latin letters everywhere are allowed. New panels are covered through the registry.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/scene_presets.h"
#include "app/start_presets.h"
#include "core/base/i18n.h"
#include "core/base/json_parse.h"
#include "core/base/read_file.h"
#include "core/base/utf8.h"
#include "core/experiments/mask_analysis.h"
#include "core/experiments/model_card.h"
#include "core/io/atomic_file.h"
#include "core/model/stepper_model.h"
#include "core/model/weights.h"
#include "core/text/tokenizer.h"
#include "core/text/tokenizer_training.h"
#include "scratch_dir.h"
#include "views/forward/forward_panel.h"
#include "views/panel.h"
#include "views/panel_test_util.h"
#include "views/plot/figure.h"
#include "views/plot/math.h"

namespace tw {
namespace {

// Words that stay in Latin letters in the Chinese interface: method, model and product names, units, file formats,
// and terms the glossary keeps untranslated (token, softmax, logits). Not query / key / value: the glossary writes
// 查询 / 键 / 值.
const std::set<std::string> kKeptWords = {
    "token",       "tokens",  "softmax",   "logit",       "logits",    "acc",
    "eps",         "nat",     "nats",      "rad",         "exp",       "log",
    "cos",         "sin",     "RoPE",      "ALiBi",       "LoRA",      "rsLoRA",
    "GQA",         "MQA",     "MHA",       "BPE",         "WordPiece", "Unigram",
    "LayerNorm",   "RMSNorm", "BatchNorm", "GELU",        "SiLU",      "ReLU",
    "SwiGLU",      "GeGLU",   "ReGLU",     "tanh",        "erf",       "SVD",
    "Adam",        "AdamW",   "SGD",       "HBM",         "FLOP",      "FLOPs",
    "TFLOP",       "GFLOP",   "GEMM",      "kFLOP",       "MFLOP",     "lens",  // "logit lens", a method's name
    "dropout",  // a method's name, as Chinese texts write it (the control's label: 丢弃率)
    "GEMV",        "GiB",     "MiB",       "KiB",         "NTK",       "Llama",
    "LLaMA",       "Meta",    "Gemma",     "PaLM",        "Mixtral",   "Mistral",
    "Qwen",        "MoE",     "MLP",       "QK",          "KV",        "FlashAttention",
    "Transformer", "NaN",     "PNG",       "SVG",         "CSV",       "JSON",
    "UTF",         "fp32",    "bf16",      "fp16",        "int8",      "int4",
    "fp8",         "top",     "min",       "max",         "var",       "mean",
    "RMS",         "viridis", "magma",     "Eckart",      "Young",     "Hugging",
    "Face",        "peft",    "mod",       "sqrt",        "none",      "byte",  // FLOP/byte, a unit
    "act",         "coef",  // formula symbols: act(x), the z-loss coefficient
    "loss",                 // only inside formulas such as exp(loss); prose uses 损失
    "up",          "gate",    "prefill",   "decode",      "range",     "ratio",
    "dim",         "arg",  // symbols: [-range, range], n_kv_heads = H / ratio, dim, arg-max
    "Witten",      "Bell",    "Kneser",    "Ney",         "Switch",    "NeoX",
    "gram",                                                // methods, models, n-gram
    "Debian",      "fortune", "fortunes",  "safetensors",  // a distribution, its fortune packages, a file format
};

// Option values of every panel's choices (copy, sort, tiny, sliding …): scene files store them, and the glossary
// keeps them in English where a help text names them.
const std::set<std::string>& option_words() {
  static const std::set<std::string> words = [] {
    std::set<std::string> out;
    const std::regex word(R"([A-Za-z][A-Za-z0-9]*)");
    for (const std::string& id : testing::registered_ids())
      if (std::unique_ptr<Panel> p = make_panel(id))
        for (const Control& c : p->controls().all())
          for (const std::string& o : c.options)
            for (auto it = std::sregex_iterator(o.begin(), o.end(), word); it != std::sregex_iterator(); ++it)
              out.insert(it->str());
    return out;
  }();
  return words;
}

// Panels' data that is not interface text: a tokenizer's tokens joined by '|'.
bool is_data(const std::string& s) { return s.find('|') != std::string::npos && s.find(' ') == std::string::npos; }

// True when s holds a Han character or full-width punctuation: a translation, which may keep Latin terms on purpose.
bool has_chinese(const std::string& s) {
  for (uint32_t c : decode_utf8(s))
    if ((c >= 0x3000 && c <= 0x9FFF) || (c >= 0xFF00 && c <= 0xFFEF)) return true;
  return false;
}

// The English words of `s` a reader would see: formulas, quoted text, identifiers and numbers removed.
// `options`: a control's help text, which may name the option values (option_words) a scene stores.
std::vector<std::string> english_words(std::string s, bool options = false) {
  s = std::regex_replace(s, std::regex(R"(\$[^$]*\$)"), " ");                                 // $…$ formulas
  s = std::regex_replace(s, std::regex(R"([A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+)"), " ");  // attn.q, config.json
  s = std::regex_replace(s, std::regex(R"("[^"]*")"), " ");                                   // "quoted user text"
  s = std::regex_replace(s, std::regex("\xE2\x80\x9C.*?\xE2\x80\x9D"), " ");              // “quoted”, “␣low”
  s = std::regex_replace(s, std::regex(R"(`[^`]*`|<[a-z/]+>)"), " ");                     // `dump`, <bos>
  s = std::regex_replace(s, std::regex(R"([A-Za-z0-9_.\-]*(/[A-Za-z0-9_.\-]+)+)"), " ");  // assets/models/sort
  std::vector<std::string> words;
  const std::regex word(R"([A-Za-z_][A-Za-z0-9_\-]*)");
  for (auto it = std::sregex_iterator(s.begin(), s.end(), word); it != std::sregex_iterator(); ++it) {
    const std::string w = it->str();
    if (w.size() < 3) continue;                                         // symbols: x, m, d_k, H, p
    if (w.find_first_of("_0123456789") != std::string::npos) continue;  // identifiers: n_heads, top-k, fp32
    if (kKeptWords.count(w) || (options && option_words().count(w))) continue;
    bool caps = true;  // acronyms (ALL CAPS) are kept as written
    for (char c : w) caps = caps && !std::islower(static_cast<unsigned char>(c));
    if (caps) continue;
    if (w.find('-') != std::string::npos) {  // "top-k", "prefix-LM", "z-loss": kept when every part is
      bool all_kept = true;
      size_t at = 0;
      while (at <= w.size()) {
        const size_t dash = std::min(w.find('-', at), w.size());
        const std::string part = w.substr(at, dash - at);
        bool part_caps = true;
        for (char c : part) part_caps = part_caps && !std::islower(static_cast<unsigned char>(c));
        all_kept = all_kept &&
                   (part.size() < 3 || part_caps || kKeptWords.count(part) || (options && option_words().count(part)));
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
    // A translation may keep the names above in Latin letters, but no other English word: "language 任务" and
    // "pre-rmsnorm" in a Chinese line are as untranslated as a line with no Chinese at all.
    // A help text or an option may name option values ("sort 和 induction", "poems（随附语言模型）").
    const bool names_options = where.find(" help") != std::string::npos || where.find(" option") != std::string::npos;
    const std::vector<std::string> words = english_words(s, names_options);
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
  EXPECT_EQ(english_words("query head 3"), (std::vector<std::string>{"query", "head"}));
  // Mixed Chinese and English: the English words are found, the names the glossary keeps are not.
  EXPECT_EQ(english_words("language 任务；2 层，pre-rmsnorm，缩放"),
            (std::vector<std::string>{"language", "pre-rmsnorm"}));
  EXPECT_EQ(english_words("一个 query 在 16 个 key 上的 softmax"), (std::vector<std::string>{"query", "key"}));
  EXPECT_TRUE(english_words("任务：语言模型；前置 RMSNorm，LoRA 秩 4，GPT-2").empty());
}

// [SECTION] start cards, model labels, the catalogue itself

// Every start-page card in Chinese: its title, summary and tooltip hold Chinese and are not the English source; in
// both languages no card text keeps a "$" once typeset (a summary cut inside "$\sqrt{95/3}$" would), and the title,
// drawn as plain text, holds no formula at all.
TEST(ChineseInterface, StartCardsAreTranslatedAndKeepNoRawTeX) {
  const std::vector<ScenePreset> presets = list_presets();
  ASSERT_GE(presets.size(), 20u) << presets_dir();
  for (Language lang : {Language::En, Language::Zh}) {
    set_language(lang);
    if (lang == Language::Zh) ASSERT_TRUE(catalogue_loaded());
    for (const ScenePreset& p : presets) {
      StartCard card;
      set_card_text(&card, p);
      const std::string where = p.name + (lang == Language::Zh ? " (zh)" : " (en)");
      EXPECT_EQ(card.title.find('$'), std::string::npos) << where << " title: " << card.title;
      for (const std::string* s : {&card.summary, &card.description})
        EXPECT_EQ(plot::math_plain_text(*s).find('$'), std::string::npos) << where << ": raw TeX in \"" << *s << "\"";
      if (lang != Language::Zh) continue;
      StartCard en;
      set_language(Language::En);
      set_card_text(&en, p);
      set_language(Language::Zh);
      for (const auto& [zh_text, en_text] : {std::pair{card.title, en.title}, std::pair{card.summary, en.summary},
                                             std::pair{card.description, en.description}}) {
        EXPECT_TRUE(has_chinese(zh_text)) << where << ": \"" << zh_text << "\" holds no Chinese";
        EXPECT_NE(zh_text, en_text) << where << ": still the English source";
      }
    }
  }
  set_language(Language::En);
  // The cut never lands inside a formula, in either language's cut rule.
  const std::string norms = "LayerNorm is wide, RMSNorm divides by $\\sqrt{95/3} = 5.627$ and keeps the shift.";
  for (size_t max = 20; max < norms.size(); ++max) {
    const std::string cut = preset_summary(norms, max);
    EXPECT_EQ(plot::math_plain_text(cut).find('$'), std::string::npos) << max << ": " << cut;
  }
  const std::string zh = "讲解：RMSNorm 除以 $\\sqrt{95/3} = 5.627$ 并保留平移，后面还有很长的一段话。第二句。";
  EXPECT_EQ(preset_summary(zh, 1000), "RMSNorm 除以 $\\sqrt{95/3} = 5.627$ 并保留平移，后面还有很长的一段话。");
  for (size_t max = 10; max < zh.size(); ++max)
    EXPECT_EQ(plot::math_plain_text(preset_summary(zh, max)).find('$'), std::string::npos) << max;
}

// The stepper's model list and its language model's one-line summary in Chinese: every item holds Chinese.
TEST(ChineseInterface, ModelLabelsAndSummariesAreTranslated) {
  const std::string models = shipped_models_dir();
  ASSERT_FALSE(models.empty());
  const std::vector<ShippedLanguageModel> lms = shipped_language_models(models);
  set_language(Language::Zh);
  ASSERT_TRUE(catalogue_loaded());
  for (const std::string& label : forward_model_labels(models, lms))
    EXPECT_TRUE(has_chinese(label) && english_words(label).size() <= 1) << "\"" << label << "\"";
  for (const ShippedLanguageModel& lm : lms) {
    const std::string label = lm.label();
    EXPECT_TRUE(has_chinese(label)) << lm.name << ": \"" << label << "\" holds no Chinese";
    // The model's own name, then a full-width colon (never the ASCII one in a Chinese line), then Chinese only.
    const size_t colon = label.find("\xEF\xBC\x9A");  // "："
    ASSERT_NE(colon, std::string::npos) << lm.name << ": \"" << label << "\"";
    EXPECT_EQ(label.find(':'), std::string::npos) << lm.name << ": \"" << label << "\"";
    EXPECT_TRUE(english_words(label.substr(colon + 3)).empty()) << lm.name << ": \"" << label << "\"";
  }
  set_language(Language::En);
}

// Every entry of the catalogue (po/zh.po): a msgstr keeps no "$" once typeset when its msgid keeps
// none (an unbalanced formula shows as raw TeX), and no msgstr that is English prose is its msgid unchanged.
struct PoEntry {
  std::string msgid, msgstr, file;
};
std::string po_unquote(const std::string& line) {  // "…" with \n, \", \\ undone
  std::string out;
  const size_t a = line.find('"'), b = line.rfind('"');
  for (size_t i = a + 1; i < b; ++i) {
    if (line[i] == '\\' && i + 1 < b) {
      const char c = line[++i];
      out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
    } else {
      out += line[i];
    }
  }
  return out;
}
std::vector<PoEntry> read_po(const std::string& path) {
  std::vector<PoEntry> out;
  std::ifstream in(path);
  std::string line, *field = nullptr;
  PoEntry e;
  auto flush = [&] {
    if (!e.msgid.empty() && !e.msgstr.empty()) out.push_back(e);
    e = PoEntry{};
    e.file = path;
  };
  e.file = path;
  bool obsolete = false;
  while (std::getline(in, line)) {
    if (line.rfind("#~", 0) == 0) {
      obsolete = true;
      continue;
    }
    if (line.rfind("msgid ", 0) == 0) {
      if (!obsolete) flush();
      obsolete = false;
      e = PoEntry{};
      e.file = path;
      field = &e.msgid;
      *field = po_unquote(line);
    } else if (line.rfind("msgid_plural ", 0) == 0 || line.rfind("msgstr[1]", 0) == 0) {
      field = nullptr;
    } else if (line.rfind("msgstr", 0) == 0) {
      field = &e.msgstr;
      *field = po_unquote(line);
    } else if (!line.empty() && line[0] == '"' && field) {
      *field += po_unquote(line);
    }
  }
  flush();
  return out;
}

TEST(ChineseCatalogue, NoMsgstrKeepsRawTeXOrIsItsEnglishSource) {
  std::vector<PoEntry> all = read_po(std::string(TW_SOURCE_DIR) + "/po/zh.po");
  ASSERT_GT(all.size(), 1000u);
  std::vector<std::string> raw, english;
  for (const PoEntry& e : all) {
    const std::string where = std::filesystem::path(e.file).filename().string() + ": \"" + e.msgid + "\"";
    if (plot::math_plain_text(e.msgid).find('$') == std::string::npos &&
        plot::math_plain_text(e.msgstr).find('$') != std::string::npos)
      raw.push_back(where + " -> \"" + e.msgstr + "\"");
    if (e.msgstr == e.msgid && !english_words(e.msgid).empty()) english.push_back(where);
  }
  for (const std::string& r : raw) ADD_FAILURE() << "raw TeX after layout: " << r;
  for (const std::string& r : english) ADD_FAILURE() << "the Chinese is the English source: " << r;
}

// The glossary (docs/glossary-zh.md) writes query / key / value as 查询 / 键 / 值: no Chinese msgstr keeps them in
// Latin letters. Code is not prose: a quoted JSON name ("values") and a command line's key=value stay.
TEST(ChineseCatalogue, QueryKeyAndValueAreWrittenInChinese) {
  const std::regex code(R"(\$[^$]*\$|"[^"]*"|[A-Za-z0-9_.\-]*=[A-Za-z0-9_.\-]*)");  // formulas, "values", key=value
  const std::regex term(R"((^|[^A-Za-z_.\-])(query|queries|key|keys|value|values)($|[^A-Za-z_\-]))");
  int checked = 0;
  for (const PoEntry& e : read_po(std::string(TW_SOURCE_DIR) + "/po/zh.po")) {
    if (!has_chinese(e.msgstr)) continue;
    ++checked;
    std::smatch m;
    const std::string prose = std::regex_replace(e.msgstr, code, " ");
    if (std::regex_search(prose, m, term))
      ADD_FAILURE() << "\"" << m[2] << "\" in \"" << e.msgstr << "\" (msgid \"" << e.msgid << "\")";
  }
  EXPECT_GT(checked, 1000);
  // The check itself.
  EXPECT_TRUE(std::regex_search(std::regex_replace(std::string("一个 query 在 $n$ 个键上"), code, " "), term));
  EXPECT_FALSE(
      std::regex_search(std::regex_replace(std::string("应为 key=value 形式，\"values\"，$k$"), code, " "), term));
}

// Source scan: a translated string with a formula is never drawn by an ImGui call that prints it as is (Text, a menu
// item, a button, a tooltip); such text goes through math_text / math_tooltip, which typeset it.
TEST(ChineseCatalogue, NoFormulaIsPrintedByAPlainTextCall) {
  const std::regex plain_call(
      R"((ImGui::(Text|TextUnformatted|TextDisabled|TextWrapped|TextColored|BulletText|LabelText|MenuItem|BeginMenu|Button|SmallButton|Checkbox|RadioButton|Selectable|SetTooltip|BeginCombo|CollapsingHeader|TreeNode)|empty_state)\s*\()");
  const std::regex marked_math(R"((tr|N_)\(\s*"[^"]*\$[^"$]+\$)");
  std::vector<std::string> found;
  for (const char* dir : {"app", "views"})
    for (const auto& f : std::filesystem::recursive_directory_iterator(std::string(TW_SOURCE_DIR) + "/" + dir)) {
      if (f.path().extension() != ".cpp" && f.path().extension() != ".h") continue;
      std::ifstream in(f.path());
      std::stringstream text;
      text << in.rdbuf();
      const std::string src = text.str();
      for (auto it = std::sregex_iterator(src.begin(), src.end(), plain_call); it != std::sregex_iterator(); ++it) {
        // The call's text up to its end of statement.
        const size_t at = size_t(it->position());
        const size_t end = src.find(';', at);
        const std::string call = src.substr(at, (end == std::string::npos ? src.size() : end) - at);
        if (std::regex_search(call, marked_math))
          found.push_back(f.path().filename().string() + ": " + call.substr(0, 120));
      }
    }
  for (const std::string& c : found) ADD_FAILURE() << "a formula printed as raw TeX: " << c;
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
                       Tokenizer t;
                       std::string error;
                       const std::string text = "{" + vocab + ", \"" + stage + "\": {\"type\": \"" + kind + "\"}}";
                       EXPECT_FALSE(tokenizer_from_json(text, &t, &error)) << text;
                       EXPECT_NE(error.find(kind), std::string::npos) << error;
                       return error;
                     }});
  }
  calls.push_back({"tokenizer.json with an unknown model type", [] {
                     Tokenizer t;
                     std::string error;
                     EXPECT_FALSE(tokenizer_from_json(R"({"model": {"type": "Oracle", "vocab": {}}})", &t, &error));
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
