#include "core/ops/mask.h"
#include "core/base/i18n.h"  // N_: names translated where shown

#include <string>

#include "core/base/i18n.h"
#include "core/enum_names.h"

namespace tw {

namespace {
// Document index of position p given packed document lengths; positions past the end form one more document.
int document_of(const std::vector<int>& lengths, int p) {
  int end = 0;
  for (int d = 0; d < static_cast<int>(lengths.size()); ++d) {
    end += lengths[d];
    if (p < end) return d;
  }
  return static_cast<int>(lengths.size());
}
}  // namespace

bool MaskTerm::allows(int i, int j) const {
  switch (kind) {
    case MaskKind::Causal: return j <= i;
    case MaskKind::Bidirectional: return true;
    case MaskKind::PrefixLM: return j < size || j <= i;
    case MaskKind::SlidingWindow: return i - j >= 0 && i - j < size;
    case MaskKind::Padding: return pad_left ? j >= size : j < length - size;
    case MaskKind::Document: return j <= i && document_of(doc_lengths, i) == document_of(doc_lengths, j);
    case MaskKind::Dilated: {
      const int d = i - j;
      return size > 0 && (d % size) == 0;  // C++ % keeps the sign of d; == 0 is sign-independent
    }
    case MaskKind::Global: return j < size || i < size;
  }
  return false;
}

namespace {
constexpr const char* kMaskKindNames[] = {N_("causal"),  N_("bidirectional"),    "prefix-LM",   N_("sliding window"),
                                          N_("padding"), N_("document packing"), N_("dilated"), N_("global/sink")};
static_assert(names_every(kMaskKindNames, MaskKind::Global));
}  // namespace

const char* mask_kind_name(MaskKind k) { return enum_name(kMaskKindNames, k); }

std::string mask_term_name(const MaskTerm& t) {
  std::string s = mask_kind_name(t.kind);
  switch (t.kind) {
    case MaskKind::PrefixLM: return s + " (prefix=" + std::to_string(t.size) + ")";
    case MaskKind::SlidingWindow: return s + " (W=" + std::to_string(t.size) + ")";
    case MaskKind::Padding: return s + " (" + std::to_string(t.size) + (t.pad_left ? ", left)" : ", right)");
    case MaskKind::Dilated: return s + " (stride=" + std::to_string(t.size) + ")";
    case MaskKind::Global: return s + " (" + std::to_string(t.size) + " tokens)";
    case MaskKind::Document: {
      s += " (";
      for (size_t d = 0; d < t.doc_lengths.size(); ++d) {
        if (d) s += ",";
        s += std::to_string(t.doc_lengths[d]);
      }
      return s + ")";
    }
    default: return s;
  }
}

bool Mask::allows(int i, int j) const {
  switch (op) {
    case Op::Term: return term.allows(i, j);
    case Op::And:
      for (const Mask& c : children)
        if (!c.allows(i, j)) return false;
      return true;
    case Op::Or:
      for (const Mask& c : children)
        if (c.allows(i, j)) return true;
      return false;
  }
  return false;
}

const MaskTerm* Mask::blocking_term(int i, int j) const {
  if (allows(i, j)) return nullptr;
  switch (op) {
    case Op::Term: return &term;
    case Op::And:
      for (const Mask& c : children)
        if (!c.allows(i, j)) return c.blocking_term(i, j);
      return nullptr;
    case Op::Or:  // every child blocks; name the first one's reason
      return children.empty() ? nullptr : children.front().blocking_term(i, j);
  }
  return nullptr;
}

Mask mask_term(MaskTerm t) { return {.op = Mask::Op::Term, .term = std::move(t)}; }

Mask causal_mask() { return mask_term({.kind = MaskKind::Causal}); }
Mask bidirectional_mask() { return mask_term({.kind = MaskKind::Bidirectional}); }
Mask prefix_lm_mask(int prefix) { return mask_term({.kind = MaskKind::PrefixLM, .size = prefix}); }
Mask sliding_window_mask(int window) { return mask_term({.kind = MaskKind::SlidingWindow, .size = window}); }
Mask padding_mask(int count, bool left, int length) {
  return mask_term({.kind = MaskKind::Padding, .size = count, .pad_left = left, .length = length});
}
Mask document_mask(std::vector<int> lengths) {
  return mask_term({.kind = MaskKind::Document, .doc_lengths = std::move(lengths)});
}
Mask dilated_mask(int stride) { return mask_term({.kind = MaskKind::Dilated, .size = stride}); }
Mask global_mask(int count) { return mask_term({.kind = MaskKind::Global, .size = count}); }

Mask mask_and(std::vector<Mask> parts) {
  Mask m;
  m.op = Mask::Op::And;
  m.children = std::move(parts);
  return m;
}
Mask mask_or(std::vector<Mask> parts) {
  Mask m;
  m.op = Mask::Op::Or;
  m.children = std::move(parts);
  return m;
}

Mask combine_mask_terms(const std::vector<MaskTerm>& terms) {
  std::vector<Mask> structural, sparsity, global;
  for (size_t idx = 0; idx < terms.size(); ++idx) {
    MaskTerm t = terms[idx];
    if (t.tag < 0) t.tag = static_cast<int>(idx);
    switch (t.kind) {
      case MaskKind::SlidingWindow:
      case MaskKind::Dilated: sparsity.push_back(mask_term(t)); break;
      case MaskKind::Global: global.push_back(mask_term(t)); break;
      default: structural.push_back(mask_term(t)); break;
    }
  }
  if (!sparsity.empty()) {
    Mask sparse = sparsity.size() == 1 ? sparsity.front() : mask_and(std::move(sparsity));
    if (global.empty()) {
      structural.push_back(std::move(sparse));
    } else {
      std::vector<Mask> any{std::move(sparse)};
      for (Mask& g : global) any.push_back(std::move(g));
      structural.push_back(mask_or(std::move(any)));
    }
  }
  // Without a sparsity term, global tokens are already visible: they restrict nothing and are dropped.
  if (structural.empty()) return bidirectional_mask();
  if (structural.size() == 1) return structural.front();
  return mask_and(std::move(structural));
}

void materialize_mask(MatB& out, const Mask& mask, int T_q, int T_k, int q_offset) {
  // out: (T_q, T_k)
  out.resize(T_q, T_k);
  for (int r = 0; r < T_q; ++r)  // one query per work item
    for (int j = 0; j < T_k; ++j) out(r, j) = mask.allows(q_offset + r, j);
}

namespace {
// "" when 0 <= count <= T (a number of the T positions), else "<what> must be in 0..T, got <count>".
std::string count_error(const char* what, int count, int T) {
  if (count >= 0 && count <= T) return "";
  return subst(tr("{0} must be in 0..{1}, got {2}"), {tr(what), std::to_string(T), std::to_string(count)});
}
}  // namespace

std::string validate_mask_term(const MaskTerm& t, int T) {
  switch (t.kind) {
    case MaskKind::PrefixLM: return count_error(N_("prefix-LM prefix length"), t.size, T);
    case MaskKind::SlidingWindow:
      if (t.size < 1) return subst(tr("sliding window $W$ must be >= 1, got {0}"), {std::to_string(t.size)});
      break;
    case MaskKind::Padding:
      if (std::string e = count_error(N_("padding count"), t.size, T); !e.empty()) return e;
      if (!t.pad_left && t.length != T)
        return subst(tr("right padding needs the sequence length {0}, got {1}"),
                     {std::to_string(T), std::to_string(t.length)});
      break;
    case MaskKind::Document:
      if (t.doc_lengths.empty()) return tr("document packing needs at least one document length");
      for (int len : t.doc_lengths)
        if (len < 1) return subst(tr("document lengths must be >= 1, got {0}"), {std::to_string(len)});
      break;
    case MaskKind::Dilated:
      if (t.size < 1) return subst(tr("dilation stride must be >= 1, got {0}"), {std::to_string(t.size)});
      break;
    case MaskKind::Global: return count_error(N_("global token count"), t.size, T);
    default: break;
  }
  return "";
}

}  // namespace tw
