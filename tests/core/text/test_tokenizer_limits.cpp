// Issue 45: tokenizer.json components that would hang, grow without bound or drop text silently are refused in one
// line naming the component (and, loaded from a file, the file), or finish within a bound.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/text/pretokenizer.h"
#include "core/text/tokenizer.h"
#include "core/text/tokenizer_json.h"
#include "core/text/unicode_regex.h"

namespace tw {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Byte-level BPE over the 256 byte symbols (no merges): every byte is its own id, so expected ids are the bytes.
json byte_level(json pre_tokenizer = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}) {
  json vocab = json::object();
  for (int b = 0; b < 256; ++b) vocab[byte_level_alphabet()[size_t(b)]] = b;
  json j;
  j["model"] = {{"type", "BPE"}, {"vocab", vocab}, {"merges", json::array()}};
  j["added_tokens"] = json::array({{{"id", 256}, {"content", "<|endoftext|>"}, {"special", true}}});
  j["pre_tokenizer"] = std::move(pre_tokenizer);
  j["decoder"] = {{"type", "ByteLevel"}};
  return j;
}

std::string load_error(const json& j) {
  Tokenizer t;
  std::string error;
  EXPECT_FALSE(tokenizer_from_json(j.dump(), &t, &error));
  return error;
}

Tokenizer load(const json& j) {
  Tokenizer t;
  std::string error;
  EXPECT_TRUE(tokenizer_from_json(j.dump(), &t, &error)) << error;
  return t;
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// [SECTION] catastrophic regexes

TEST(TokenizerLimits, ACatastrophicSplitPatternStopsAtTheTimeLimitNamingTheComponentAndFile) {
  json split = {
      {"type", "Sequence"},
      {"pretokenizers", json::array({{{"type", "Split"}, {"pattern", {{"Regex", "(a+)+$"}}}, {"behavior", "Isolated"}},
                                     {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}})}};
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "tw_catastrophic_tokenizer.json";
  std::ofstream(file) << byte_level(split).dump();
  Tokenizer t;
  std::string error;
  ASSERT_TRUE(load_tokenizer(file.string(), &t, &error)) << error;
  const std::string text = std::string(40, 'a') + "b";
  const auto t0 = Clock::now();
  std::vector<int> ids;
  EXPECT_FALSE(t.encode_checked(text, false, &ids, &error));
  EXPECT_LT(seconds_since(t0), 10.0);
  EXPECT_TRUE(has(error, file.string() + ": pre-tokenizer Split: the regular expression '(a+)+$' ran past its time "
                                         "limit"))
      << error;
  // The failure is not left behind for the next text: a harmless one encodes.
  EXPECT_TRUE(t.encode_checked("ab", false, &ids, &error)) << error;
  EXPECT_EQ(ids, std::vector<int>({'a', 'b'}));
  std::filesystem::remove(file);
}

// The limit bounds each match, not a whole text: a 3 MB corpus through GPT-2's pattern (what training a byte-level
// BPE on the fortunes does) is split completely; an earlier build stopped after half a second of the whole text.
TEST(TokenizerLimits, ALongOrdinaryTextIsSplitCompletely) {
  UnicodeRegex r;
  std::string error;
  ASSERT_TRUE(r.compile(R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)", &error))
      << error;
  const std::string line = "It's 42 o'clock --  and   the 7 cats don't care.\n";  // 18 pieces
  std::string text;
  while (text.size() < (3u << 20)) text += line;
  const size_t lines = text.size() / line.size();
  const auto pieces = r.find_all(text);
  EXPECT_EQ(take_pipeline_failure(), "");
  ASSERT_EQ(pieces.size(), 18 * lines);
  EXPECT_EQ(pieces.back().second, text.size());
  // The pieces tile the text: each starts where the last ended.
  for (size_t i = 1; i < pieces.size(); ++i) ASSERT_EQ(pieces[i].first, pieces[i - 1].second) << i;
}

TEST(TokenizerLimits, ACatastrophicReplaceNormalizerIsRefusedToo) {
  json j = byte_level();
  j["normalizer"] = {{"type", "Replace"}, {"pattern", {{"Regex", "(a+)+$"}}}, {"content", "x"}};
  const Tokenizer t = load(j);
  std::vector<int> ids;
  std::string error;
  const auto t0 = Clock::now();
  EXPECT_FALSE(t.encode_checked(std::string(40, 'a') + "b", false, &ids, &error));
  EXPECT_LT(seconds_since(t0), 10.0);
  EXPECT_TRUE(has(error, "tokenizer.json: normalizer Replace: the regular expression '(a+)+$'")) << error;
}

// [SECTION] growth and length bounds

TEST(TokenizerLimits, ANormalizerChainThatDoublesTheTextStopsAtEightTimesItsLength) {
  json steps = json::array();
  for (int i = 0; i < 40; ++i)
    steps.push_back({{"type", "Replace"}, {"pattern", {{"String", "a"}}}, {"content", "aa"}});
  json j = byte_level();
  j["normalizer"] = {{"type", "Sequence"}, {"normalizers", steps}};
  const Tokenizer t = load(j);
  const std::string text(1000, 'a');
  std::vector<int> ids;
  std::string error;
  const auto t0 = Clock::now();
  EXPECT_FALSE(t.encode_checked(text, false, &ids, &error));
  EXPECT_LT(seconds_since(t0), 10.0);
  EXPECT_TRUE(has(error, "the normalizer grew the text from 1000 to")) << error;
  EXPECT_TRUE(has(error, "8× the input")) << error;
  // Three doublings stay inside the bound: 1000 → 8000 bytes, every one an 'a'.
  json three = byte_level();
  three["normalizer"] = {{"type", "Sequence"}, {"normalizers", json::array({steps[0], steps[0], steps[0]})}};
  EXPECT_TRUE(load(three).encode_checked(text, false, &ids, &error)) << error;
  EXPECT_EQ(ids, std::vector<int>(8000, 'a'));
}

TEST(TokenizerLimits, SequencesLongerThanTheBoundAreRefused) {
  json many = json::array();
  for (int i = 0; i < 10000; ++i) many.push_back({{"type", "Digits"}});
  EXPECT_TRUE(has(load_error(byte_level({{"type", "Sequence"}, {"pretokenizers", many}})),
                  "pre-tokenizer Sequence has more than 64 steps"));
  json decoders = json::array();
  for (int i = 0; i < 10000; ++i) decoders.push_back({{"type", "Fuse"}});
  json j = byte_level();
  j["decoder"] = {{"type", "Sequence"}, {"decoders", decoders}};
  EXPECT_TRUE(has(load_error(j), "decoder Sequence has more than 64 steps"));
  json normalizers = json::array();
  for (int i = 0; i < 65; ++i) normalizers.push_back({{"type", "Lowercase"}});
  j = byte_level();
  j["normalizer"] = {{"type", "Sequence"}, {"normalizers", normalizers}};
  EXPECT_TRUE(has(load_error(j), "normalizer Sequence has more than 64 steps"));
  normalizers.erase(normalizers.begin());  // exactly 64: fine
  j["normalizer"]["normalizers"] = normalizers;
  (void)load(j);
}

// Each stage's Sequence names its stage and the list it lacks (one reader serves all four).
TEST(TokenizerLimits, ASequenceWithoutItsListNamesTheStageAndTheKey) {
  const std::pair<const char*, const char*> stages[] = {{"normalizer", "normalizer"},
                                                        {"pre_tokenizer", "pre-tokenizer"},
                                                        {"decoder", "decoder"},
                                                        {"post_processor", "post-processor"}};
  const char* lists[] = {"normalizers", "pretokenizers", "decoders", "processors"};
  for (size_t i = 0; i < 4; ++i) {
    json j = byte_level();
    j[stages[i].first] = {{"type", "Sequence"}, {"steps", json::array()}};
    const std::string want = std::string(stages[i].second) + " Sequence needs a '" + lists[i] + "' list";
    EXPECT_TRUE(has(load_error(j), want)) << load_error(j);
  }
}

// Sequences inside Sequences: a step kMaxNesting (16) Sequences deep loads; one level more is refused naming the
// stage (the innermost step is a valid one of each stage, so only the depth can be what is refused).
TEST(TokenizerLimits, SequencesNestedPastTheBoundAreRefusedNamingTheStage) {
  struct Stage {
    const char *key, *list, *leaf, *message;
  };
  const Stage stages[] = {{"normalizer", "normalizers", "Lowercase", "normalizers are nested too deeply"},
                          {"pre_tokenizer", "pretokenizers", "Digits", "pre-tokenizers are nested too deeply"},
                          {"decoder", "decoders", "Fuse", "decoders are nested too deeply"},
                          {"post_processor", "processors", "ByteLevel", "post-processors are nested too deeply"}};
  for (const Stage& st : stages) {
    auto nested = [&](int levels) {
      json c = {{"type", st.leaf}};
      for (int i = 0; i < levels; ++i) c = {{"type", "Sequence"}, {st.list, json::array({c})}};
      json j = byte_level();
      j[st.key] = c;
      return j;
    };
    (void)load(nested(kMaxNesting));  // Sequences at depths 0 … 15, the step at 16
    const std::string error = load_error(nested(kMaxNesting + 1));
    EXPECT_TRUE(has(error, st.message)) << st.key << ": " << error;
  }
}

// [SECTION] Unigram

json unigram(json vocab, json unk_id = 0) {
  json j;
  j["model"] = {{"type", "Unigram"}, {"vocab", std::move(vocab)}, {"unk_id", std::move(unk_id)}};
  return j;
}

TEST(TokenizerLimits, UnigramPiecesLongerThanTheBoundAreNeverMatchedAndALongTextStaysFast) {
  const std::string huge(100000, 'a');
  const Tokenizer t = load(unigram(json::array(
      {json::array({"<unk>", 0.0}), json::array({"a", -1.0}), json::array({"aa", -1.5}), json::array({huge, -0.1})})));
  EXPECT_TRUE(has(t.note(), "1 Unigram piece is longer than 96 bytes")) << t.note();
  const std::string text(120000, 'a');
  const auto t0 = Clock::now();
  const std::vector<int> ids = t.encode(text, false);
  EXPECT_LT(seconds_since(t0), 10.0);
  // "aa" (−1.5) beats "a" + "a" (−2): 60,000 of them.
  EXPECT_EQ(ids, std::vector<int>(60000, 2));
}

TEST(TokenizerLimits, UnigramScoresWhoseSumUnderflowsStillSegmentTheText) {
  const Tokenizer t = load(
      unigram(json::array({json::array({"<unk>", 0.0}), json::array({"a", -1e308}), json::array({"aa", -1e308})})));
  const std::vector<int> ids = t.encode("aaaa", false);
  ASSERT_FALSE(ids.empty());
  std::string joined;
  for (int id : ids) joined += t.token_string(id);
  EXPECT_EQ(joined, "aaaa");
  EXPECT_EQ(dropped_text_error(t, "aaaa", ids), "");
}

TEST(TokenizerLimits, UnigramScoresBeyondDoubleAreRefused) {
  const std::string text = R"({"model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0], ["a", -1e400]]}})";
  Tokenizer t;
  std::string error;
  EXPECT_FALSE(tokenizer_from_json(text, &t, &error));  // JSON itself cannot hold −inf: refused while parsing
  EXPECT_EQ(error, "tokenizer.json: not valid JSON: number overflow parsing '-1e400'");
}

