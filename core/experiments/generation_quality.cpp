// Sampled text and the measures of its form (core/experiments/generation_quality.h).
#include "core/experiments/generation_quality.h"

#include <algorithm>
#include <cctype>

#include "core/base/i18n.h"
#include "core/base/read_file.h"
#include "core/base/utf8.h"
#include "core/model/generation.h"

namespace tw {

SampledText sample_text(const StepperModel& model, const std::string& prompt, int tokens,
                        const SamplingConfig& sampling, uint64_t seed) {
  SampledText out;
  if (!model.weights || !model.vocabulary) return out.error = tr("no model is loaded"), out;
  std::vector<int> ids;
  if (!model.vocabulary->encode(prompt, /*bos=*/true, &ids, &out.error)) return out;
  const int room = model.config.max_seq - static_cast<int>(ids.size());
  if (room < 1)
    return out.error =
               subst(tr("the prompt fills the model's context of {0} tokens"), {std::to_string(model.config.max_seq)}),
           out;
  const TokenVocabulary& vocab = *model.vocabulary;
  const Generation g = generate(model.config, *model.weights, ids, std::min(tokens, room), sampling, seed, {},
                                [&](const std::vector<int>& so_far) { return vocab.utf8_allowed_after(so_far); });
  if (!g.error.empty() && g.tokens.empty()) return out.error = g.error, out;
  const std::string prompt_text = vocab.decode(ids);
  ids.insert(ids.end(), g.tokens.begin(), g.tokens.end());
  out.text = vocab.decode(ids);
  out.text.resize(out.text.size() - utf8_unfinished_tail(out.text).size());
  const size_t from = out.text.compare(0, prompt_text.size(), prompt_text) == 0 ? prompt_text.size() : 0;
  if (const size_t end = out.text.find("\n\n", from); end != std::string::npos) {
    out.text.resize(end);
    out.complete = true;
  }
  out.continuation = out.text.substr(std::min(from, out.text.size()));
  return out;
}

// [SECTION] Tang poems

std::vector<std::string> poem_half_lines(std::string_view poem) {
  static const std::vector<std::string> marks{"，", "。", "？", "！", "；"};
  std::vector<std::string> out;
  std::string piece;
  for (const std::string& ch : utf8_chars(poem)) {
    if (std::find(marks.begin(), marks.end(), ch) != marks.end()) {
      if (!piece.empty()) out.push_back(piece);
      piece.clear();
    } else if (ch != "\n") {
      piece += ch;
    }
  }
  return out;
}

PoemForm poem_form(const std::vector<std::string>& poems) {
  PoemForm f;
  for (const std::string& poem : poems) {
    const std::vector<std::string> halves = poem_half_lines(poem);
    if (halves.size() < 2) continue;
    ++f.poems;
    bool uniform = true;
    const size_t first = utf8_chars(halves.front()).size();
    for (const std::string& h : halves) {
      const size_t n = utf8_chars(h).size();
      ++f.half_lines;
      f.five_or_seven += n == 5 || n == 7 ? 1 : 0;
      uniform = uniform && n == first;
    }
    f.uniform_poems += uniform ? 1 : 0;
  }
  return f;
}

// [SECTION] English

std::vector<std::string> english_words(std::string_view text) {
  std::vector<std::string> out;
  std::string word;
  auto flush = [&] {
    while (!word.empty() && word.back() == '\'') word.pop_back();
    if (!word.empty()) out.push_back(word);
    word.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (std::isalpha(c) && c < 0x80)
      word.push_back(static_cast<char>(std::tolower(c)));
    else if (c == '\'' && !word.empty() && i + 1 < text.size() && std::isalpha(static_cast<unsigned char>(text[i + 1])))
      word.push_back('\'');
    else
      flush();
  }
  flush();
  return out;
}

std::string_view without_open_word(std::string_view text) {
  size_t end = text.size();
  while (end > 0 && (std::isalpha(static_cast<unsigned char>(text[end - 1])) || text[end - 1] == '\'')) --end;
  return text.substr(0, end);
}

std::unordered_set<std::string> read_word_list(const std::string& path, std::string* error) {
  std::string bytes;
  std::unordered_set<std::string> out;
  if (!read_file_bounded(path, size_t{64} << 20, &bytes, error)) return out;
  size_t start = 0;
  while (start < bytes.size()) {
    size_t end = bytes.find('\n', start);
    if (end == std::string::npos) end = bytes.size();
    std::string w = bytes.substr(start, end - start);
    for (char& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!w.empty()) out.insert(w);
    start = end + 1;
  }
  return out;
}

WordCheck dictionary_words(const std::vector<std::string>& texts, const std::unordered_set<std::string>& words) {
  WordCheck c;
  for (const std::string& t : texts)
    for (const std::string& w : english_words(t)) {
      ++c.words;
      const bool possessive = w.size() > 2 && w.compare(w.size() - 2, 2, "'s") == 0;
      c.known += words.count(w) || (possessive && words.count(w.substr(0, w.size() - 2))) ? 1 : 0;
    }
  return c;
}

// [SECTION] the measured runs

namespace {
constexpr SamplingConfig kQualitySampling{.temperature = 0.8f, .top_p = 0.9f};

// An English record's text up to the end of its second word (all of it when it has fewer).
std::string first_words(const std::string& record, int count) {
  size_t cut = 0;
  for (int words = 0, inside = 0; cut < record.size() && words < count; ++cut) {
    const bool letter = std::isalpha(static_cast<unsigned char>(record[cut])) != 0;
    if (letter && !inside) inside = 1;
    if (!letter && inside) inside = 0, ++words;
  }
  return record.substr(0, cut);
}
}  // namespace

QualityRun poem_quality(const StepperModel& model, const std::vector<std::string>& records, uint64_t base_seed) {
  QualityRun q;
  std::vector<std::string> whole, continued;
  for (size_t i = 0; i < records.size(); ++i) {
    const size_t first_line = records[i].find("。");
    if (first_line == std::string::npos)
      return q.error = subst(tr("held-out poem {0} has no 。"), {std::to_string(i + 1)}), q;
    q.prompts.push_back(records[i].substr(0, first_line + std::string("。").size()));
    q.samples.push_back(sample_text(model, q.prompts.back(), 96, kQualitySampling, base_seed + i));
    if (!q.samples.back().error.empty()) return q.error = q.samples.back().error, q;
    whole.push_back(q.samples.back().text);
    continued.push_back(q.samples.back().continuation);
  }
  q.continued = poem_form(continued);
  q.whole = poem_form(whole);
  return q;
}

QualityRun english_quality(const StepperModel& model, const std::vector<std::string>& records,
                           const std::unordered_set<std::string>& word_list, uint64_t base_seed) {
  QualityRun q;
  std::vector<std::string> continued;
  for (size_t i = 0; i < records.size(); ++i) {
    q.prompts.push_back(first_words(records[i], 2));
    q.samples.push_back(sample_text(model, q.prompts.back(), 48, kQualitySampling, base_seed + i));
    if (!q.samples.back().error.empty()) return q.error = q.samples.back().error, q;
    const SampledText& s = q.samples.back();
    continued.emplace_back(s.complete ? std::string_view(s.continuation) : without_open_word(s.continuation));
  }
  q.words = dictionary_words(continued, word_list);
  return q;
}

std::vector<std::string> blank_line_records(const std::string& text) {
  std::vector<std::string> out;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find("\n\n", start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 2;
  }
  return out;
}

std::vector<std::string> spread_records(const std::vector<std::string>& records, size_t n) {
  if (records.size() <= n) return records;
  std::vector<std::string> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(records[i * records.size() / n]);
  return out;
}

}  // namespace tw
