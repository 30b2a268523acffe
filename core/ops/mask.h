#pragma once
// Attention masks as composable predicates over (query position i, key position j).
//
// A mask answers "may query i read key j?" without storing a T×T matrix, so the tiled attention kernel
// can evaluate it tile by tile in O(T) memory. Positions are absolute: with a KV cache the query rows
// sit at positions offset..offset+T_new−1 and the keys at 0..T_k−1, and the same predicate applies.
//
// Terms (each one concept):
//   causal          j ≤ i
//   bidirectional   always true (encoder / BERT style)
//   prefix-LM       j < prefix  or  j ≤ i      (the prefix is read bidirectionally, the rest causally)
//   sliding window  0 ≤ i − j < W              (Hugging Face semantics: W keys including the query itself;
//                                              Mistral's reference code used i − j ≤ W, one key more)
//   padding         the key is not a pad token: left padding pads keys 0..count−1,
//                   right padding pads keys length−count..length−1
//   document        block-diagonal causal: same document and j ≤ i (packed sequences; positions past the
//                   last listed document form one more trailing document)
//   dilated         (i − j) mod stride == 0    (strided / dilated sparse attention; symmetric in i − j)
//   global / sink   j < count or i < count     (the first `count` tokens see and are seen by everyone,
//                                              Longformer's global tokens / StreamingLLM's attention sinks)
// Composition: mask_and / mask_or build a tree; allows() walks it.

#include <string>
#include <vector>

#include "core/tensor.h"

namespace tw {

enum class MaskKind { Causal, Bidirectional, PrefixLM, SlidingWindow, Padding, Document, Dilated, Global };

// One predicate term. Only the fields its kind uses are read.
struct MaskTerm {
  MaskKind kind = MaskKind::Causal;
  int size = 0;                    // prefix length (PrefixLM), W (SlidingWindow), pad count (Padding),
                                   // stride (Dilated), global token count (Global)
  bool pad_left = true;            // Padding: pads at the start (true) or the end (false) of the keys
  int length = 0;                  // Padding with pad_left == false: number of keys T_k (pads are the last `size`)
  std::vector<int> doc_lengths{};  // Document: lengths of the packed documents, in order
  int tag = -1;                    // caller's label, copied through composition (combine_mask_terms: list index)

  bool allows(int i, int j) const;  // i = query position, j = key position
};

// Short human name of a term with its parameter, e.g. "sliding window (W=4)"; used for "blocked by".
std::string mask_term_name(const MaskTerm& t);
const char* mask_kind_name(MaskKind k);

// A predicate tree: a leaf term, or the AND / OR of children.
struct Mask {
  enum class Op { Term, And, Or };
  Op op = Op::Term;
  MaskTerm term;                 // Op::Term
  std::vector<Mask> children{};  // Op::And / Op::Or

  bool allows(int i, int j) const;
  // For a blocked cell: the first leaf term (depth-first) that blocks it and is not overruled by an OR
  // sibling; nullptr when the cell is allowed. The masks panel shows this on hover.
  const MaskTerm* blocking_term(int i, int j) const;
};

// Leaf constructors.
Mask causal_mask();
Mask bidirectional_mask();
Mask prefix_lm_mask(int prefix);
Mask sliding_window_mask(int window);
Mask padding_mask(int count, bool left, int length);
Mask document_mask(std::vector<int> lengths);
Mask dilated_mask(int stride);
Mask global_mask(int count);
Mask mask_term(MaskTerm t);
// Composition.
Mask mask_and(std::vector<Mask> parts);
Mask mask_or(std::vector<Mask> parts);

// The panel's rule for combining a flat list of terms: global/sink terms are exceptions to the sparsity
// terms (sliding window, dilated) but not to the structural ones (causal, prefix-LM, padding, document):
//   mask = AND(structural) AND ( AND(sparsity) OR ANY(global) )
// so causal + window(W) + sink(4) is StreamingLLM, and window + global is Longformer.
// Each leaf's tag is set to its index in `terms` (unless already set), so blocking_term(i, j)->tag names
// the list entry that blocked a cell.
Mask combine_mask_terms(const std::vector<MaskTerm>& terms);

// Materialises the mask for query positions offset..offset+T_q−1 and keys 0..T_k−1 into a (T_q, T_k)
// bool matrix, true = allowed.
void materialize_mask(MatB& out, const Mask& mask, int T_q, int T_k, int q_offset = 0);

// Checks a term's parameters against the sequence length; returns an empty string when valid, otherwise
// a message for the user (e.g. "sliding window W must be ≥ 1, got 0").
std::string validate_mask_term(const MaskTerm& t, int T);

}  // namespace tw