// [SECTION] unknown characters where Hugging Face raises

TEST(TokenizerLimits, UnigramWithoutUnkIdRefusesAnUnknownCharacter) {
  const Tokenizer t = load(unigram(json::array({json::array({"a", -1.0}), json::array({"b", -1.0})}), nullptr));
  std::vector<int> ids;
  std::string error;
  EXPECT_TRUE(t.encode_checked("ab", false, &ids, &error)) << error;
  EXPECT_EQ(ids, std::vector<int>({0, 1}));
  EXPECT_FALSE(t.encode_checked("a!b", false, &ids, &error));
  EXPECT_EQ(error,
            "tokenizer.json: the Unigram model has no unk_id, so '!' cannot be tokenized (Hugging Face refuses "
            "it too)");
}

TEST(TokenizerLimits, WordPieceWhoseUnknownTokenIsMissingRefusesAnUnknownWord) {
  json j;
  j["model"] = {{"type", "WordPiece"}, {"unk_token", "[UNK]"}, {"vocab", {{"a", 0}, {"##b", 1}}}};
  j["pre_tokenizer"] = {{"type", "BertPreTokenizer"}};
  const Tokenizer t = load(j);
  std::vector<int> ids;
  std::string error;
  EXPECT_TRUE(t.encode_checked("ab", false, &ids, &error)) << error;
  EXPECT_EQ(ids, std::vector<int>({0, 1}));
  EXPECT_FALSE(t.encode_checked("ab !", false, &ids, &error));
  EXPECT_EQ(error,
            "tokenizer.json: WordPiece's unknown token '[UNK]' is not in the vocabulary, so the word '!' cannot "
            "be tokenized (Hugging Face refuses it too)");
}

