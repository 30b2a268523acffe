#include "core/experiments/model_card.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "core/base/i18n.h"
#include "core/base/json_parse.h"
#include "core/base/read_file.h"
#include "core/base/utf8.h"

namespace tw {

namespace {

namespace fs = std::filesystem;

constexpr size_t kCardMaxBytes = 1 << 20;        // a model card is a page of text
constexpr size_t kTokenizerMaxBytes = 64 << 20;  // tokenizer.json of a shipped model is at most a few MB

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
std::string trim(const std::string& s, const char* junk = " \t\r|*`\"") {
  const size_t a = s.find_first_not_of(junk);
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(junk) - a + 1);
}
// The value after "key:" (or the next table cell after "| key |") at the start of `line`; "" when the line is not
// about `key`.
std::string value_of(const std::string& line, const std::string& key) {
  const std::string t = trim(line, " \t\r|*-#");
  if (lower(t).rfind(key, 0) != 0) return "";
  std::string rest = t.substr(key.size());
  const size_t sep = rest.find_first_of(":|");
  if (sep == std::string::npos || trim(rest.substr(0, sep)) != "") return "";
  return trim(rest.substr(sep + 1));
}
double first_number(const std::string& line) {
  for (size_t i = 0; i < line.size(); ++i)
    if (std::isdigit(static_cast<unsigned char>(line[i]))) {
      double v = -1;
      if (std::sscanf(line.c_str() + i, "%lf", &v) == 1) return v;
    }
  return -1;
}

void read_card_json(const std::string& path, ModelCard* c) {
  std::string text, error;
  if (!read_file_bounded(path, kCardMaxBytes, &text, &error)) return;
  const nlohmann::json j = parse_json_or_discarded(text);
  if (!j.is_object()) return;
  auto str = [&](const char* key, std::string* out) {
    if (out->empty() && j.contains(key) && j[key].is_string()) *out = j[key].get<std::string>();
  };
  str("language", &c->language);
  str("corpus", &c->corpus);
  str("example", &c->example);
  str("task", &c->task);
  str("task_zh", &c->task_zh);
  if (c->heldout_accuracy < 0 && j.contains("heldout_accuracy") && j["heldout_accuracy"].is_number())
    c->heldout_accuracy = j["heldout_accuracy"].get<double>();
  if (c->heldout_bits_per_char < 0 && j.contains("heldout_bits_per_char") && j["heldout_bits_per_char"].is_number())
    c->heldout_bits_per_char = j["heldout_bits_per_char"].get<double>();
}

// Under the held-out heading: "| Kneser–Ney, order 3 | 7.595 |" rows (orders 1, 2, ... in turn) and the text's
// size, "The whole `heldout.txt` (355,479 characters) ...".
void read_heldout_baselines(const std::string& t, ModelCard* c) {
  const std::string l = lower(trim(t, " \t\r|*"));
  const std::string row = "kneser\xE2\x80\x93ney, order ";  // "Kneser–Ney" with an en dash
  if (l.rfind(row, 0) == 0) {
    int order = 0;
    double bits = 0;
    const size_t bar = l.find('|');
    if (bar != std::string::npos && std::sscanf(l.c_str() + row.size(), "%d", &order) == 1 &&
        order == int(c->kneser_ney_bits.size()) + 1 && (bits = first_number(l.substr(bar))) > 0)
      c->kneser_ney_bits.push_back(bits);
    return;
  }
  // "This model is **13.7% below** the best n-gram (order 5, 2.152).": the sentence's first number is the percentage.
  const size_t below = l.find("% below");
  if (c->percent_below_kneser_ney < 0 && below != std::string::npos && l.find("n-gram") != std::string::npos) {
    c->percent_below_kneser_ney = first_number(l.substr(0, below));
    return;
  }
  const size_t at = l.find("heldout.txt` (");
  if (c->heldout_chars >= 0 || at == std::string::npos) return;
  long n = 0;
  size_t i = at + 14;
  for (; i < l.size() && (std::isdigit(static_cast<unsigned char>(l[i])) || l[i] == ','); ++i)
    if (l[i] != ',') n = n * 10 + (l[i] - '0');
  if (n > 0 && l.compare(i, 10, " character") == 0) c->heldout_chars = n;
}

void read_readme(const std::string& path, ModelCard* c) {
  std::string text, error;
  if (!read_file_bounded(path, kCardMaxBytes, &text, &error)) return;
  std::istringstream in(text);
  std::string line;
  bool front = false, in_language_list = false;
  bool heldout_section = false;  // under a heading about held-out bits per character
  int n = 0;
  while (std::getline(in, line)) {
    const std::string t = trim(line, " \t\r");
    if (n++ == 0 && t == "---") {
      front = true;
      continue;
    }
    if (front) {
      if (t == "---") {
        front = false;
        continue;
      }
      if (in_language_list && t.rfind("- ", 0) == 0) {
        if (c->language.empty()) c->language = trim(t.substr(2));
        continue;
      }
      in_language_list = false;
      if (t.rfind("language:", 0) == 0) {
        const std::string v = trim(t.substr(9), " \t[]\"'");
        if (v.empty())
          in_language_list = true;
        else if (c->language.empty())
          c->language = v.substr(0, v.find_first_of(", "));
      }
      continue;
    }
    if (c->corpus.empty()) {
      // The corpus's name: what comes before its details ("300 Tang poems; Debian package ...").
      const std::string v = value_of(line, "corpus");
      c->corpus = trim(v.substr(0, v.find(';')));
    }
    if (c->example.empty()) c->example = value_of(line, "example");
    const std::string l = lower(line);
    const bool about_bits =
        (l.find("bits/char") != std::string::npos || l.find("bits per char") != std::string::npos) &&
        l.find("held") != std::string::npos;
    if (t.rfind("#", 0) == 0) heldout_section = about_bits;
    if (heldout_section) read_heldout_baselines(t, c);
    if (c->heldout_bits_per_char >= 0) continue;
    // "| held-out bits/char | 2.31 |" or "held-out: 2.31 bits/char" on one line; or, under a heading about
    // held-out bits per character, the table row of "this model".
    // A paragraph that explains the measure ("Held-out text: 2,599 characters ... bits per character = ...") is
    // not a result: one line holds one only when it is a table row or short.
    const bool one_result = about_bits && (t.rfind("|", 0) == 0 || t.size() < 80);
    const double v = one_result || (heldout_section && !value_of(line, "this model").empty()) ? first_number(line) : -1;
    if (v > 0) c->heldout_bits_per_char = v;
  }
}

// "zh" when the tokenizer's vocabulary holds many Han characters (U+4E00 … U+9FFF, decoded by core/base/utf8).
std::string guess_language(const std::string& tokenizer_path) {
  std::string text, error;
  if (!read_file_bounded(tokenizer_path, kTokenizerMaxBytes, &text, &error)) return "";
  size_t han = 0;
  for (size_t i = 0, len = 1; i < text.size(); i += len) {
    const uint32_t cp = decode_utf8_at(text, i, &len);
    if (cp >= 0x4E00 && cp <= 0x9FFF) ++han;
  }
  return han >= 500 ? "zh" : "en";
}

}  // namespace

