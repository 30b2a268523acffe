// Every formula a panel shows is typeset: scans the strings the panels produce headless (explanations, names,
// control labels and (?) help, figure titles, axis labels and units, legends, notes, annotations)
// for ASCII math outside $…$ (sqrt(, exp(, x_i, x^2, \frac …), and every $…$ span for commands the math layout
// does not support. Drawn-only strings (hover read-outs, check lines, ImGui-only lines) are reached through the
// catalogue instead: every string the sources mark for translation (tr, trn, N_), extracted with xgettext.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "core/base/json_parse.h"
#include "views/panel.h"
#include "views/panel_test_util.h"
#include "views/plot/math.h"
#include "views/text/panel_text.h"

namespace tw {
namespace {

struct Found {
  std::string where, text;
};

// Every user-visible string of panel `id` with where it came from. Enum option names are left out: they are the
// values scene files and --set spell (core's name tables), ASCII like CSV column names.
std::vector<Found> panel_strings_found(const std::string& id) {
  std::vector<Found> out;
  auto add = [&](const std::string& where, const std::string& s) {
    if (!s.empty()) out.push_back({id + " " + where, s});
  };
  std::unique_ptr<Panel> p = make_panel(id);
  if (!p) return out;
  p->bind_controls();
  const PanelInfo info = p->info();
  add("name", info.name);
  add("description", info.description);
  add("explanation", panel_text(id));
  for (const Control& c : p->controls().all()) {
    add("control " + c.key + " label", c.label);
    add("control " + c.key + " help", c.help);
  }
  for (const plot::Figure& fig : testing::run(*p)) {
    const std::string f = "figure " + fig.id;
    add(f + " title", fig.title);
    add(f + " note", fig.note);
    for (const plot::Axes& ax : fig.grid) {
      add(f + " axes title", ax.title);
      // A label centred on a heatmap's cell is that cell's data (the logit lens's token, a head's role and score);
      // the words in it are scanned where they are written (the catalogue), the tokens are the model's text.
      const bool cells = std::any_of(ax.items.begin(), ax.items.end(),
                                     [](const plot::Item& i) { return std::holds_alternative<plot::HeatmapItem>(i); });
      add(f + " x label", ax.x.title());
      add(f + " y label", ax.y.title());
      for (const plot::Item& item : ax.items)
        std::visit(
            [&](const auto& it) {
              using T = std::decay_t<decltype(it)>;
              if constexpr (std::is_same_v<T, plot::TextItem>) {
                if (!(cells && it.align_x == 0.5f)) add(f + " annotation", it.text);
              } else if constexpr (std::is_same_v<T, plot::BarsItem>) {
                for (const std::string& s : it.series) add(f + " legend", s);
              } else if constexpr (std::is_same_v<T, plot::HeatmapItem>) {
                add(f + " heatmap", it.label);
                add(f + " colour bar", it.options.value_label);
              } else if constexpr (requires { it.label; }) {
                add(f + " legend", it.label);
              }
            },
            item);
    }
  }
  return out;
}

// `s` with every $…$ span blanked out and each non-ASCII character as one '#' (std::regex works on bytes).
std::string outside_math(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (plot::inside_math(s, i) || (c == '$' && plot::inside_math(s, i + 1)))
      out += ' ';
    else if (c >= 0xC0)
      out += '#';
    else if (c < 0x80)
      out += char(c);
  }
  return out;
}

// ASCII math that should be typeset, outside the dollars.
const std::vector<std::pair<std::regex, const char*>>& patterns() {
  static const std::vector<std::pair<std::regex, const char*>> p = {
      {std::regex(R"(\bsqrt\()"), "sqrt("},
      {std::regex(R"(\bexp\()"), "exp("},
      {std::regex(R"(\blog\()"), "log("},
      {std::regex(R"([A-Za-z#)]\^[-0-9A-Za-z({#])"), "^ superscript"},
      {std::regex(R"((^|[^A-Za-z_#])[A-Za-z#]_([A-Za-z0-9#]|\{)([^A-Za-z0-9_#]|$))"), "_ subscript"},
      {std::regex(R"(\\(frac|sqrt|sum|alpha|theta|tau|cdot|mathbf|hat)\b)"), "TeX command outside $"},
  };
  return p;
}

// A short identifier with an underscore outside $…$ (min_p, d_in, n_rep, T_q): a variable a formula names, to be
// typeset ($p_{\min}$, $d_{in}$), unless it names a key the user types. A key is named where a message says what it
// must be ("top_k must be …", "d_in and d_out must …") or where the string is the key alone; `code_names` are keys and
// tensor names the interface shows as such in running text.
bool prose_identifier(const std::string& plain, std::string* found) {
  static const std::set<std::string> code_names = {"max_seq", "z_loss",  "mlp_bias", "o_proj", "q_proj", "k_proj",
                                                   "v_proj",  "up_proj", "qkv_proj", "c_attn", "unk_id"};
  static const std::regex ident(R"((^|[^A-Za-z0-9_.'"/\\{#\-])([A-Za-z]{1,3}_[A-Za-z]{1,4})(?=[^A-Za-z0-9_(.#]|$))");
  static const std::regex key_use(R"(^( and [A-Za-z0-9_]+)? must\b)");
  for (auto it = std::sregex_iterator(plain.begin(), plain.end(), ident); it != std::sregex_iterator(); ++it) {
    const std::string id = (*it)[2].str();
    const size_t end = size_t(it->position(2) + it->length(2));
    if (code_names.count(id) || plain == id || std::regex_search(plain.substr(end), key_use)) continue;
    *found = id;
    return true;
  }
  return false;
}

// A lone ASCII letter used as a variable in prose, outside $…$: a label that ends in its symbol ("rank r",
// "window W"), a message that says what the variable must be ("T must be …", "positions m and n must …") or an
// assignment in a sentence ("at r = 4", "(B = 0)"). Italic in the formulas, the same letter must be italic in the
// words around them. Only these three positions are checked, so prose letters stay free: the article "a" and "A",
// the pronoun "I" are never variables here (a capital A or I that is one is caught by "must" or " = " still);
// "s" for seconds follows a number ("2 s"), "x" for a factor is glued to it ("2x"), and neither is a label's end
// or precedes "must" or " =". A letter inside an identifier, a path or an option (n_heads, 8C/3, --set k=v) is
// not lone.
bool lone_variable(const std::string& plain, std::string* found) {
  static const std::regex label(R"(^[A-Za-z][A-Za-z0-9 /\-]*[a-z] ([B-HJ-Zb-z])$)");
  static const std::regex in_prose(R"((^|[^A-Za-z0-9_.'/\\=@%#{*\-])([B-HJ-Zb-z]) (must\b|= ))");
  std::smatch m;
  if (std::regex_search(plain, m, label)) {
    *found = m[1].str();
    return true;
  }
  if (std::regex_search(plain, m, in_prose)) {
    *found = m[2].str();
    return true;
  }
  return false;
}

// A single letter standing alone in running text, outside $…$: a variable ("query i sees keys j ≤ i", "quadratic in
// T", "K cache", "q and k") or a length glued to a number ("4L", "8C/3"), upright where the formulas beside it are
// italic. Not a variable: the article "a"/"A" and "I"; a unit after a number or a placeholder ("2 s", "7.3 M",
// "{2} M", "87K", "70B", "2x"); a key chord or code point ("Ctrl+B", "U+XXXX"); the symbols "A, B, C" the sort task
// draws from; a letter inside a word, identifier, path, option or abbreviation ("e.g.", "n_heads", "top-k",
// "--set k=v"); an index is not a letter apart ("x[k]" is flagged for its "x").
bool loose_letter(std::string plain, std::string* found) {
  static const std::regex symbols(R"(A, B, C)");
  static const std::regex lone(
      R"((^|[^A-Za-z0-9_.'/\\=@%*{+\[\-])([B-HJ-Zb-z])(?=[^A-Za-z0-9_'\]+=\-]|$)(?!\.[A-Za-z]))");
  static const std::regex unit(R"([0-9}] $)");
  static const std::regex glued(R"((^|[^A-Za-z0-9_.\-])[0-9]+([AC-JL-Z])(?=[^A-Za-z0-9_]|$))");
  plain = std::regex_replace(plain, symbols, "symbols");
  for (auto it = std::sregex_iterator(plain.begin(), plain.end(), lone); it != std::sregex_iterator(); ++it) {
    const std::string letter = (*it)[2].str();
    const std::string before = plain.substr(0, size_t(it->position(2)));
    if (std::string("sMBKGk").find(letter) != std::string::npos && std::regex_search(before, unit)) continue;
    *found = letter;
    return true;
  }
  std::smatch m;
  if (std::regex_search(plain, m, glued)) {
    *found = m.str(0);
    return true;
  }
  return false;
}

// A name outside the dollars set equal to math inside them ("KV = $H$"): the name is a variable too.
bool mixed_assignment(const std::string& s, std::string* found) {
  static const std::regex mixed(R"((^|[^A-Za-z0-9_$\\{])([A-Za-z]{1,3}) = \$)");
  std::smatch m;
  if (!std::regex_search(s, m, mixed) || plot::inside_math(s, size_t(m.position(2)))) return false;
  *found = m.str(2);
  return true;
}

// Identifiers the user types or reads as code (config keys, tensor names) are not formulas.
const std::set<std::string>& allowed() {
  static const std::set<std::string> a = {};
  return a;
}

bool plain_text_math(const std::string& s, std::string* found);

// What a figure shows of the user's own text is data, not math: quoted pieces ("␣lo" + "w"), tokens with a
// visible space (␣m), segmentations (t|h|e, ##e) and a listed alphabet ("A B C D …") are left out of the scan.
std::string without_token_text(const std::string& s) {
  static const std::regex quoted("\"[^\"$]*\""), alphabet("(\\b[A-Z] ){3,}[A-Z]\\b");
  std::string t = std::regex_replace(std::regex_replace(s, quoted, "\"\""), alphabet, "");
  std::string out, word;
  auto flush = [&] {
    const bool token = word.find("\xE2\x90\xA3") != std::string::npos || word.find('|') != std::string::npos ||
                       word.find("##") != std::string::npos;
    if (!token || word.find_first_of("$\\") != std::string::npos) out += word;  // |x| in math stays
    word.clear();
  };
  for (char ch : t) {
    if (ch == ' ' || ch == '\n') {
      flush();
      out += ch;
    } else {
      word += ch;
    }
  }
  flush();
  return out;
}

TEST(MathStrings, NoAsciiMathOutsideDollarsAndNoUnsupportedCommands) {
  std::vector<std::string> flagged, unsupported;
  size_t scanned = 0, with_math = 0;
  for (const std::string& id : testing::registered_ids()) {
    for (const Found& f : panel_strings_found(id)) {
      ++scanned;
      if (allowed().count(f.text)) continue;
      std::string what;
      if (plain_text_math(without_token_text(f.text), &what)) flagged.push_back(f.where + " [" + what + "]: " + f.text);
      if (plot::has_math(f.text)) {
        ++with_math;
        const plot::MathLayout l = plot::layout_math_uncached(f.text, 15);
        for (const std::string& cmd : l.unsupported) unsupported.push_back(f.where + " uses " + cmd + ": " + f.text);
      }
    }
  }
  EXPECT_GT(scanned, 500u);  // the scan reached every panel's controls and figures
  std::string report;
  for (const std::string& s : flagged) report += "  " + s + "\n";
  EXPECT_TRUE(flagged.empty()) << flagged.size() << " of " << scanned << " strings have ASCII math outside $…$ ("
                               << with_math << " already typeset):\n"
                               << report;
  std::string unsup;
  for (const std::string& s : unsupported) unsup += "  " + s + "\n";
  EXPECT_TRUE(unsupported.empty()) << "commands the math layout draws as source:\n" << unsup;
}

// Every msgid xgettext extracts from the sources, as po_complete extracts them ("" when xgettext is missing).
std::vector<std::string> catalogue_strings(std::string* error) {
  const std::string src = TW_SOURCE_DIR, pot = std::string(TW_BINARY_DIR) + "/math_strings_catalogue.pot";
  const std::string cmd = "cd '" + src +
                          "' && find app core views -name '*.cpp' -o -name '*.h' | LC_ALL=C sort | xgettext "
                          "--language=C++ --from-code=UTF-8 --keyword= --keyword=tr --keyword=trn:1,2 --keyword=N_ "
                          "--force-po -f - -o '" +
                          pot + "' 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    *error = "xgettext failed: " + cmd;
    return {};
  }
  std::ifstream in(pot);
  std::vector<std::string> out;
  std::string line, cur;
  bool in_id = false;
  auto unquote = [](const std::string& q) {  // a PO string literal without its quotes, escapes resolved
    std::string r;
    for (size_t i = 1; i + 1 < q.size(); ++i) {
      if (q[i] != '\\' || i + 2 >= q.size()) {
        r += q[i];
        continue;
      }
      const char c = q[++i];
      r += c == 'n' ? '\n' : c == 't' ? '\t' : c;
    }
    return r;
  };
  while (std::getline(in, line)) {
    if (line.rfind("msgid ", 0) == 0 || line.rfind("msgid_plural ", 0) == 0) {
      if (in_id && !cur.empty()) out.push_back(cur);
      cur = unquote(line.substr(line.find(' ') + 1));
      in_id = true;
    } else if (in_id && !line.empty() && line[0] == '"') {
      cur += unquote(line);
    } else {
      if (in_id && !cur.empty()) out.push_back(cur);
      in_id = false, cur.clear();
    }
  }
  if (in_id && !cur.empty()) out.push_back(cur);
  std::remove(pot.c_str());
  return out;
}

// Greek letters, radicals, n-ary sums and softmax(…) written as plain text: formulas that belong in $…$.
bool plain_symbol_math(const std::string& s) {
  static const char* const kSymbols[] = {"\xE2\x88\x9A", "\xE2\x88\x91", "softmax("};  // √ ∑
  std::string plain;
  for (size_t i = 0; i < s.size(); ++i)
    if (!plot::inside_math(s, i) && !(s[i] == '$' && plot::inside_math(s, i + 1))) plain += s[i];
  for (const char* sym : kSymbols)
    if (plain.find(sym) != std::string::npos) return true;
  for (size_t i = 0; i + 1 < plain.size(); ++i) {  // U+0391–U+03A9, U+03B1–U+03C9 (Σ is U+03A3)
    const unsigned char a = plain[i], b = plain[i + 1];
    if ((a == 0xCE && b >= 0x91 && b <= 0xBF) || (a == 0xCF && b >= 0x80 && b <= 0x89)) return true;
  }
  return false;
}

// Every check above on one string: true with what it found when `s` has plain-text math outside its dollars.
bool plain_text_math(const std::string& s, std::string* found) {
  const std::string plain = outside_math(s);
  if (plain_symbol_math(s)) return *found = "symbol", true;
  if (prose_identifier(plain, found) || lone_variable(plain, found) || loose_letter(plain, found) ||
      mixed_assignment(s, found))
    return true;
  for (const auto& [re, what] : patterns())
    if (std::regex_search(plain, re)) return *found = what, true;
  return false;
}

// Strings that are configuration values or shape notation the user types, not formulas.
const std::set<std::string>& catalogue_allowed() {
  static const std::set<std::string> a = {
      "config.json: 'tw_attn_scale' must be one of 1/sqrt(d_k), none, 1/d_k",
      "attention scale must be 1/sqrt(d_k), none or 1/d_k (a custom factor is not a model choice)",
      "dense bias must be (T_q, T_k) or (H*T_q, T_k)",
      "--set {0}: expected key=value, e.g. --set softmax.d_k=64",
      // terminal output of `transformer-workbench train` and `dump`: nothing typesets it, $T$ would print as dollars
      "training {0}: {1} steps, batch {2}, T = {3}, {4} parameters, at most {5} MiB",
      "--grads needs at least 2 tokens (position t predicts token t+1)",
      // the keys a scene file's window place is written with, and the JSON a tokenizer's merges are written as
      "{0}: a place needs all of x, y, w and h; the window stays where it is",
      "merges must be strings \"a b\" or pairs [\"a\", \"b\"]",
      // "x" is the label of the button it names
      "Adds one more term to the AND-list; remove a term with its x button.",
  };
  return a;
}

TEST(MathStrings, EveryMarkedStringIncludingDrawnOnlyLinesTypesetsItsFormulas) {
  std::string error;
  const std::vector<std::string> all = catalogue_strings(&error);
  ASSERT_TRUE(error.empty()) << error;
  ASSERT_GT(all.size(), 1500u) << "xgettext found too few strings";
  std::vector<std::string> flagged, unsupported;
  for (const std::string& s : all) {
    if (catalogue_allowed().count(s)) continue;
    const std::string plain = outside_math(s);
    std::string id;
    if (plain_text_math(s, &id)) flagged.push_back(s + "   [" + id + "]");
    if (plot::has_math(s))
      for (const std::string& cmd : plot::layout_math_uncached(s, 15).unsupported)
        unsupported.push_back(cmd + " in: " + s);
  }
  std::string report;
  for (const std::string& s : flagged) report += "  " + s + "\n";
  EXPECT_TRUE(flagged.empty()) << flagged.size() << " marked strings have plain-text math outside $…$:\n" << report;
  std::string unsup;
  for (const std::string& s : unsupported) unsup += "  " + s + "\n";
  EXPECT_TRUE(unsupported.empty()) << "commands the math layout draws as source:\n" << unsup;
}

// Text the app shows from files rather than from the catalogue: the lessons (every "en" and "zh" text: titles,
// summaries, step texts, what to look at, questions, hints, solutions), the scenes' descriptions on the start page's
// cards and in File › Presets (assets/scenes and the shipped models' scene.json), and the task a shipped model's
// card.json names in the stepper.
std::vector<Found> asset_strings() {
  namespace fs = std::filesystem;
  const fs::path assets = fs::path(TW_SOURCE_DIR) / "assets";
  std::vector<Found> out;
  auto read = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return parse_json_or_discarded(std::string(std::istreambuf_iterator<char>(in), {}));
  };
  std::function<void(const nlohmann::json&, const std::string&, const std::string&)> walk =
      [&](const nlohmann::json& j, const std::string& key, const std::string& where) {
        if (j.is_string() && (key == "en" || key == "zh")) out.push_back({where, j.get<std::string>()});
        if (j.is_object())
          for (const auto& [k, v] : j.items()) walk(v, k, where);
        if (j.is_array())
          for (const auto& v : j) walk(v, key, where);
      };
  std::vector<fs::path> files;
  for (const char* dir : {"lessons", "scenes", "models"})
    for (const auto& e : fs::recursive_directory_iterator(assets / dir))
      if (e.path().extension() == ".json" && e.path().filename() != "config.json" &&
          e.path().filename() != "tokenizer.json")
        files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    const nlohmann::json j = read(f);
    const std::string where = fs::relative(f, assets).string();
    if (!j.is_object()) {
      out.push_back({where, "(unreadable)"});
      continue;
    }
    walk(j, "", where);
    for (const char* field : {"description", "task", "task_zh"})
      if (j.contains(field) && j[field].is_string()) out.push_back({where + " " + field, j[field].get<std::string>()});
  }
  return out;
}