// [SECTION] options of the wrong type, components of the wrong shape

TEST(TokenizerLimits, OptionsOfTheWrongTypeAreRefusedNamingComponentKeyAndValue) {
  json wp;
  wp["model"] = {{"type", "WordPiece"},
                 {"unk_token", "[UNK]"},
                 {"vocab", {{"[UNK]", 0}, {"a", 1}}},
                 {"max_input_chars_per_word", -1}};
  EXPECT_EQ(load_error(wp),
            "tokenizer.json: model WordPiece: 'max_input_chars_per_word' must be a whole number of at least 1, not -1");
  json dropout = byte_level();
  dropout["model"]["dropout"] = -5;
  EXPECT_EQ(load_error(dropout), "tokenizer.json: model BPE: 'dropout' must be a number from 0 to 1, or null, not -5");
  json added = byte_level();
  added["added_tokens"] = json::object();
  EXPECT_TRUE(has(load_error(added), "added_tokens must be a list")) << load_error(added);
  EXPECT_EQ(load_error(byte_level({{"type", "Digits"}, {"individual_digits", "yes"}})),
            "tokenizer.json: pre-tokenizer Digits: 'individual_digits' must be true or false, not \"yes\"");
  json bert = byte_level();
  bert["normalizer"] = {{"type", "BertNormalizer"}, {"lowercase", "yes"}};
  EXPECT_EQ(load_error(bert),
            "tokenizer.json: normalizer BertNormalizer: 'lowercase' must be true or false, not \"yes\"");
  json special = byte_level();
  special["added_tokens"][0]["special"] = "yes";
  EXPECT_EQ(load_error(special),
            "tokenizer.json: added token '<|endoftext|>': 'special' must be true or false, not \"yes\"");
}

