// Panel explanations compiled in from views/text/<id>.txt (views/text/panel_text.cmake) and their Chinese
// translations in the gettext catalogue sources.
#include "views/text/panel_text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "views/panel.h"
#include "views/panel_test_util.h"
#include "views/text/panel_text_strings.h"

namespace tw {
namespace {

const std::filesystem::path kSource(TW_SOURCE_DIR);

TEST(PanelText, EveryPanelHasOneExplanationAndEveryTextFileAPanel) {
  std::vector<std::string> ids = testing::registered_ids();
  ASSERT_FALSE(ids.empty());
  for (const std::string& id : ids) {
    const std::string text = panel_text(id);
    EXPECT_GT(text.size(), 100u) << id;
    EXPECT_EQ(text.find("  "), std::string::npos) << id;
    EXPECT_NE(text.back(), ' ') << id;
  }
  // Wrapped lines were joined into one paragraph: no line breaks inside a paragraph, none empty.
  for (const PanelParagraph& p : panel_paragraphs()) {
    EXPECT_EQ(std::string_view(p.text).find('\n'), std::string_view::npos) << p.id;
    EXPECT_GT(std::string_view(p.text).size(), 20u) << p.id;
  }
  // views/text holds one file per registered panel, no more.
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(kSource / "views/text"))
    if (entry.path().extension() == ".txt") files.push_back(entry.path().stem().string());
  std::sort(ids.begin(), ids.end());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, ids);
  EXPECT_STREQ(panel_text("no-such-panel"), "");
}

TEST(PanelText, EqualsItsFileWithLinesJoined) {
  std::ifstream in(kSource / "views/text/softmax.txt");
  ASSERT_TRUE(in);
  std::string joined, line;
  while (std::getline(in, line)) joined += (joined.empty() ? "" : " ") + line;
  EXPECT_EQ(panel_text("softmax"), joined);
  // UTF-8 and TeX arrive as written (backslashes and τ are escaped only in the generated C++).
  EXPECT_NE(joined.find("$\\mathrm{Var}(q \\cdot k) = d_k$"), std::string::npos);
  EXPECT_NE(joined.find("$S_i = \\frac{\\exp(x_i/\\tau)}{\\sum_j \\exp(x_j/\\tau)}$"), std::string::npos);
}

// msgid → msgstr of the non-fuzzy entries of a .po file (singular entries; C escapes undone).
std::map<std::string, std::string> read_po(const std::filesystem::path& path) {
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  std::string line, id, str, *target = nullptr;
  bool fuzzy = false;
  auto unquote = [](const std::string& s) {
    std::string r;
    const size_t a = s.find('"'), b = s.rfind('"');
    for (size_t i = a + 1; i < b; ++i) {
      if (s[i] == '\\' && i + 1 < b) {
        const char c = s[++i];
        r += c == 'n' ? '\n' : c == 't' ? '\t' : c;
      } else {
        r += s[i];
      }
    }
    return r;
  };
  bool plural = false;
  auto flush = [&] {
    if (!id.empty() && !fuzzy && !plural) out[id] = str;
    id.clear();
    str.clear();
    fuzzy = false;
    plural = false;
    target = nullptr;
  };
  while (std::getline(in, line)) {
    if (line.rfind("#,", 0) == 0 && line.find("fuzzy") != std::string::npos) {
      flush();
      fuzzy = true;
    } else if (line.rfind("msgid ", 0) == 0) {
      const bool keep_fuzzy = fuzzy && id.empty() && str.empty();
      flush();
      fuzzy = keep_fuzzy;
      id = unquote(line);
      target = &id;
    } else if (line.rfind("msgstr ", 0) == 0) {
      str = unquote(line);
      target = &str;
    } else if (line.rfind('"', 0) == 0 && target) {
      *target += unquote(line);
    } else if (line.rfind("msgid_plural", 0) == 0 || line.rfind("msgstr[", 0) == 0) {
      plural = true;  // plural entries are not panel text
      target = nullptr;
    }
  }
  flush();
  return out;
}

