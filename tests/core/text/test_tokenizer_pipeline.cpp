// The tokenizer.json components one by one: the Oniguruma → ICU pattern translation, split behaviors,
// normalizers, WordPiece, Unigram, added-token options, post-processors and decoders. Every expectation is
// worked out by hand from the reference library's documented behaviour.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/text/bpe_test_helpers.h"
#include "core/text/normalizer.h"
#include "core/text/pretokenizer.h"
#include "core/text/tokenizer.h"
#include "core/text/unicode_regex.h"

namespace tw {
namespace {

using testing::bpe_strings;
using testing::make_bpe;

using nlohmann::json;
using Ranges = std::vector<std::pair<size_t, size_t>>;

// [SECTION] patterns

TEST(OnigurumaToIcu, RewritesOnlyWhatDiffers) {
  EXPECT_EQ(oniguruma_to_icu(R"(\s+(?!\S))"), R"(\p{White_Space}+(?!\P{White_Space}))");
  EXPECT_EQ(oniguruma_to_icu(R"([^\s\p{L}])"), R"([^\p{White_Space}\p{L}])");
  EXPECT_EQ(oniguruma_to_icu(R"(\pL\PN)"), R"(\p{L}\P{N})");
  EXPECT_EQ(oniguruma_to_icu(R"(\p{^L})"), R"(\P{L})");
  EXPECT_EQ(oniguruma_to_icu(R"(\h+)"), R"([0-9a-fA-F]+)");
  EXPECT_EQ(oniguruma_to_icu(R"(\\s)"), R"(\\s)");  // an escaped backslash followed by 's' stays
  EXPECT_EQ(oniguruma_to_icu(R"((?i:'s|'t)\p{N}{1,3}+)"), R"((?i:'s|'t)\p{N}{1,3}+)");
}

Ranges find(const char* pattern, std::string_view text) {
  UnicodeRegex r;
  std::string error;
  EXPECT_TRUE(r.compile(pattern, &error)) << error;
  return r.find_all(text);
}

TEST(UnicodeRegex, MatchesByteRangesWithOnigurumaSemantics) {
  // \s includes U+000B and U+0085 (Oniguruma's White_Space), which ICU's own \s would not.
  EXPECT_EQ(find(R"(\s+)", "a\x0B\xC2\x85z"), (Ranges{{1, 4}}));
  // Byte offsets across multi-byte characters; case-insensitive groups; look-ahead.
  EXPECT_EQ(find(R"(\p{L}+)", "注意 ok"), (Ranges{{0, 6}, {7, 9}}));
  EXPECT_EQ(find(R"((?i:'s))", "it'S x's"), (Ranges{{2, 4}, {6, 8}}));
  EXPECT_EQ(find(R"(\s+(?!\S)|\s+)", "a   b"), (Ranges{{1, 3}, {3, 4}}));
  // Four-byte characters (UTF-16 surrogate pairs inside ICU) map back to the right bytes.
  EXPECT_EQ(find(R"(\p{N})", "🙂1"), (Ranges{{4, 5}}));
  // An invalid byte is one U+FFFD, one byte long.
  EXPECT_EQ(find(R"(x)", "\xFFx"), (Ranges{{1, 2}}));
  UnicodeRegex bad;
  std::string error;
  EXPECT_FALSE(bad.compile("(", &error));
  EXPECT_NE(error.find("does not compile"), std::string::npos);
}

TEST(SplitByMatches, EveryBehaviorAndInvert) {
  // "a-b--c" with matches at each '-': {1,2} {3,4} {4,5}.
  const Ranges m = {{1, 2}, {3, 4}, {4, 5}};
  EXPECT_EQ(split_by_matches(6, m, SplitBehavior::Removed, false), (Ranges{{0, 1}, {2, 3}, {5, 6}}));
  EXPECT_EQ(split_by_matches(6, m, SplitBehavior::Isolated, false),
            (Ranges{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}}));
  EXPECT_EQ(split_by_matches(6, m, SplitBehavior::MergedWithPrevious, false), (Ranges{{0, 2}, {2, 4}, {4, 5}, {5, 6}}));
  EXPECT_EQ(split_by_matches(6, m, SplitBehavior::MergedWithNext, false), (Ranges{{0, 1}, {1, 3}, {3, 4}, {4, 6}}));
  EXPECT_EQ(split_by_matches(6, m, SplitBehavior::Contiguous, false), (Ranges{{0, 1}, {1, 2}, {2, 3}, {3, 5}, {5, 6}}));
  // invert: the text between matches is what is removed (GPT-4o's "Removed, invert": keep the matches).
  EXPECT_EQ(split_by_matches(6, m, SplitBehavior::Removed, true), (Ranges{{1, 2}, {3, 4}, {4, 5}}));
}

std::vector<std::string> pre(const json& j, const std::string& text) {
  PreTokenizer p;
  std::string error;
  EXPECT_TRUE(p.from_json(j, &error)) << error;
  std::vector<std::string> out;
  for (const PreToken& t : p.apply({{text, true}})) out.push_back(t.text);
  return out;
}

using Strings = std::vector<std::string>;

TEST(PreTokenizer, Components) {
  EXPECT_EQ(pre({{"type", "Whitespace"}}, "Hey, you!  ok"), (Strings{"Hey", ",", "you", "!", "ok"}));
  EXPECT_EQ(pre({{"type", "WhitespaceSplit"}}, " a\tb \n c "), (Strings{"a", "b", "c"}));
  EXPECT_EQ(pre({{"type", "Punctuation"}}, "a,b!!"), (Strings{"a", ",", "b", "!", "!"}));
  EXPECT_EQ(pre({{"type", "Digits"}, {"individual_digits", false}}, "ab123c4"), (Strings{"ab", "123", "c", "4"}));
  EXPECT_EQ(pre({{"type", "Digits"}, {"individual_digits", true}}, "a12"), (Strings{"a", "1", "2"}));
  EXPECT_EQ(pre({{"type", "BertPreTokenizer"}}, "Hi, there."), (Strings{"Hi", ",", "there", "."}));
  EXPECT_EQ(pre({{"type", "Split"}, {"pattern", {{"String", "-"}}}, {"behavior", "MergedWithNext"}, {"invert", false}},
                "a-b-c"),
            (Strings{"a", "-b", "-c"}));
  // Metaspace: spaces become ▁, one goes in front, and pieces start at each ▁.
  EXPECT_EQ(
      pre({{"type", "Metaspace"}, {"replacement", "▁"}, {"prepend_scheme", "always"}, {"split", true}}, "hi there"),
      (Strings{"▁hi", "▁there"}));
  EXPECT_EQ(
      pre({{"type", "Metaspace"}, {"replacement", "▁"}, {"prepend_scheme", "never"}, {"split", false}}, "hi there"),
      (Strings{"hi▁there"}));
  // ByteLevel: a prefix space, GPT-2's split, then every byte as its printable character (space → Ġ).
  EXPECT_EQ(pre({{"type", "ByteLevel"}, {"add_prefix_space", true}, {"use_regex", true}}, "hi  é"),
            (Strings{"Ġhi", "Ġ", "ĠÃ©"}));
}

// [SECTION] normalizers

std::string norm(const json& j, const std::string& text) {
  Normalizer n;
  std::string error, note;
  EXPECT_TRUE(n.from_json(j, &error, &note)) << error;
  return n.apply(text);
}

TEST(Normalizer, UnicodeFormsAndRewrites) {
  const std::string nfd = "e\xCC\x81";  // e + combining acute
  EXPECT_EQ(norm({{"type", "NFC"}}, nfd), "\xC3\xA9");
  EXPECT_EQ(norm({{"type", "NFD"}}, "\xC3\xA9"), nfd);
  EXPECT_EQ(norm({{"type", "NFKC"}}, "\xEF\xAC\x81"), "fi");  // the ﬁ ligature
  EXPECT_EQ(norm({{"type", "NFC"}}, "\xE2\x84\xAA"), "K");    // the Kelvin sign is K under NFC already
  EXPECT_EQ(norm({{"type", "NFC"}}, "\xE1\x84\x92\xE1\x85\xA1\xE1\x86\xAB"), "\xED\x95\x9C");  // jamo → 한
  EXPECT_EQ(norm({{"type", "NFKD"}}, "\xC2\xBD"),
            "1\xE2\x81\x84"
            "2");  // ½ → 1⁄2
  EXPECT_EQ(norm({{"type", "Lowercase"}}, "ÀB Σ"), "àb σ");
  EXPECT_EQ(norm({{"type", "Strip"}, {"strip_left", true}, {"strip_right", false}}, " \t a "), "a ");
  EXPECT_EQ(norm({{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "▁"}}, "a b"), "a▁b");
  EXPECT_EQ(norm({{"type", "Replace"}, {"pattern", {{"Regex", " {2,}"}}}, {"content", " "}}, "a    b  c"), "a b c");
  EXPECT_EQ(norm({{"type", "Prepend"}, {"prepend", "▁"}}, "x"), "▁x");
  EXPECT_EQ(norm({{"type", "Prepend"}, {"prepend", "▁"}}, ""), "");
  EXPECT_EQ(norm({{"type", "BertNormalizer"}, {"lowercase", true}}, "Héllo\t中文"), "hello  中  文 ");
  EXPECT_EQ(norm({{"type", "Sequence"}, {"normalizers", json::array({{{"type", "NFD"}}, {{"type", "StripAccents"}}})}},
                 "café"),
            "cafe");
  Normalizer n;
  std::string error, note;
  EXPECT_TRUE(n.from_json({{"type", "Precompiled"}, {"precompiled_charsmap", "AAAA"}}, &error, &note));
  EXPECT_NE(note.find("NFKC"), std::string::npos);
  EXPECT_FALSE(n.from_json({{"type", "Mystery"}}, &error, &note));
  EXPECT_EQ(error, "unknown normalizer 'Mystery'");
}

// [SECTION] models

json bert_fixture() {
  json vocab = json::object();
  int id = 0;
  for (const char* s : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "play", "##ing", "!", "the"})
    vocab[s] = id++;
  json j;
  j["model"] = {{"type", "WordPiece"},
                {"vocab", vocab},
                {"unk_token", "[UNK]"},
                {"continuing_subword_prefix", "##"},
                {"max_input_chars_per_word", 100}};
  j["normalizer"] = {{"type", "BertNormalizer"}, {"lowercase", true}};
  j["pre_tokenizer"] = {{"type", "BertPreTokenizer"}};
  j["post_processor"] = {
      {"type", "BertProcessing"}, {"sep", json::array({"[SEP]", 3})}, {"cls", json::array({"[CLS]", 2})}};
  j["decoder"] = {{"type", "WordPiece"}, {"prefix", "##"}, {"cleanup", true}};
  j["added_tokens"] = json::array(
      {{{"id", 2}, {"content", "[CLS]"}, {"special", true}}, {{"id", 3}, {"content", "[SEP]"}, {"special", true}}});
  return j;
}

