#pragma once
// A BPE tokenizer from a tokenizer.json value, and the token strings of ids: the helpers the BPE tests share.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/text/tokenizer.h"

namespace tw::testing {

inline Tokenizer make_bpe(const nlohmann::json& j) {
  Tokenizer t;
  std::string error;
  EXPECT_TRUE(tokenizer_from_json(j.dump(), &t, &error)) << error;
  return t;
}

inline std::vector<std::string> bpe_strings(const Tokenizer& t, const std::vector<int>& ids) {
  std::vector<std::string> out;
  for (int id : ids) out.push_back(t.token_string(id));
  return out;
}

}  // namespace tw::testing
