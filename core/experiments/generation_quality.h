#pragma once
// Does a language model write text a reader recognises? Sampled continuations and two measures of them:
//   Tang poems: the half-lines (the text between ，。？！；) of five or seven characters, and the poems that keep one
//               half-line length throughout (a 五言 or 七言 poem does);
//   English:    the words found in a dictionary (Debian's wamerican word list).
//
//   StepperModel m = ...;                 // a shipped model folder (load_hf_stepper_model)
//   SampledText s = sample_text(m, "床前明月光，疑是地上霜。", 64, {.temperature = 0.8f, .top_p = 0.9f}, seed);
//   PoemForm f = poem_form({s.text});     // f.five_or_seven(), f.uniform()
//
// Sampling draws only tokens that keep the text valid UTF-8, so a character spelled in byte-fallback tokens is
// always whole.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/ops/sampling.h"
#include "core/train/model_folder.h"

namespace tw {

struct SampledText {
  std::string text;          // the prompt and its continuation, cut at the first record break ("\n\n") after it
  std::string continuation;  // the part of `text` after the prompt
  bool complete = false;     // the model ended the record (a record break came); false: the token budget ran out,
                             // and the text may stop inside a word
  std::string error;         // one line when the prompt cannot be encoded or the model refused it
};
// `tokens` tokens (at most, and at most the model's context) after `prompt`, seeded.
SampledText sample_text(const StepperModel& model, const std::string& prompt, int tokens,
                        const SamplingConfig& sampling, uint64_t seed);

// [SECTION] Tang poems

// The closed half-lines of a poem: each piece of text ended by ，。？！； (the full-width marks), in order. A piece
// still open at the end (no mark after it) is not a half-line yet and is left out.
std::vector<std::string> poem_half_lines(std::string_view poem);

struct PoemForm {
  int poems = 0;          // poems with at least two closed half-lines
  int half_lines = 0;     // their closed half-lines
  int five_or_seven = 0;  // ... of five or seven characters
  int uniform_poems = 0;  // poems whose half-lines all have one length
  double five_or_seven_fraction() const { return half_lines ? double(five_or_seven) / half_lines : 0.0; }
  double uniform_fraction() const { return poems ? double(uniform_poems) / poems : 0.0; }
};
PoemForm poem_form(const std::vector<std::string>& poems);

// [SECTION] English

// Words: runs of ASCII letters, with an apostrophe inside a run kept ("don't"); lower-cased.
std::vector<std::string> english_words(std::string_view text);
// `text` without a word still open at its end (the letters and apostrophes after its last other character): a
// sample the token budget cut may stop inside a word, which is not a word the model wrote yet (as poem_half_lines
// leaves out a half-line no mark has closed).
std::string_view without_open_word(std::string_view text);
// The words of a word list file (one a line, as /usr/share/dict/american-english), lower-cased; empty + *error
// when it cannot be read.
std::unordered_set<std::string> read_word_list(const std::string& path, std::string* error);

struct WordCheck {
  int words = 0;  // words in the texts
  int known = 0;  // ... in the word list (or, ending in 's, their stem is)
  double known_fraction() const { return words ? double(known) / words : 0.0; }
};
WordCheck dictionary_words(const std::vector<std::string>& texts, const std::unordered_set<std::string>& words);

// [SECTION] the measured runs (the test's thresholds and the model cards' numbers come from these)

// The seeded samples of a model's held-out records (lm_card and the tests pass spread_records(records, 100)) and
// their measures: sample i continues a prompt cut from record i (a poem's first line, up to its first 。; an English
// record's first two words) with temperature 0.8 and top-p 0.9, seed base_seed + i. Poems: up to 96 tokens;
// English: 48, the words counted without a word the budget cut open (without_open_word).
struct QualityRun {
  std::vector<std::string> prompts;
  std::vector<SampledText> samples;
  PoemForm continued;  // poems: the half-lines after the prompt
  PoemForm whole;      // poems: the prompt and its continuation (for uniformity)
  WordCheck words;     // English: the words after the prompt
  std::string error;   // one line when a prompt could not be cut or sampled
};
QualityRun poem_quality(const StepperModel& model, const std::vector<std::string>& records, uint64_t base_seed = 1000);
QualityRun english_quality(const StepperModel& model, const std::vector<std::string>& records,
                           const std::unordered_set<std::string>& word_list, uint64_t base_seed = 2000);
// The records of a text written as the corpora are: records separated by a blank line.
std::vector<std::string> blank_line_records(const std::string& text);
// `n` records spread evenly over `records` (record ⌊i · size / n⌋ for i < n; all of them when there are fewer). The
// held-out part keeps the package's order, which opens with one emperor's ritual songs in four-character lines:
// its first hundred poems are not the corpus (55% of their half-lines have 5 or 7 characters, the whole part 93%).
std::vector<std::string> spread_records(const std::vector<std::string>& records, size_t n);

}  // namespace tw
