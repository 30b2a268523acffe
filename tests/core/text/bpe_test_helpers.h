#pragma once
// A BPE tokenizer from a tokenizer.json value, and the token strings of ids: the helpers the BPE tests share.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/text/tokenizer_bpe.h"

namespace tw::testing {

inline BpeTokenizer make_bpe(const nlohmann::json& j) {
  BpeTokenizer t;
  std::string error;
  EXPECT_TRUE(bpe_tokenizer_from_json(j.dump(), &t, &error)) << error;
  return t;
}

inline std::vector<std::string> bpe_strings(const BpeTokenizer& t, const std::vector<int>& ids) {
  std::vector<std::string> out;
  for (int id : ids) out.push_back(t.token_string(id));
  return out;
}

}  // namespace tw::testing