// The $…$ spans of a string, sorted: a translation keeps every formula as it is.
std::vector<std::string> math_spans(const std::string& s) {
  std::vector<std::string> spans;
  size_t a = s.find('$');
  while (a != std::string::npos) {
    const size_t b = s.find('$', a + 1);
    if (b == std::string::npos) {
      spans.push_back("unclosed: " + s.substr(a));
      break;
    }
    spans.push_back(s.substr(a, b - a + 1));
    a = s.find('$', b + 1);
  }
  std::sort(spans.begin(), spans.end());
  return spans;
}

// The formulas of a string with the words inside \text{…} left out: a label or message may translate those
// ("$\sum \text{load}$" → "$\sum \text{负载}$"), never the math around them.
std::vector<std::string> formula_shapes(const std::string& s) {
  std::vector<std::string> spans = math_spans(s);
  for (std::string& span : spans)
    for (size_t a = span.find("\\text{"); a != std::string::npos; a = span.find("\\text{", a + 1)) {
      const size_t open = a + 6, close = span.find('}', open);
      if (close != std::string::npos) span.erase(open, close - open);
    }
  std::sort(spans.begin(), spans.end());
  spans.erase(std::unique(spans.begin(), spans.end()), spans.end());  // a translation may name $p$ twice
  return spans;
}

TEST(PanelText, EveryParagraphHasAChineseTranslationKeepingItsFormulas) {
  const std::map<std::string, std::string> zh = read_po(kSource / "po/zh.po");
  ASSERT_FALSE(zh.empty()) << "po/zh.po is missing or empty";
  int checked = 0;
  for (const PanelParagraph& p : panel_paragraphs()) {
    const auto it = zh.find(p.text);
    ASSERT_NE(it, zh.end()) << p.id << ": no Chinese entry for the paragraph starting \""
                            << std::string_view(p.text).substr(0, 60) << "\"";
    const std::string& t = it->second;
    EXPECT_FALSE(t.empty()) << p.id;
    EXPECT_NE(t, p.text) << p.id;
    // Written in Chinese: mostly CJK characters (3-byte UTF-8 sequences starting 0xE4..0xE9), not English.
    const long cjk = std::count_if(t.begin(), t.end(), [](char c) {
      const auto u = static_cast<unsigned char>(c);
      return u >= 0xE4 && u <= 0xE9;
    });
    EXPECT_GT(cjk, 60) << p.id;
    EXPECT_EQ(math_spans(t), math_spans(p.text)) << p.id << ": the translation changes a formula";
    ++checked;
  }
  EXPECT_GE(checked, 17);
}

// The placeholders {k} of a pattern, sorted and without repeats.
std::vector<std::string> placeholders(const std::string& s) {
  std::vector<std::string> out;
  for (size_t a = s.find('{'); a != std::string::npos; a = s.find('{', a + 1)) {
    size_t b = a + 1;
    while (b < s.size() && s[b] >= '0' && s[b] <= '9') ++b;
    if (b > a + 1 && b < s.size() && s[b] == '}') out.push_back(s.substr(a, b - a + 1));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Every singular entry of the catalogue: translated, the same formulas (words in \text{} aside) and placeholders as
// its source, and the "config.json: " prefix load_config() rewrites kept.
TEST(PanelText, EveryCatalogueEntryKeepsFormulasAndPlaceholders) {
  const std::map<std::string, std::string> zh = read_po(kSource / "po/zh.po");
  ASSERT_GT(zh.size(), 2000u);
  for (const auto& [id, str] : zh) {
    EXPECT_FALSE(str.empty()) << id;
    EXPECT_EQ(formula_shapes(str), formula_shapes(id)) << id;
    EXPECT_EQ(placeholders(str), placeholders(id)) << id;
    if (id.rfind("config.json: ", 0) == 0) {
      EXPECT_EQ(str.rfind("config.json: ", 0), 0u) << str;
    }
  }
}

}  // namespace
}  // namespace tw