double percent_below_best_kneser_ney(const ModelCard& c) {
  if (c.heldout_bits_per_char <= 0 || c.kneser_ney_bits.empty()) return -1;
  if (c.percent_below_kneser_ney >= 0) return c.percent_below_kneser_ney;
  return 100 * (1 - c.heldout_bits_per_char / *std::min_element(c.kneser_ney_bits.begin(), c.kneser_ney_bits.end()));
}

ModelCard read_model_card(const std::string& dir) {
  ModelCard c;
  const fs::path d(dir);
  read_card_json((d / "card.json").string(), &c);
  read_readme((d / "README.md").string(), &c);
  c.language = lower(c.language);
  if (c.language.rfind("zh", 0) == 0) c.language = "zh";  // zh-Hans, zh-CN
  if (c.language.rfind("en", 0) == 0) c.language = "en";
  std::error_code ec;
  if (c.language.empty() && fs::is_regular_file(d / "tokenizer.json", ec))
    c.language = guess_language((d / "tokenizer.json").string());
  return c;
}

// The corpus names the shipped cards give (assets/models/*/README.md), marked for the catalogue: a card is data
// written in English, and the Chinese interface shows these names in Chinese. A corpus not listed shows as written.
[[maybe_unused]] constexpr const char* kShippedCorpora[] = {N_("Tang poems (全唐诗)"), N_("English fortunes")};

std::string ShippedLanguageModel::label() const {
  std::string details;
  if (!card.corpus.empty()) details = tr(card.corpus.c_str());
  if (card.heldout_bits_per_char > 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", card.heldout_bits_per_char);
    // TRANSLATORS: between two details of a model's one-line summary
    details += (details.empty() ? "" : tr(", ")) + subst(tr("{0} bits/char held out"), {buf});
  }
  return details.empty() ? name : subst(tr("{0}: {1}"), {name, details});  // "poems：…" in Chinese
}

std::vector<ShippedLanguageModel> shipped_language_models(const std::string& models_dir) {
  std::vector<ShippedLanguageModel> out;
  std::error_code ec;
  if (models_dir.empty() || !fs::is_directory(models_dir, ec)) return out;
  for (fs::directory_iterator it(models_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path d = it->path();
    if (!it->is_directory(ec)) continue;
    bool complete = true;
    for (const char* f : {"config.json", "model.safetensors", "tokenizer.json"})
      complete = complete && fs::is_regular_file(d / f, ec);
    if (!complete) continue;
    out.push_back({d.filename().string(), d.string(), read_model_card(d.string())});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

const ShippedLanguageModel* language_model_for(const std::vector<ShippedLanguageModel>& models,
                                               const std::string& language) {
  for (const ShippedLanguageModel& m : models)
    if (m.card.language == language) return &m;
  return nullptr;
}

}  // namespace tw