TEST(MathStrings, LessonsScenesAndModelCardsTypesetTheirFormulas) {
  const std::vector<Found> all = asset_strings();
  ASSERT_GT(all.size(), 300u) << "too few lesson, scene and card texts found";
  std::vector<std::string> flagged, unsupported;
  for (const Found& f : all) {
    std::string id;
    if (plain_text_math(f.text, &id)) flagged.push_back(f.where + " [" + id + "]: " + f.text);
    if (plot::has_math(f.text))
      for (const std::string& cmd : plot::layout_math_uncached(f.text, 15).unsupported)
        unsupported.push_back(f.where + " uses " + cmd);
  }
  std::string report;
  for (const std::string& s : flagged) report += "  " + s + "\n";
  EXPECT_TRUE(flagged.empty()) << flagged.size() << " of " << all.size()
                               << " lesson/scene/card texts have plain-text math outside $…$:\n"
                               << report;
  std::string unsup;
  for (const std::string& s : unsupported) unsup += "  " + s + "\n";
  EXPECT_TRUE(unsupported.empty()) << "commands the math layout draws as source:\n" << unsup;
}

TEST(MathStrings, ThePatternsCatchAsciiMathAndSpareTypesetMathAndIdentifiers) {
  // Token text is left out, math around it is not.
  std::string what;
  EXPECT_FALSE(plain_text_math(without_token_text("chosen: \"\xE2\x90\xA3lo\" + \"w\" (7 times)"), &what)) << what;
  EXPECT_FALSE(plain_text_math(without_token_text("t|h|e|\xE2\x90\xA3|n|e|w (A B C D E F)"), &what)) << what;
  EXPECT_TRUE(plain_text_math(without_token_text("query i sees t|h|e"), &what));
  auto hit = [](const std::string& s) {
    const std::string plain = outside_math(s);
    for (const auto& [re, what] : patterns())
      if (std::regex_search(plain, re)) return true;
    return false;
  };
  for (const char* bad :
       {"scale 1/sqrt(d_k)", "S_i = exp(x_i)", "x^2 + y^2", "base^(-2k/d)", "max_j S_j", "\\frac{a}{b}", "θ_k"})
    EXPECT_TRUE(hit(bad)) << bad;
  for (const char* ok : {"scale $1/\\sqrt{d_k}$", "$S_i = e^{x_i}$", "rope_theta", "d_model = 64", "max_norm",
                         "model.embed_tokens.weight", "top-k", "$x^2$ and $y_i$", "lm_head", "tokens/s"})
    EXPECT_FALSE(hit(ok)) << ok;
  std::string id;
  for (const char* bad : {"Drop tokens below min_p times the largest", "clamped to min(d_in, d_out)",
                          "n_rep = 4 query heads per KV head", "keeps the top_k largest"})
    EXPECT_TRUE(prose_identifier(outside_math(bad), &id)) << bad;
  for (const char* ok : {"top_k must be between 1 and 8", "d_in and d_out must be at least 1", "d_head",
                         "stopped at max_seq 64", "below $p_{\\min}$ times", "rope_theta", "n_heads 8",
                         "model.layers.0.self_attn.q_proj.weight", "'tw_attn_scale'"})
    EXPECT_FALSE(prose_identifier(outside_math(ok), &id)) << ok << " flagged " << id;
  for (const char* bad : {"rank r", "window W", "query heads H", "T must be between 1 and 256",
                          "positions m and n must be \xE2\x89\xA5 0", "error at r = 4", "step 0 (B = 0): adapted"})
    EXPECT_TRUE(lone_variable(outside_math(bad), &id)) << bad;
  for (const char* ok :
       {"rank $r$", "window $W$", "$T$ must be between 1 and 256", "at $r$ = 1, 2", "a b", "Keep a token", "Press A",
        "took 2 s", "scaled 2x", "8C/3 = 4096", "--set k=v", "n_heads must be even", "top-k", "model 2 = base"})
    EXPECT_FALSE(lone_variable(outside_math(ok), &id)) << ok << " flagged " << id;
  for (const char* bad : {"Query i sees keys j \xE2\x89\xA4 i", "quadratic in T.", "K cache", "Largest distance m - n",
                          "evaluated out to 4L.", "int(8C/3)", "(K \xE5\x92\x8C V)", "For q, k with", "pairs x[k]"})
    EXPECT_TRUE(loose_letter(outside_math(bad), &id)) << bad;
  for (const char* ok : {"Query $i$ sees keys $j \\le i$", "quadratic in $T$.", "$K$ cache", "about 7.3 M.", "{2} M",
                         "took 2 s", "87K and 70B", "Ctrl+B", "U+XXXX", "sort 6 letters from {A, B, C}", "e.g. this",
                         "top-k", "--set k=v", "a cat", "I see", "2x"})
    EXPECT_FALSE(loose_letter(outside_math(ok), &id)) << ok << " flagged " << id;
  EXPECT_TRUE(mixed_assignment("KV = $H$ is MHA", &id));
  EXPECT_FALSE(mixed_assignment("$H_{kv} = H$ is MHA, for $C$ = 4096", &id));
  for (const char* bad :
       {"temperature \xCF\x84", "scaled by \xCE\xB1/\xE2\x88\x9Ar", "p = softmax(l / T)", "rows of \xCE\x94W"})
    EXPECT_TRUE(plain_symbol_math(bad)) << bad;
  for (const char* ok :
       {"temperature $\\tau$", "$\\softmax(l / T)$", "\xE5\xA4\xB4 $\\rho$", "softmax", "x \xE2\x89\xA5 0"})
    EXPECT_FALSE(plain_symbol_math(ok)) << ok;
}

}  // namespace
}  // namespace tw
