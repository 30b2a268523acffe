// Held-out bits per character of the classic character n-gram baselines for a training text and a held-out text:
// interpolated Kneser–Ney (modified and standard, core/text/kneser_ney.h) and Witten–Bell (as the n-gram panel
// counts it, core/text/ngram.h), orders 1 … 5, the best order, and how long each took. The number issue 42's
// model cards compare a transformer with.
//
//   build/kneser_ney_bits train.txt heldout.txt               # every order, both Kneser–Ney variants, Witten–Bell
//   build/kneser_ney_bits train.txt heldout.txt --no-witten-bell   # Kneser–Ney only (Witten–Bell's hash maps are
//                                                                   # slow and large on millions of characters)
//   (configure with -DTW_BUILD_BENCH=ON; `cmake --build build --target kneser_ney_bits`)
//
// Each file is read as one sequence of code points (UTF-8; newlines are characters like any other), its start
// padded with BOS. Kneser–Ney charges a held-out character never seen in training the escape plus log₂ of its
// script's alphabet (core/text/script_alphabet.h). Witten–Bell sees each file as one record: it also predicts one END
// at the end of the held-out text, and gives an unseen character its UNK symbol's probability without the alphabet,
// so its numbers are slightly flattering on text with unseen characters.
//
// Output: a table (order, bits per character of each model), the best order of each Kneser–Ney variant, and times.

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/base/read_file.h"
#include "core/base/utf8.h"
#include "core/text/kneser_ney.h"
#include "core/text/ngram.h"

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The file's code points, or false with one line in *error.
bool read_text(const std::string& path, std::string* text, std::string* error) {
  if (!tw::read_file_bounded(path, size_t{1} << 30, text, error)) return false;
  *error = tw::utf8_error(*text, path);
  return error->empty();
}

int usage(const char* argv0) {
  std::fprintf(stderr, "usage: %s TRAIN.txt HELDOUT.txt [--no-witten-bell]\n", argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage(argv[0]);
  bool witten_bell = true;
  for (int i = 3; i < argc; ++i) {
    if (std::strcmp(argv[i], "--no-witten-bell") == 0)
      witten_bell = false;
    else
      return usage(argv[0]);
  }
  std::string train_text, heldout_text, error;
  if (!read_text(argv[1], &train_text, &error) || !read_text(argv[2], &heldout_text, &error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  const std::vector<uint32_t> train = tw::decode_utf8(train_text), heldout = tw::decode_utf8(heldout_text);
  constexpr int kOrders = 5;

  struct Run {
    const char* name;
    tw::KneserNeyVariant variant;
    std::vector<tw::KneserNeyScore> scores;
    double train_s = 0, score_s = 0;
  };
  std::vector<Run> runs = {{"kneser_ney_modified", tw::KneserNeyVariant::Modified, {}},
                           {"kneser_ney_standard", tw::KneserNeyVariant::Standard, {}}};
  size_t vocab = 0;
  for (Run& r : runs) {
    auto t0 = Clock::now();
    const tw::KneserNey kn = tw::kneser_ney_train(train, kOrders, r.variant);
    r.train_s = seconds_since(t0);
    t0 = Clock::now();
    r.scores = tw::kneser_ney_score_orders(kn, heldout);
    r.score_s = seconds_since(t0);
    vocab = kn.vocabulary.size();
  }
  std::vector<double> wb(kOrders, 0);
  double wb_s = 0;
  if (witten_bell) {
    const auto t0 = Clock::now();
    for (int n = 1; n <= kOrders; ++n)
      wb[size_t(n - 1)] =
          tw::NgramModel({train_text}, n, tw::NgramSmoothing::WittenBell).bits_per_symbol({heldout_text});
    wb_s = seconds_since(t0);
  }

  std::printf("train   %s: %zu characters, %zu distinct\n", argv[1], train.size(), vocab);
  std::printf(
      "heldout %s: %zu characters, %zu never seen in training (%.4f bits/char of Kneser-Ney's order 5 "
      "spent on them)\n",
      argv[2], heldout.size(), runs[0].scores.back().unseen,
      heldout.empty() ? 0.0 : runs[0].scores.back().unseen_bits / double(heldout.size()));
  std::printf("\n%-6s %20s %20s %20s\n", "order", "kneser_ney_modified", "kneser_ney_standard",
              witten_bell ? "witten_bell" : "");
  for (int n = 1; n <= kOrders; ++n) {
    std::printf("%-6d %20.4f %20.4f", n, runs[0].scores[size_t(n - 1)].bits_per_char,
                runs[1].scores[size_t(n - 1)].bits_per_char);
    if (witten_bell) std::printf(" %20.4f", wb[size_t(n - 1)]);
    std::printf("\n");
  }
  std::printf("\n");
  for (const Run& r : runs) {
    const tw::KneserNeyScore* best = &r.scores[0];
    for (const tw::KneserNeyScore& s : r.scores)
      if (s.bits_per_char < best->bits_per_char) best = &s;
    std::printf("best %s: order %d, %.4f bits/char (trained in %.2f s, scored every order in %.2f s)\n", r.name,
                best->order, best->bits_per_char, r.train_s, r.score_s);
  }
  if (witten_bell) std::printf("witten_bell: five models counted and scored in %.2f s\n", wb_s);
  return 0;
}
