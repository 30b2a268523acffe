// Tests for model cards: language, corpus and held-out bits/char read from card.json, from a Hugging Face style
// README.md, or (language only) guessed from the tokenizer's vocabulary; folders without a tokenizer are not listed.
#include "core/experiments/model_card.h"

#include "core/base/i18n.h"
#include "core/model/stepper_model.h"
#include "core/text/tokenizer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace tw {
namespace {

namespace fs = std::filesystem;

std::string folder(const std::string& root, const std::string& name, bool tokenizer = true) {
  const fs::path d = fs::path(root) / name;
  fs::create_directories(d);
  std::ofstream(d / "config.json") << "{}";
  std::ofstream(d / "model.safetensors") << "x";
  if (tokenizer) std::ofstream(d / "tokenizer.json") << R"({"model": {"vocab": {"a": 0, "b": 1}}})";
  return d.string();
}

TEST(ModelCard, ReadmeFrontMatterAndLines) {
  const std::string root = ::testing::TempDir() + "/cards_readme";
  fs::remove_all(root);
  const std::string d = folder(root, "poems");
  std::ofstream(fs::path(d) / "README.md") << "---\nlanguage:\n- zh\nlicense: gpl-3.0\n---\n# Poems\n\n"
                                              "| field | value |\n|---|---|\n| Corpus | tang300 (fortunes-zh) |\n"
                                              "| Held-out bits/char | 4.52 (unigram 9.1) |\nexample: 床前明月光，\n";
  const ModelCard c = read_model_card(d);
  EXPECT_EQ(c.language, "zh");
  EXPECT_EQ(c.corpus, "tang300 (fortunes-zh)");
  EXPECT_DOUBLE_EQ(c.heldout_bits_per_char, 4.52);
  EXPECT_EQ(c.example, "床前明月光，");
}

TEST(ModelCard, TheShippedCardsTableLayout) {
  // The layout of assets/models/<name>/README.md: a two-column table, then a section of bits per character.
  const std::string root = ::testing::TempDir() + "/cards_table";
  fs::remove_all(root);
  const std::string d = folder(root, "poems");
  std::ofstream(fs::path(d) / "README.md")
      << "# poems: a small model\n\n| | |\n|---|---|\n| corpus | 300 Tang poems (唐诗三百首); Debian package "
         "fortunes-zh, file tang300 |\n| parameters | 200,256 (0.8 MB float32) |\n\n## Held-out bits per "
         "character\n\nHeld-out text: 2,599 characters (2,981 tokens). Bits per character = total bits of every "
         "held-out token / held-out characters.\n\n| model | bits / character |\n|---|---|"
         "\n| token unigram | 10.218 |\n| **this model** | **9.135** |\n| the identical run in PyTorch | 9.122 |\n";
  const ModelCard c = read_model_card(d);
  EXPECT_EQ(c.corpus, "300 Tang poems (唐诗三百首)");
  EXPECT_DOUBLE_EQ(c.heldout_bits_per_char, 9.135);
  EXPECT_EQ(c.language, "en");  // no language line, and the test tokenizer has no Han characters
}

TEST(ModelCard, KneserNeyRowsAndTheHeldOutSizeUnderTheHeldOutHeading) {
  const std::string root = ::testing::TempDir() + "/cards_kn";
  fs::remove_all(root);
  const std::string d = folder(root, "poems");
  std::ofstream(fs::path(d) / "README.md")
      << "# poems\n\n| | |\n|---|---|\n| Kneser–Ney, order 1 | 1.0 |\n\n## Held-out bits per character\n\nThe whole "
         "`heldout.txt` (355,479 characters) read as one stream.\n\n| model | bits / character |\n|---|---|\n"
         "| this model | 6.560 |\n| Kneser–Ney, order 1 | 9.531 |\n| Kneser–Ney, order 2 | 8.009 |\n"
         "| Kneser–Ney, order 4 | 7.436 |\n\n## Generation\n\n| Kneser–Ney, order 3 | 2.0 |\n";
  const ModelCard c = read_model_card(d);
  EXPECT_DOUBLE_EQ(c.heldout_bits_per_char, 6.560);
  // Order 1 above the heading and order 3 below the next one are not the held-out table's; order 4 without
  // order 3 before it is not taken as order 3.
  ASSERT_EQ(c.kneser_ney_bits.size(), 2u);
  EXPECT_DOUBLE_EQ(c.kneser_ney_bits[0], 9.531);
  EXPECT_DOUBLE_EQ(c.kneser_ney_bits[1], 8.009);
  EXPECT_EQ(c.heldout_chars, 355479);
}

TEST(ModelCard, TheCardsOwnPercentBelowKneserNeyWinsOverTheRoundedRows) {
  const std::string root = ::testing::TempDir() + "/cards_below";
  fs::remove_all(root);
  const std::string rows =
      "## Held-out bits per character\n\n| model | bits / character |\n|---|---|\n| this model | 1.856 |\n"
      "| Kneser–Ney, order 1 | 4.557 |\n| Kneser–Ney, order 2 | 2.152 |\n\n";
  const std::string stated = folder(root, "stated"), silent = folder(root, "silent");
  std::ofstream(fs::path(stated) / "README.md")
      << rows << "This model is **13.7% below** the best n-gram (order 2, 2.152).\n\n## Generation\n\n"
      << "Samples 50% below the n-gram's length.\n";
  std::ofstream(fs::path(silent) / "README.md") << rows << "## Generation\n\nSamples 50% below the n-gram's.\n";
  // From the rows alone: 1 - 1.856 / 2.152 = 0.137546..., which a figure would print as 13.8 against the card's 13.7.
  EXPECT_DOUBLE_EQ(read_model_card(stated).percent_below_kneser_ney, 13.7);
  EXPECT_DOUBLE_EQ(percent_below_best_kneser_ney(read_model_card(stated)), 13.7);
  EXPECT_EQ(read_model_card(silent).percent_below_kneser_ney, -1);  // outside the held-out section: not the card's
  EXPECT_NEAR(percent_below_best_kneser_ney(read_model_card(silent)), 100 * (1 - 1.856 / 2.152), 1e-12);
  ModelCard none;
  none.heldout_bits_per_char = 1.856;
  EXPECT_EQ(percent_below_best_kneser_ney(none), -1);  // no Kneser–Ney rows: nothing to be below
}

TEST(ModelCard, ShippedLanguageModelsGiveKneserNeyOrdersOneToFiveAndBeatTheBest) {
  const std::vector<ShippedLanguageModel> lms = shipped_language_models(std::string(TW_SOURCE_DIR) + "/assets/models");
  ASSERT_GE(lms.size(), 2u);
  for (const ShippedLanguageModel& lm : lms) {
    SCOPED_TRACE(lm.name);
    ASSERT_EQ(lm.card.kneser_ney_bits.size(), 5u);
    EXPECT_GT(lm.card.heldout_chars, 100000);
    // What the n-gram panel and lesson 4 show: the transformer at least 10% below the best order (issue 42's bar).
    const double best = *std::min_element(lm.card.kneser_ney_bits.begin(), lm.card.kneser_ney_bits.end());
    EXPECT_LT(lm.card.heldout_bits_per_char, 0.9 * best);
    // The card's stated percentage is the rows' within their rounding (three decimals each).
    EXPECT_NEAR(percent_below_best_kneser_ney(lm.card), 100 * (1 - lm.card.heldout_bits_per_char / best), 0.1);
    EXPECT_GE(lm.card.percent_below_kneser_ney, 10);
  }
}

TEST(ModelCard, CardJsonWinsAndTheLabelSaysWhatIsKnown) {
  const std::string root = ::testing::TempDir() + "/cards_json";
  fs::remove_all(root);
  const std::string d = folder(root, "quotes");
  std::ofstream(fs::path(d) / "card.json")
      << R"({"language": "en-US", "corpus": "fortunes", "heldout_bits_per_char": 2.25})";
  std::ofstream(fs::path(d) / "README.md") << "language: zh\ncorpus: something else\n";
  folder(root, "nolabel");
  folder(root, "task", false);  // no tokenizer.json: a task checkpoint, not a language model
  const auto models = shipped_language_models(root);
  ASSERT_EQ(models.size(), 2u);
  EXPECT_EQ(models[0].name, "nolabel");
  EXPECT_EQ(models[0].label(), "nolabel");
  EXPECT_EQ(models[0].card.language, "en");  // guessed: no Han characters in its vocabulary
  EXPECT_EQ(models[1].card.language, "en");
  EXPECT_EQ(models[1].card.corpus, "fortunes");
  EXPECT_EQ(models[1].label(), "quotes: fortunes, 2.25 bits/char held out");
  set_language(Language::Zh);  // the list is read in the interface language; the card's corpus is its own text
  const std::string zh = models[1].label();
  set_language(Language::En);
  EXPECT_EQ(zh,
            "quotes\xEF\xBC\x9A"
            "fortunes\xEF\xBC\x8C\xE7\x95\x99\xE5\x87\xBA\xE9\x9B\x86\xE6\xAF\x8F\xE5\xAD\x97"
            "\xE7\xAC\xA6 2.25 \xE6\xAF\x94\xE7\x89\xB9");  // "quotes：fortunes，留出集每字符 2.25 比特": a Chinese
                                                            // colon and comma in a Chinese line
  EXPECT_EQ(language_model_for(models, "zh"), nullptr);
  ASSERT_NE(language_model_for(models, "en"), nullptr);
  EXPECT_EQ(language_model_for(models, "en")->name, "nolabel");  // the first by name
}

TEST(ModelCard, HanVocabularyIsChinese) {
  const std::string root = ::testing::TempDir() + "/cards_han";
  fs::remove_all(root);
  const std::string d = folder(root, "chars");
  std::ofstream out(fs::path(d) / "tokenizer.json");
  out << R"({"model": {"vocab": {)";
  for (int i = 0; i < 600; ++i) {
    const int cp = 0x4E00 + i;  // three-byte UTF-8
    const char s[4] = {static_cast<char>(0xE0 | (cp >> 12)), static_cast<char>(0x80 | ((cp >> 6) & 0x3F)),
                       static_cast<char>(0x80 | (cp & 0x3F)), 0};
    out << (i ? ", " : "") << '"' << s << "\": " << i;
  }
  out << "}}}";
  out.close();
  EXPECT_EQ(read_model_card(d).language, "zh");
  EXPECT_TRUE(shipped_language_models(::testing::TempDir() + "/no_such_dir").empty());
}

}  // namespace
}  // namespace tw

