// GUI export file names and the no-overwrite rule (see export_naming.h).
#include "views/plot/export_naming.h"

#include <cctype>
#include <filesystem>
#include <set>
#include <string_view>
#include <utility>

#include "core/base/i18n.h"
#include "core/base/utf8.h"
#include "views/plot/math.h"

namespace tw::plot {

namespace {

namespace fs = std::filesystem;

// UTF-8 sequences a title uses, as ASCII words. Others become a word break.
constexpr std::pair<std::string_view, std::string_view> kSpelled[] = {
    {"\xCE\xB8", "theta"},   {"\xE2\x84\x93", "l"},     {"\xCE\x94", "delta"},    {"\xCE\xB1", "alpha"},
    {"\xCE\xB2", "beta"},    {"\xCE\xB3", "gamma"},     {"\xCE\xB5", "eps"},      {"\xCF\x80", "pi"},
    {"\xCF\x83", "sigma"},   {"\xCE\xBC", "mu"},        {"\xC3\x97", "x"},        {"\xC2\xB2", "2"},
    {"\xE1\xB5\x80", "t"},   {"\xE2\x86\x92", "to"},    {"\xE2\x88\x9A", "sqrt"}, {"\xE2\x82\x96", "k"},
    {"\xE2\x88\x9E", "inf"}, {"\xE2\x89\x88", "approx"}};

constexpr struct {
  ExportFormats flag;
  const char* ext;
} kExts[] = {{ExportFormat_Png, ".png"}, {ExportFormat_Svg, ".svg"}, {ExportFormat_Csv, ".csv"}};

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

// Formulas ($…$) read as their words in a file name: layout commands (\frac, \left, \mathbf …) and braces go,
// other commands keep their names ("$\frac{1}{\sqrt{d_k}}$" → "1 sqrt d_k", "$\theta_k$" → "theta_k").
static std::string slug_source(const std::string& text) {
  if (!has_math(text)) return text;
  static const std::set<std::string> kDropped = {"frac",     "dfrac",  "tfrac",  "left",   "right",      "mathbf",
                                                 "mathcal",  "mathrm", "mathit", "mathbb", "boldsymbol", "operatorname",
                                                 "text",     "hat",    "bar",    "tilde",  "vec",        "dot",
                                                 "overline", "cdot",   "quad",   "big",    "Big"};
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool in = inside_math(text, i + 1) || inside_math(text, i);
    if (!in || (c != '\\' && c != '{' && c != '}' && c != '$')) {
      out += c;
      continue;
    }
    if (c != '\\') {  // a brace joins what it groups to its scripts ("\mathbf{W}_Q" → "W_Q"); "}{" breaks words
      const bool script_follows = i + 1 < text.size() && (text[i + 1] == '_' || text[i + 1] == '^');
      if (c != '}' || !script_follows) out += ' ';
      continue;
    }
    size_t j = i + 1;
    while (j < text.size() && std::isalpha(static_cast<unsigned char>(text[j]))) ++j;
    const std::string name = text.substr(i + 1, j - i - 1);
    out += kDropped.count(name) ? " " : " " + name;
    i = j - 1;
  }
  return out;
}

std::string title_slug(const std::string& source, size_t max_len) {
  const std::string text = slug_source(source);
  std::string raw;  // words and '-' breaks; '.' kept for now
  int depth = 0;
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '(') ++depth;
    if (c == ')') depth = std::max(depth - 1, 0);
    if (c >= 0x80) {                                                          // a UTF-8 sequence
      const size_t len = std::max<size_t>(utf8_sequence_length(text, i), 1);  // a bad byte is one character
      std::string_view seq(text.data() + i, len);
      std::string_view word = "-";
      for (const auto& [from, to] : kSpelled)
        if (seq == from) word = to;
      if (depth == 0) raw += std::string("-") + std::string(word) + "-";
      i += seq.size();
      continue;
    }
    if (depth == 0 && c != ')') raw += word_char(char(c)) || c == '.' ? char(std::tolower(c)) : '-';
    ++i;
  }
  // Keep '.' only between two word characters ("layers.1.attn"), collapse breaks, trim.
  std::string slug;
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c == '.' && !(i > 0 && word_char(raw[i - 1]) && i + 1 < raw.size() && word_char(raw[i + 1]))) c = '-';
    if (c == '-' && (slug.empty() || slug.back() == '-')) continue;
    slug += c;
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  if (slug.size() > max_len) {
    const size_t cut = slug.rfind('-', max_len);
    slug.resize(cut == std::string::npos || cut == 0 ? max_len : cut);
    while (!slug.empty() && (slug.back() == '-' || slug.back() == '.')) slug.pop_back();
  }
  return slug;
}

std::string figure_file_stem(const std::string& panel_id, const Figure& fig) {
  const std::string id = valid_figure_id(fig.id) ? fig.id : title_slug(fig.id);
  const std::string slug = title_slug(fig.subject.empty() ? fig.title : fig.subject);
  std::string stem = panel_id.empty() ? id : panel_id + "-" + id;
  if (!slug.empty() && slug != title_slug(id)) stem += "-" + slug;
  return stem;
}

std::vector<std::string> existing_export_files(const std::string& dir, const std::string& stem, ExportFormats formats) {
  std::vector<std::string> found;
  for (const auto& e : kExts) {
    if (!(formats & e.flag)) continue;
    const fs::path path = fs::path(dir.empty() ? "." : dir) / (stem + e.ext);
    std::error_code ec;
    if (fs::exists(fs::symlink_status(path, ec))) found.push_back(path.string());
  }
  return found;
}

std::string free_export_stem(const std::string& dir, const std::string& stem, ExportFormats formats) {
  if (existing_export_files(dir, stem, formats).empty()) return stem;
  for (int n = 2;; ++n) {
    const std::string candidate = stem + "-" + std::to_string(n);
    if (existing_export_files(dir, candidate, formats).empty()) return candidate;
  }
}

std::string export_figure_as(const Figure& fig, const std::string& dir, const std::string& stem, ExportFormats formats,
                             const ExportOptions& options, std::vector<std::string>* written) {
  if (!valid_figure_id(stem)) return subst(tr("'{0}' cannot be used as a file name"), {stem});
  std::error_code ec;
  if (!dir.empty()) {
    fs::create_directories(dir, ec);
    if (ec) return subst(tr("cannot create directory {0}: {1}"), {dir, ec.message()});
  }
  for (const auto& e : kExts) {
    if (!(formats & e.flag)) continue;
    const std::string path = (fs::path(dir.empty() ? "." : dir) / (stem + e.ext)).string();
    const std::string err = e.flag == ExportFormat_Png   ? export_png(fig, path, options)
                            : e.flag == ExportFormat_Svg ? export_svg(fig, path, options)
                                                         : export_csv(fig, path);
    if (!err.empty()) return err;
    if (written) written->push_back(path);
  }
  return "";
}

}  // namespace tw::plot