TEST(TokenizerLimits, AComponentThatIsNotAnObjectIsNamedAsSuch) {
  EXPECT_EQ(load_error(byte_level("ByteLevel")),
            "tokenizer.json: pre-tokenizer must be an object with a 'type', not a string (\"ByteLevel\")");
  json j = byte_level();
  j["decoder"] = json::array();
  EXPECT_EQ(load_error(j), "tokenizer.json: decoder must be an object with a 'type', not a list ([])");
  j = byte_level();
  j["normalizer"] = json::object();
  EXPECT_EQ(load_error(j), "tokenizer.json: normalizer needs a string 'type' (it has none)");
}

TEST(TokenizerLimits, RealOptionTypesPassTheCheck) {
  // Every option as the reference library writes it (Llama 3 and Qwen 2 style components).
  const json ok = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", true}};
  EXPECT_EQ(option_type_error(ok, "pre-tokenizer ByteLevel"), "");
  const json bert = {{"type", "BertNormalizer"},
                     {"clean_text", true},
                     {"handle_chinese_chars", true},
                     {"strip_accents", nullptr},
                     {"lowercase", true}};
  EXPECT_EQ(option_type_error(bert, "normalizer BertNormalizer"), "");
  const json bpe = {{"type", "BPE"},
                    {"dropout", nullptr},
                    {"unk_token", nullptr},
                    {"continuing_subword_prefix", nullptr},
                    {"end_of_word_suffix", nullptr},
                    {"fuse_unk", false},
                    {"byte_fallback", false},
                    {"ignore_merges", true}};
  EXPECT_EQ(option_type_error(bpe, "model BPE"), "");
}

}  // namespace
}  // namespace tw
