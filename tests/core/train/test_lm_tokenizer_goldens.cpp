// The shipped language models' tokenizers (assets/models/<name>/tokenizer.json) give the same ids as Hugging Face's
// reference implementation: tests/core/data/tokenizers/lm-<name>.golden.json was written by
// scripts/gen-lm-tokenizer-goldens.mjs with @huggingface/tokenizers, and records the SHA-256 of the file it read.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/text/tokenizer.h"

namespace tw {
namespace {

std::string read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

void check_model(const std::string& name) {
  const std::string golden_path =
      std::string(TW_SOURCE_DIR) + "/tests/core/data/tokenizers/lm-" + name + ".golden.json";
  const std::string file = std::string(TW_SOURCE_DIR) + "/assets/models/" + name + "/tokenizer.json";
  if (!std::filesystem::exists(golden_path)) GTEST_SKIP() << "no golden for " << name;
  const nlohmann::json golden = nlohmann::json::parse(read(golden_path));
  Tokenizer tok;
  std::string error;
  ASSERT_TRUE(load_tokenizer(file, &tok, &error)) << error;
  ASSERT_GE(golden["cases"].size(), 10u);
  for (const auto& c : golden["cases"]) {
    const std::string text = c["text"];
    const std::vector<int> expected = c["ids"];
    EXPECT_EQ(tok.encode(text, false), expected) << name << ": " << text;
    EXPECT_EQ(tok.decode(expected), c["decoded"].get<std::string>()) << name << ": " << text;
  }
}

TEST(LmTokenizerGoldens, Poems) { check_model("poems"); }
TEST(LmTokenizerGoldens, Quotes) { check_model("quotes"); }

}  // namespace
}  // namespace tw
