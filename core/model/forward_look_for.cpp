// What to look for in each forward step (core/model/forward_look_for.h).
#include "core/model/forward_look_for.h"

#include "core/base/i18n.h"

namespace tw {

const char* forward_look_for(StepId id) {
  switch (id) {
    case StepId::Embed:
      return N_("Each row is one token's vector: the same token id gives the same row wherever it stands.");
    case StepId::PosEmbed: return N_("Rows of the same token now differ: each row carries where its token stands.");
    case StepId::AttnNorm:
      return N_(
          "Every row is rescaled before $\\gamma$: RMSNorm divides it by its root mean square, LayerNorm first "
          "subtracts its mean; the norm removes the row's scale, not its direction.");
    case StepId::Q: return N_("One query per head and token: what each position is looking for.");
    case StepId::K:
      return N_("Fewer key heads than query heads when the model shares them (GQA): each key head serves a group.");
    case StepId::V: return N_("The values are what attention will mix: the content, not the match.");
    case StepId::QNorm:
      return N_(
          "Each head's query is rescaled on its own $d_k$ dimensions before RoPE turns it: no head can make its "
          "scores huge by growing its queries.");
    case StepId::KNorm:
      return N_(
          "The keys get the same per-head norm as the queries, so $q\\cdot k$ stays bounded by the two norms' "
          "weights.");
    case StepId::QRope:
      return N_(
          "The first pairs of dimensions turn fast with position, the last ones slowly; the lengths of the "
          "pairs do not change.");
    case StepId::KRope:
      return N_("Keys turn by their own positions, so $q\\cdot k$ depends only on how far apart two tokens are.");
    case StepId::Scores:
      return N_(
          "The upper triangle is masked: a token cannot see the ones after it; the spread of each row sets "
          "how sharp its softmax will be.");
    case StepId::Probs: return N_("Each row sums to 1: bright cells are the earlier tokens this position reads from.");
    case StepId::AttnOut:
      return N_("Each head's output is a weighted average of the value rows its probabilities pick.");
    case StepId::Proj: return N_("The heads are concatenated and mixed back into the model's width $C$.");
    case StepId::AttnPostNorm:
      return N_(
          "The attention output is normalized once more before it is added: the sandwich keeps what each block "
          "writes to the residual stream at a similar size.");
    case StepId::AttnResidual:
      return N_("The attention output is added to the input, not substituted: compare how much each row moved.");
    case StepId::MlpNorm: return N_("Again every row is rescaled to a root mean square near 1 before the MLP.");
    case StepId::RouterProbs:
      return N_("Each row is one token's distribution over the experts: the router's preference before top-k.");
    case StepId::ExpertGates:
      return N_(
          "Only $k$ cells per row are lit: the chosen experts, their gates summing to 1 (less where one dropped).");
    case StepId::ExpertLoad: return N_("Tokens per expert: a balanced router spreads them evenly, $T k / E$ each.");
    case StepId::ExpertDropped:
      return N_("Assignments a full expert turned away: those tokens skip that expert on the residual stream.");
    case StepId::Gate: return N_("The gate decides, per hidden unit, how much of the up projection passes.");
    case StepId::Up:
      return N_("The width grows from $C$ to the hidden size $F$, often $\\frac{8}{3} C$ for SwiGLU (the 2/3 rule).");
    case StepId::Hidden:
      return N_(
          "Where the gate is strongly negative, $\\mathrm{silu}$ is near 0 and the unit is nearly off for this token.");
    case StepId::Down: return N_("The hidden units are summed back down to the model's width $C$.");
    case StepId::MlpPostNorm:
      return N_(
          "The MLP's output is rescaled before the add, as after attention: compare its row sizes with the "
          "residual stream's.");
    case StepId::MlpResidual:
      return N_("The block's output is the input plus two corrections: the residual stream carries the token through.");
    case StepId::FinalNorm:
      return N_("The last rows are rescaled once more before they are compared with every token.");
    case StepId::Logits:
      return N_("One score per vocabulary entry: the largest in the last row is the most likely next token.");
  }
  return "";
}

const char* forward_look_for(std::string_view trace_name) {
  if (trace_name.rfind("layers.", 0) == 0) {  // "layers.<L>.<name>"
    const size_t dot = trace_name.find('.', 7);
    if (dot == std::string_view::npos) return nullptr;
    trace_name.remove_prefix(dot + 1);
  }
  for (const StepRow& row : forward_step_table())
    if (trace_name == row.name) return forward_look_for(row.id);
  return nullptr;
}

}  // namespace tw
