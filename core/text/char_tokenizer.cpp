// The character-level tokenizer.json: bytes first, then the characters by frequency.
#include "core/text/char_tokenizer.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/base/utf8.h"

namespace tw {

std::string char_tokenizer_json(const std::string& text, int max_vocab) {
  using nlohmann::json;
  std::map<uint32_t, int64_t> counts;
  for (uint32_t cp : decode_utf8(text)) ++counts[cp];
  std::vector<std::pair<uint32_t, int64_t>> chars(counts.begin(), counts.end());
  std::stable_sort(chars.begin(), chars.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  json vocab = json::object();
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    vocab[name] = b;
  }
  int id = 256;
  for (const auto& [cp, n] : chars) {
    if (id >= max_vocab || n < 2) break;
    vocab[encode_utf8(cp)] = id++;
  }
  json j;
  j["version"] = "1.0";
  j["truncation"] = nullptr;
  j["padding"] = nullptr;
  j["added_tokens"] = json::array();
  j["normalizer"] = nullptr;
  j["pre_tokenizer"] = nullptr;
  j["post_processor"] = nullptr;
  j["decoder"] = {{"type", "Sequence"}, {"decoders", json::array({{{"type", "ByteFallback"}}, {{"type", "Fuse"}}})}};
  j["model"] = {{"type", "BPE"},
                {"dropout", nullptr},
                {"unk_token", nullptr},
                {"continuing_subword_prefix", nullptr},
                {"end_of_word_suffix", nullptr},
                {"fuse_unk", false},
                {"byte_fallback", true},
                {"ignore_merges", false},
                {"vocab", vocab},
                {"merges", json::array()}};
  return j.dump(1);
}

}  // namespace tw