TEST(WordPiece, GreedyLongestMatchWithContinuations) {
  const Tokenizer t = make_bpe(bert_fixture());
  EXPECT_EQ(t.model(), TokenizerModel::WordPiece);
  EXPECT_EQ(bpe_strings(t, t.encode("Unaffable PLAYING xyz!")),
            (Strings{"[CLS]", "un", "##aff", "##able", "play", "##ing", "[UNK]", "!", "[SEP]"}));
  EXPECT_EQ(t.decode(t.encode("unaffable playing!", false)), "unaffable playing!");
}

TEST(Unigram, ViterbiPicksTheMostProbableSegmentation) {
  // "abc": a+b+c = -1-1-1 = -3 beats ab+c = -2.5-1 = -3.5 and a+bc = -1-2.1 = -3.1; "ab" alone is -2.5 > -2.
  json vocab = json::array({json::array({"<unk>", 0.0}), json::array({"a", -1.0}), json::array({"b", -1.0}),
                            json::array({"c", -1.0}), json::array({"ab", -2.5}), json::array({"bc", -2.1}),
                            json::array({"abcd", -3.5}), json::array({"d", -4.0})});
  json j;
  j["model"] = {{"type", "Unigram"}, {"vocab", vocab}, {"unk_id", 0}};
  const Tokenizer t = make_bpe(j);
  EXPECT_EQ(bpe_strings(t, t.encode("abc", false)), (Strings{"a", "b", "c"}));
  EXPECT_EQ(bpe_strings(t, t.encode("abcd", false)), (Strings{"abcd"}));             // -3.5 beats -3 - 4
  EXPECT_EQ(bpe_strings(t, t.encode("axxa", false)), (Strings{"a", "<unk>", "a"}));  // unknown characters fuse
}