namespace tw {
namespace {

// The shipped English model suggests a prompt from its own held-out fortunes (scripts/lm-model-card.py), so the
// stepper does not open it on a generic English prompt it never saw the like of: the example opens a record of the
// folder's heldout.txt.
TEST(ModelCard, ShippedQuotesCardSuggestsAHeldOutPrompt) {
  const std::string dir = std::string(TW_SOURCE_DIR) + "/assets/models/quotes";
  const ModelCard c = read_model_card(dir);
  EXPECT_EQ(c.example, "A true artist will let");
  EXPECT_EQ(c.corpus, "English fortunes");
  EXPECT_NEAR(c.heldout_bits_per_char, 1.856, 1e-9);  // the card's "this model" row
  std::ifstream in(dir + "/heldout.txt", std::ios::binary);
  const std::string heldout((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(heldout.find("\n\n" + c.example), std::string::npos);
}

// The model panel's vocabulary line says how each shipped tokenizer cuts text: the Chinese model's file is a BPE
// without a single merge plus byte fallback, i.e. one token per character; the English one merges bytes.
TEST(ModelCard, ShippedVocabulariesAreDescribedAsTheyCutText) {
  const auto describe = [](const std::string& name) {
    auto tok = std::make_shared<Tokenizer>();
    std::string error;
    EXPECT_TRUE(
        load_tokenizer(std::string(TW_SOURCE_DIR) + "/assets/models/" + name + "/tokenizer.json", tok.get(), &error))
        << error;
    return TokenVocabulary::bpe(tok)->describe();
  };
  EXPECT_EQ(describe("poems"), "characters, rare ones as UTF-8 bytes (BPE without merges), 6144 tokens");
  EXPECT_EQ(describe("quotes"), "byte-level BPE, 4096 tokens");
}

}  // namespace
}  // namespace tw
