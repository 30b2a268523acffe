// Mask predicates against hand-worked small matrices (1 = query row i may read key column j).
#include "core/ops/mask.h"

#include <gtest/gtest.h>

#include <initializer_list>

namespace tw {
namespace {

MatB rows(std::initializer_list<const char*> lines) {
  const int T = static_cast<int>(lines.size());
  const int K = static_cast<int>(std::string(*lines.begin()).size());
  MatB m(T, K);
  int i = 0;
  for (const char* l : lines) {
    for (int j = 0; j < K; ++j) m(i, j) = l[j] == '1';
    ++i;
  }
  return m;
}

MatB mat(const Mask& mask, int T) {
  MatB m;
  materialize_mask(m, mask, T, T);
  return m;
}

TEST(Mask, Causal) { EXPECT_EQ(mat(causal_mask(), 3), rows({"100", "110", "111"})); }

TEST(Mask, Bidirectional) { EXPECT_EQ(mat(bidirectional_mask(), 2), rows({"11", "11"})); }

TEST(Mask, PrefixLM) { EXPECT_EQ(mat(prefix_lm_mask(2), 4), rows({"1100", "1100", "1110", "1111"})); }

TEST(Mask, SlidingWindowHuggingFaceSemantics) {
  // 0 ≤ i − j < 2: each query sees itself and one key back (Mistral's i − j ≤ W would see two back).
  EXPECT_EQ(mat(sliding_window_mask(2), 4), rows({"1000", "1100", "0110", "0011"}));
}

TEST(Mask, PaddingLeftAndRight) {
  EXPECT_EQ(mat(padding_mask(1, true, 3), 3), rows({"011", "011", "011"}));
  EXPECT_EQ(mat(padding_mask(1, false, 3), 3), rows({"110", "110", "110"}));
  // Left padding with causal: the pad query row 0 sees no key at all.
  EXPECT_EQ(mat(mask_and({causal_mask(), padding_mask(1, true, 3)}), 3), rows({"000", "010", "011"}));
}

TEST(Mask, DocumentPackingIsBlockDiagonalCausal) {
  EXPECT_EQ(mat(document_mask({2, 3}), 5), rows({"10000", "11000", "00100", "00110", "00111"}));
  // Positions past the listed documents form one trailing document.
  EXPECT_EQ(mat(document_mask({2}), 3), rows({"100", "110", "001"}));
}

TEST(Mask, Dilated) {
  EXPECT_EQ(mat(mask_and({causal_mask(), dilated_mask(2)}), 4), rows({"1000", "0100", "1010", "0101"}));
  EXPECT_EQ(mat(dilated_mask(2), 3), rows({"101", "010", "101"}));
}

TEST(Mask, GlobalTokens) { EXPECT_EQ(mat(global_mask(1), 3), rows({"111", "100", "100"})); }

TEST(Mask, OrComposition) {
  EXPECT_EQ(mat(mask_or({sliding_window_mask(1), global_mask(1)}), 3), rows({"111", "110", "101"}));
}

TEST(Mask, CombineTermsStreamingLLM) {
  // causal AND (window 2 OR sink 1)
  std::vector<MaskTerm> terms = {causal_mask().term, sliding_window_mask(2).term, global_mask(1).term};
  EXPECT_EQ(mat(combine_mask_terms(terms), 5), rows({"10000", "11000", "11100", "10110", "10011"}));
}

TEST(Mask, CombineTermsWithoutSparsityDropsGlobal) {
  std::vector<MaskTerm> terms = {causal_mask().term, global_mask(2).term};
  EXPECT_EQ(mat(combine_mask_terms(terms), 3), rows({"100", "110", "111"}));
  EXPECT_EQ(mat(combine_mask_terms({}), 2), rows({"11", "11"}));
}

TEST(Mask, BlockingTermNamesTheCulprit) {
  const Mask m = combine_mask_terms({causal_mask().term, sliding_window_mask(2).term});
  EXPECT_EQ(m.blocking_term(1, 1), nullptr);
  ASSERT_NE(m.blocking_term(0, 2), nullptr);
  EXPECT_EQ(m.blocking_term(0, 2)->kind, MaskKind::Causal);
  ASSERT_NE(m.blocking_term(3, 0), nullptr);
  EXPECT_EQ(m.blocking_term(3, 0)->kind, MaskKind::SlidingWindow);
  EXPECT_EQ(mask_term_name(*m.blocking_term(3, 0)), "sliding window (W=2)");
  EXPECT_EQ(m.blocking_term(3, 0)->tag, 1);  // index in the list given to combine_mask_terms
  EXPECT_EQ(m.blocking_term(0, 2)->tag, 0);
}

TEST(Mask, QueryOffsetMatchesLastRowsOfFullMask) {
  const Mask m = mask_and({causal_mask(), sliding_window_mask(3)});
  MatB full, step;
  materialize_mask(full, m, 6, 6);
  materialize_mask(step, m, 2, 6, 4);
  EXPECT_EQ(step, MatB(full.bottomRows(2)));
}

TEST(Mask, ValidationMessages) {
  EXPECT_EQ(validate_mask_term(sliding_window_mask(3).term, 8), "");
  EXPECT_NE(validate_mask_term(sliding_window_mask(0).term, 8), "");
  EXPECT_NE(validate_mask_term(dilated_mask(0).term, 8), "");
  EXPECT_NE(validate_mask_term(document_mask({2, 0}).term, 8), "");
  EXPECT_NE(validate_mask_term(padding_mask(9, true, 8).term, 8), "");
  EXPECT_NE(validate_mask_term(padding_mask(1, false, 7).term, 8), "");
  // Counts of positions are checked against 0..T, both ends included.
  EXPECT_EQ(validate_mask_term(prefix_lm_mask(8).term, 8), "");
  EXPECT_EQ(validate_mask_term(prefix_lm_mask(9).term, 8), "prefix-LM prefix length must be in 0..8, got 9");
  EXPECT_EQ(validate_mask_term(padding_mask(9, true, 8).term, 8), "padding count must be in 0..8, got 9");
  EXPECT_EQ(validate_mask_term(global_mask(0).term, 8), "");
  EXPECT_EQ(validate_mask_term(global_mask(-1).term, 8), "global token count must be in 0..8, got -1");
}

}  // namespace
}  // namespace tw