TEST(Bpe, SubwordPrefixAndSuffix) {
  // Merges joining "h" + "##i" make "hi" (the prefix of the right part is dropped), then "hi</w>"...
  json vocab = {{"h", 0}, {"##i", 1}, {"i", 2}, {"hi", 3}, {"<unk>", 4}};
  json j;
  j["model"] = {{"type", "BPE"},
                {"vocab", vocab},
                {"merges", json::array({"h ##i"})},
                {"continuing_subword_prefix", "##"},
                {"unk_token", "<unk>"},
                {"fuse_unk", true}};
  j["pre_tokenizer"] = {{"type", "WhitespaceSplit"}};
  const Tokenizer t = make_bpe(j);
  EXPECT_EQ(bpe_strings(t, t.encode("hi i hzz", false)), (Strings{"hi", "i", "h", "<unk>"}));
}

// [SECTION] added tokens, post-processors, decoders

TEST(AddedTokens, StripAndSingleWordOptions) {
  json j = bert_fixture();
  j["normalizer"] = nullptr;
  j["added_tokens"].push_back({{"id", 11}, {"content", "<mask>"}, {"special", true}, {"lstrip", true}});
  j["added_tokens"].push_back(
      {{"id", 12}, {"content", "play"}, {"special", false}, {"single_word", true}, {"normalized", false}});
  const Tokenizer t = make_bpe(j);
  // lstrip: the spaces before <mask> belong to it; single_word: "play" inside "playing" is not the added token.
  const std::vector<int> ids = t.encode("the <mask> playing play", false);
  EXPECT_EQ(bpe_strings(t, ids), (Strings{"the", "<mask>", "play", "##ing", "play"}));
  EXPECT_EQ(ids[2], 7);   // the vocabulary's "play", not the added one
  EXPECT_EQ(ids[4], 12);  // the added token, a whole word
}

