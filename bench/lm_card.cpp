// The numbers of a language model's card, computed by the app's own code (scripts/train-models.sh runs it after
// training; the card is written from its JSON):
//   held-out bits per character of the model, the whole held-out text read as one stream (model_bits_of_text);
//   interpolated Kneser–Ney character n-grams (modified, orders 1 … 5) trained on the training part and scored on
//   the same held-out text (core/text/kneser_ney.h), and the margin of the model below the best of them;
//   seeded samples and their form: Tang poems' half-lines, English words in Debian's wamerican list.
//
//   build/lm_card MODEL_DIR TRAIN.txt HELDOUT.txt --poems
//   build/lm_card MODEL_DIR TRAIN.txt HELDOUT.txt --english /usr/share/dict/american-english
//
// Prints one JSON object on stdout; progress on stderr. Exit 1 with one line when a file or the model cannot be read.
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "core/base/read_file.h"
#include "core/base/utf8.h"
#include "core/experiments/generation_quality.h"
#include "core/experiments/model_bits.h"
#include "core/matmul_threads.h"
#include "core/text/kneser_ney.h"
#include "core/train/model_folder.h"

namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "lm_card: %s\n", message.c_str());
  return 1;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tw;
  if (argc < 5 || (std::string(argv[4]) != "--poems" && !(std::string(argv[4]) == "--english" && argc == 6)))
    return fail("usage: lm_card MODEL_DIR TRAIN.txt HELDOUT.txt --poems | --english WORDLIST");
  set_matmul_threads(1);
  const std::string dir = argv[1];
  std::string train, heldout, error;
  if (!read_file_bounded(argv[2], size_t{64} << 20, &train, &error)) return fail(error);
  if (!read_file_bounded(argv[3], size_t{64} << 20, &heldout, &error)) return fail(error);
  StepperModel model;
  if (!load_hf_stepper_model(dir, {}, &model, &error)) return fail(error);
  nlohmann::ordered_json out;

  auto t0 = std::chrono::steady_clock::now();
  int shown = -1;
  const ModelBits bits = model_bits_of_text(model, heldout, [&](double f) {
    if (int(100 * f) != shown) std::fprintf(stderr, "\rlm_card: scoring the held-out text %3d%%", shown = int(100 * f));
    return true;
  });
  std::fprintf(stderr, "\n");
  if (!bits.error.empty()) return fail(bits.error);
  out["model_bits_per_char"] = bits.bits_per_char;
  out["heldout_chars"] = bits.chars;
  out["heldout_tokens_scored"] = bits.tokens_scored;
  out["model_seconds"] = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  const KneserNey kn = kneser_ney_train(decode_utf8(train), 5);
  const std::vector<KneserNeyScore> orders = kneser_ney_score_orders(kn, decode_utf8(heldout));
  nlohmann::ordered_json kn_json = nlohmann::ordered_json::array();
  KneserNeyScore best = orders.front();
  for (const KneserNeyScore& s : orders) {
    kn_json.push_back({{"order", s.order}, {"bits_per_char", s.bits_per_char}, {"unseen", s.unseen}});
    if (s.bits_per_char < best.bits_per_char) best = s;
  }
  out["kneser_ney"] = kn_json;
  out["kneser_ney_best_order"] = best.order;
  out["kneser_ney_best_bits_per_char"] = best.bits_per_char;
  out["model_below_kneser_ney"] = 1.0 - bits.bits_per_char / best.bits_per_char;
  out["kneser_ney_seconds"] = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  const std::vector<std::string> records = spread_records(blank_line_records(heldout), 100);
  QualityRun q;
  if (std::string(argv[4]) == "--poems") {
    q = poem_quality(model, records);
    out["half_lines_five_or_seven"] = q.continued.five_or_seven_fraction();
    out["half_lines"] = q.continued.half_lines;
    out["poems_uniform"] = q.whole.uniform_fraction();
    out["poems"] = q.whole.poems;
  } else {
    const std::unordered_set<std::string> list = read_word_list(argv[5], &error);
    if (list.empty()) return fail(error);
    q = english_quality(model, records, list);
    out["words_known"] = q.words.known_fraction();
    out["words"] = q.words.words;
    out["heldout_words_known"] = dictionary_words({heldout}, list).known_fraction();  // the text's own rate
  }
  if (!q.error.empty()) return fail(q.error);
  nlohmann::ordered_json samples = nlohmann::ordered_json::array();
  for (size_t i = 0; i < q.samples.size() && i < 10; ++i)
    samples.push_back({{"prompt", q.prompts[i]}, {"text", q.samples[i].text}});
  out["samples"] = samples;
  nlohmann::ordered_json all = nlohmann::ordered_json::array();  // every sample the measures counted, to read
  for (const SampledText& t : q.samples) all.push_back(t.text);
  out["all_samples"] = all;
  out["sample_seconds"] = seconds_since(t0);
  std::printf("%s\n", out.dump(2).c_str());
  return 0;
}
