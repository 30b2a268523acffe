// Every formula a panel shows is typeset: scans the strings the panels produce headless (explanations, names,
// control labels and (?) help, figure titles, axis labels and units, legends, notes, annotations)
// for ASCII math outside $…$ (sqrt(, exp(, x_i, x^2, \frac …), and every $…$ span for commands the math layout
// does not support. Drawn-only strings (hover read-outs, ImGui-only lines) are not reachable here.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <variant>
#include <vector>

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
std::vector<Found> panel_strings(const std::string& id) {
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
      add(f + " x label", ax.x.title());
      add(f + " y label", ax.y.title());
      for (const plot::Item& item : ax.items)
        std::visit(
            [&](const auto& it) {
              using T = std::decay_t<decltype(it)>;
              if constexpr (std::is_same_v<T, plot::TextItem>) {
                add(f + " annotation", it.text);
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

// Identifiers the user types or reads as code (config keys, tensor names) are not formulas.
const std::set<std::string>& allowed() {
  static const std::set<std::string> a = {};
  return a;
}

TEST(MathStrings, NoAsciiMathOutsideDollarsAndNoUnsupportedCommands) {
  std::vector<std::string> flagged, unsupported;
  size_t scanned = 0, with_math = 0;
  for (const std::string& id : testing::registered_ids()) {
    for (const Found& f : panel_strings(id)) {
      ++scanned;
      if (allowed().count(f.text)) continue;
      const std::string plain = outside_math(f.text);
      // Scanned per line of the string: std::regex has no multiline anchors.
      for (const auto& [re, what] : patterns()) {
        std::smatch m;
        if (std::regex_search(plain, m, re)) {
          flagged.push_back(f.where + " [" + what + " at \"" + m.str(0) + "\"]: " + f.text);
          break;
        }
      }
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

TEST(MathStrings, ThePatternsCatchAsciiMathAndSpareTypesetMathAndIdentifiers) {
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
}

}  // namespace
}  // namespace tw