TEST(PostProcessor, TemplateAndRoberta) {
  json j = bert_fixture();
  j["post_processor"] = {
      {"type", "TemplateProcessing"},
      {"single", json::array({{{"SpecialToken", {{"id", "[CLS]"}, {"type_id", 0}}}},
                              {{"Sequence", {{"id", "A"}, {"type_id", 0}}}},
                              {{"SpecialToken", {{"id", "[SEP]"}, {"type_id", 0}}}}})},
      {"special_tokens", {{"[CLS]", {{"id", "[CLS]"}, {"ids", {2}}}}, {"[SEP]", {{"id", "[SEP]"}, {"ids", {3}}}}}}};
  Tokenizer t = make_bpe(j);
  EXPECT_EQ(t.encode("the"), (std::vector<int>{2, 10, 3}));
  EXPECT_EQ(t.bos_id(), 2);
  EXPECT_EQ(t.eos_id(), 3);
  j["post_processor"] = {
      {"type", "Sequence"},
      {"processors",
       json::array(
           {{{"type", "ByteLevel"}},
            {{"type", "RobertaProcessing"}, {"sep", json::array({"[SEP]", 3})}, {"cls", json::array({"[PAD]", 0})}}})}};
  t = make_bpe(j);
  EXPECT_EQ(t.encode("the"), (std::vector<int>{0, 10, 3}));
  t.set_bos(-1, false);
  EXPECT_EQ(t.encode("the"), (std::vector<int>{10, 3}));
}

TEST(Decoder, ChainsAsTheFileSays) {
  // Gemma-style: ▁ → space, <0xNN> runs → their UTF-8, then one string; a leading space stripped by Strip.
  json vocab = json::object();
  int id = 0;
  for (const char* s : {"<unk>", "▁hi", "<0xE6>", "<0xB3>", "<0xA8>", "<0xFF>", "▁"}) vocab[s] = id++;
  json j;
  j["model"] = {
      {"type", "BPE"}, {"vocab", vocab}, {"merges", json::array()}, {"byte_fallback", true}, {"unk_token", "<unk>"}};
  j["decoder"] = {{"type", "Sequence"},
                  {"decoders", json::array({{{"type", "Replace"}, {"pattern", {{"String", "▁"}}}, {"content", " "}},
                                            {{"type", "ByteFallback"}},
                                            {{"type", "Fuse"}},
                                            {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}})}};
  const Tokenizer t = make_bpe(j);
  EXPECT_EQ(t.decode({1, 2, 3, 4, 6}), "hi注 ");
  EXPECT_EQ(t.decode({1, 2, 3}), "hi\xEF\xBF\xBD\xEF\xBF\xBD");  // an incomplete character: one U+FFFD per byte
  EXPECT_EQ(t.decode({5}), "\xEF\xBF\xBD");
}

TEST(TokenizerJson, MalformedNeverCrashes) {
  const char* bad[] = {
      R"({"model": {"type": "Unigram", "vocab": [["a"]]}})",
      R"({"model": {"type": "Unigram", "vocab": [["a", 0]], "unk_id": 7}})",
      R"({"model": {"type": "WordPiece", "vocab": {"a": 0}}, "post_processor": {"type": "BertProcessing", "sep": ["x", 99], "cls": ["y", 0]}})",
      R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "pre_tokenizer": {"type": "Split", "pattern": {"Regex": "[a-"}}})",
      R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "pre_tokenizer": {"type": "Split", "pattern": {}, "behavior": "Isolated"}})",
      R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "pre_tokenizer": {"type": "Split", "pattern": {"String": "a"}, "behavior": "Sideways"}})",
      R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<nope>"}}]}})",
      R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "pre_tokenizer": {"type": "Metaspace", "prepend_scheme": "sometimes"}})",
  };
  for (const char* text : bad) {
    Tokenizer t;
    std::string error;
    EXPECT_FALSE(tokenizer_from_json(text, &t, &error)) << text;
    EXPECT_EQ(error.find('\n'), std::string::npos);
    EXPECT_FALSE(error.empty());
  }
}

}  // namespace
}  // namespace tw
