// Token display tables for a GPT-2-style byte-level tokenizer and a SentencePiece-style (metaspace, byte
// fallback) tokenizer, including tokens that hold only part of a UTF-8 character.
#include "core/text/bpe_test_helpers.h"
#include "core/text/token_display.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/text/tokenizer.h"

namespace tw {
namespace {

using testing::bpe_strings;
using testing::make_bpe;

using nlohmann::json;

TEST(TokenDisplay, BytesTable) {
  const std::pair<std::string, std::string> table[] = {
      {" the", "␣the"},
      {"\xE6\xB3\xA8", "注"},
      {"\xE6\xB3", "⟨E6 B3⟩"},         // the first two bytes of 注
      {"\xA8\xE6\x84\x8F", "⟨A8⟩意"},  // the last byte of 注, then 意 whole
      {"a\nb\tc\r", "a↵b⇥c␍"},
      {"\x1B[0m", "⟨1B⟩[0m"},
      {"\xF0\x9F\x99", "⟨F0 9F 99⟩"},  // three of the four bytes of 🙂
      {"", ""},
  };
  for (const auto& [bytes, want] : table) EXPECT_EQ(display_bytes(bytes), want) << want;
}

TEST(TokenDisplay, SpellingsWithoutATokenizer) {
  EXPECT_EQ(display_byte_level("Ġthe"), "␣the");
  EXPECT_EQ(display_byte_level("æ³¨"), "注");
  EXPECT_EQ(display_byte_level("æ³"), "⟨E6 B3⟩");
  EXPECT_EQ(display_byte_level("Ċ"), "↵");
  EXPECT_EQ(display_metaspace("▁the"), "␣the");
  EXPECT_EQ(display_metaspace("<0x0A>"), "↵");
  EXPECT_EQ(display_metaspace("<0xE6>"), "⟨E6⟩");
  EXPECT_EQ(display_metaspace("注"), "注");
}

TEST(TokenDisplay, Gpt2ByteLevel) {
  // GPT-2's byte map: ids 0..255 are the bytes' characters ('Ġ' = space), then "Ġthe", "æ³", "¨".
  json vocab = json::object();
  for (int b = 0; b < 256; ++b) vocab[byte_level_alphabet()[size_t(b)]] = b;
  vocab["Ġthe"] = 256;
  vocab["æ³"] = 257;   // bytes E6 B3: the start of 注 (E6 B3 A8)
  vocab["æ³¨"] = 258;  // 注 whole
  json j;
  j["model"] = {{"type", "BPE"}, {"vocab", vocab}, {"merges", json::array({"Ġ t", "Ġt h", "Ġth e", "æ ³", "æ³ ¨"})}};
  j["model"]["vocab"]["Ġt"] = 259;
  j["model"]["vocab"]["Ġth"] = 260;
  j["added_tokens"] = json::array({{{"id", 261}, {"content", "<|endoftext|>"}, {"special", true}}});
  j["pre_tokenizer"] = {{"type", "ByteLevel"}, {"add_prefix_space", false}};
  j["decoder"] = {{"type", "ByteLevel"}};
  const Tokenizer t = make_bpe(j);
  const std::pair<int, std::string> table[] = {
      {256, "␣the"},
      {32, "␣"},
      {10, "↵"},
      {258, "注"},
      {257, "⟨E6 B3⟩"},
      {0xA8, "⟨A8⟩"},
      {261, "<|endoftext|>"},
      {99999, "<id 99999>"},
  };
  for (const auto& [id, want] : table) EXPECT_EQ(display_token(t, id).text, want) << id;
  EXPECT_TRUE(display_token(t, 261).special);
  EXPECT_TRUE(display_token(t, 257).partial);
  EXPECT_FALSE(display_token(t, 258).partial);
  // In a sequence, the partial tokens E6 B3 | A8 both belong to 注 (for the tooltip).
  const std::vector<TokenDisplay> seq = display_tokens(t, {256, 257, 0xA8, 261});
  ASSERT_EQ(seq.size(), 4u);
  EXPECT_EQ(seq[0].text, "␣the");
  EXPECT_EQ(seq[1].text, "⟨E6 B3⟩");
  EXPECT_EQ(seq[1].character, "注");
  EXPECT_EQ(seq[2].character, "注");
  EXPECT_TRUE(seq[1].character_starts);  // the character is labelled once, under the token holding its first byte
  EXPECT_FALSE(seq[2].character_starts);
  EXPECT_TRUE(seq[3].special);
  EXPECT_EQ(seq[3].character, "");
}

TEST(TokenDisplay, MetaspaceWithByteFallback) {
  json vocab = json::object();
  int id = 0;
  for (const char* s : {"<unk>", "<s>", "▁the", "▁", "<0xE6>", "<0xB3>", "<0xA8>", "<0x0A>", "注"}) vocab[s] = id++;
  json j;
  j["model"] = {
      {"type", "BPE"}, {"vocab", vocab}, {"merges", json::array()}, {"byte_fallback", true}, {"unk_token", "<unk>"}};
  j["added_tokens"] = json::array({{{"id", 1}, {"content", "<s>"}, {"special", true}}});
  j["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", "▁"}, {"prepend_scheme", "always"}, {"split", true}};
  const Tokenizer t = make_bpe(j);
  const std::pair<int, std::string> table[] = {{2, "␣the"}, {3, "␣"}, {4, "⟨E6⟩"}, {7, "↵"}, {8, "注"}, {1, "<s>"}};
  for (const auto& [id, want] : table) EXPECT_EQ(display_token(t, id).text, want) << id;
  const std::vector<TokenDisplay> seq = display_tokens(t, {1, 2, 4, 5, 6});
  EXPECT_EQ(seq[2].character, "注");
  EXPECT_EQ(seq[3].character, "注");
  EXPECT_EQ(seq[4].text, "⟨A8⟩");
  EXPECT_EQ(seq[4].character, "注");
  EXPECT_TRUE(seq[2].character_starts);
  EXPECT_FALSE(seq[3].character_starts);
  EXPECT_FALSE(seq[4].character_starts);
  // Never an empty label: an id with no spelling (a gap in the vocabulary) or an empty special token.
  json gap = j;
  gap["model"]["vocab"]["x"] = 20;  // ids 9..19 are unused
  gap["added_tokens"].push_back({{"id", 21}, {"content", ""}, {"special", true}});
  const Tokenizer g = make_bpe(gap);
  EXPECT_EQ(display_token(g, 12).text, "<empty>");
  EXPECT_EQ(display_token(g, 21).text, "<empty>");
  // A lone continuation byte with nothing to complete it belongs to no character.
  EXPECT_EQ(display_tokens(t, {5})[0].character, "");
  EXPECT_FALSE(display_tokens(t, {5})[0].character_starts);
}

}  // namespace
}  // namespace tw
