// ImGui drawing helpers of the forward stepper (see forward_draw.h).
//
// [SECTION] block diagram
// [SECTION] token chips
// [SECTION] step tree
// [SECTION] step header
// [SECTION] parameter tables
#include "views/forward/forward_draw.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <initializer_list>
#include <string_view>

#include "core/base/i18n.h"
#include "core/model/forward_look_for.h"
#include "core/model/weights.h"
#include "core/text/byte_tokenizer.h"
#include "views/plot/figure.h"
#include "views/plot/theme.h"
#include "views/widgets.h"

namespace tw {

namespace {

ImU32 col(const ImVec4& v) { return ImGui::ColorConvertFloat4ToU32(v); }

std::string group_digits(int64_t v) {
  // Built by appending (not std::string::insert, which trips a false -Wrestrict in GCC 12).
  const std::string digits = std::to_string(v < 0 ? -v : v);
  std::string s = v < 0 ? "-" : "";
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) s += ',';
    s += digits[i];
  }
  return s;
}

std::string stage_label(BlockStage st, const ModelConfig& c) {
  // The loaded family's block: Gemma's (1 + γ) norms and sandwich norms, QK-norm, the tanh GELU.
  const std::string norm = c.norm == NormType::LayerNorm ? "LayerNorm" : c.norm_plus_one ? "RMSNorm (1+γ)" : "RMSNorm";
  switch (st) {
    case BlockStage::Norm1:
    case BlockStage::Norm2: return norm;
    case BlockStage::Residual1:
    case BlockStage::Residual2: return tr("+ residual");
    case BlockStage::Attention: {
      std::string s = tr("Attention");
      if (c.positions == PositionType::RoPE)
        s += "\n+ RoPE";
      else if (c.positions == PositionType::ALiBi)
        s += "\n+ ALiBi";
      if (c.qk_norm) s += c.qk_norm_before_rope ? "\n" + std::string(tr("QK-norm, then RoPE")) : "\n+ QK-norm";
      s += "\nH " + std::to_string(c.n_heads) + " / KV " + std::to_string(c.n_kv_heads);
      if (c.sandwich_norm) s += "\n" + std::string(tr("+ post-norm"));
      return s;
    }
    case BlockStage::Mlp: {
      const std::string act = std::string(c.activation == ActivationKind::SwiGLU  ? "SwiGLU"
                                          : c.activation == ActivationKind::GeGLU ? "GeGLU"
                                          : c.activation == ActivationKind::GELU  ? "GELU"
                                                                                  : "ReLU") +
                              (c.gelu_tanh && c.activation != ActivationKind::SwiGLU ? " (tanh)" : "");
      if (c.moe())  // the router's top-k of E expert MLPs
        return subst(tr("MoE {0} × {1}\ntop-{2}"), {std::to_string(c.experts), act, std::to_string(c.top_k)});
      return "MLP\n" + act + (c.sandwich_norm ? "\n" + std::string(tr("+ post-norm")) : "");
    }
  }
  return "?";
}

}  // namespace

// [SECTION] block diagram

void draw_block_diagram(const ModelConfig& config, const std::string& step_name, const DrawContext& ctx) {
  const float s = ctx.dpi_scale;
  const std::vector<BlockStage> order = block_order(config.placement);
  const int current = block_stage(step_name);
  // Every label whole: in a narrow column (200% beside the controls) the whole diagram, labels, boxes and arrows, is
  // drawn smaller, down to the 100% text size; only then do the boxes run past the column (it scrolls sideways).
  // The labels were cut at the box edges ("RMSNo", "Attentio").
  ImFont* font = ImGui::GetFont();
  const float full = ImGui::GetFontSize();
  float label_w = 0, label_h = 0;
  for (BlockStage st : order) {
    if (st == BlockStage::Residual1 || st == BlockStage::Residual2) continue;
    const ImVec2 ts = ImGui::CalcTextSize(stage_label(st, config).c_str());
    label_w = std::max(label_w, ts.x);
    label_h = std::max(label_h, ts.y);
  }
  const float avail = std::max(ImGui::GetContentRegionAvail().x, 1.0f);
  // At full size: kBlockStages + 1 arrows, two circled adds, four boxes each as wide as the widest label.
  const float full_w = 16.0f * s * (kBlockStages + 1) + 2 * (2 * 11.0f * s) + 4 * (label_w + 2 * 6.0f * s);
  const float shrink = std::clamp(avail / full_w, std::min(1.0f, plot::kBaseFontSize / full), 1.0f);
  const float font_size = full * shrink, k = s * shrink;  // k: one logical pixel at the diagram's size
  const float arrow = 16.0f * k;
  const float plus_r = 11.0f * k;  // residual adds are drawn as circled "+", the other four stages as boxes
  const float fixed_w = arrow * (kBlockStages + 1) + 2 * (2 * plus_r), pad = 6.0f * k;
  const float box_w = std::max((avail - fixed_w) / 4.0f, label_w * shrink + 2 * pad);
  const float width = fixed_w + 4 * box_w;
  const float box_h = label_h * shrink + 12.0f * k, skip_h = 16.0f * k;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec4 text_v = ImGui::GetStyleColorVec4(ImGuiCol_Text);
  const ImU32 text = col(text_v);
  const ImU32 faint = col(ImVec4(text_v.x, text_v.y, text_v.z, 0.45f));
  const ImU32 box_fill = col(ImGui::GetStyleColorVec4(ImGuiCol_FrameBg));
  const ImU32 hot_fill = col(ImGui::GetStyleColorVec4(ImGuiCol_PlotHistogram));
  const ImU32 hot_text = col(ImVec4(0.05f, 0.05f, 0.05f, 1.0f));
  const float y0 = origin.y + skip_h, y1 = y0 + box_h, ymid = (y0 + y1) * 0.5f, top = origin.y + 2.0f * k;
  auto arrow_to = [&](float xa, float xb) {
    dl->AddLine(ImVec2(xa, ymid), ImVec2(xb - 5 * k, ymid), faint, 1.5f * s);
    dl->AddTriangleFilled(ImVec2(xb - 6 * k, ymid - 4 * k), ImVec2(xb - 6 * k, ymid + 4 * k), ImVec2(xb, ymid), faint);
  };

  float x = origin.x;
  float branch_x = x + arrow * 0.5f;  // where the skip connection leaves the main path
  arrow_to(x, x + arrow);
  x += arrow;
  for (int i = 0; i < kBlockStages; ++i) {
    const BlockStage st = order[static_cast<size_t>(i)];
    const bool hot = current == static_cast<int>(st);
    if (st == BlockStage::Residual1 || st == BlockStage::Residual2) {
      const ImVec2 c(x + plus_r, ymid);
      dl->AddCircleFilled(c, plus_r, hot ? hot_fill : box_fill);
      dl->AddCircle(c, plus_r, hot ? hot_fill : faint, 0, hot ? 2.5f * s : 1.0f * s);
      dl->AddLine(ImVec2(c.x - plus_r * 0.55f, c.y), ImVec2(c.x + plus_r * 0.55f, c.y), hot ? hot_text : text, 2 * s);
      dl->AddLine(ImVec2(c.x, c.y - plus_r * 0.55f), ImVec2(c.x, c.y + plus_r * 0.55f), hot ? hot_text : text, 2 * s);
      // The skip connection: from the branch point over the top into the "+".
      dl->AddLine(ImVec2(branch_x, ymid), ImVec2(branch_x, top), faint, 1.5f * s);
      dl->AddLine(ImVec2(branch_x, top), ImVec2(c.x, top), faint, 1.5f * s);
      dl->AddLine(ImVec2(c.x, top), ImVec2(c.x, c.y - plus_r - 5 * k), faint, 1.5f * s);
      dl->AddTriangleFilled(ImVec2(c.x - 4 * k, c.y - plus_r - 6 * k), ImVec2(c.x + 4 * k, c.y - plus_r - 6 * k),
                            ImVec2(c.x, c.y - plus_r), faint);
      x += 2 * plus_r;
      branch_x = x + arrow * 0.5f;  // the next skip leaves after this add
    } else {
      const ImVec2 a(x, y0), b(x + box_w, y1);
      dl->AddRectFilled(a, b, hot ? hot_fill : box_fill, 6.0f * k);
      dl->AddRect(a, b, hot ? hot_fill : faint, 6.0f * k, 0, hot ? 2.5f * s : 1.0f * s);
      const std::string label = stage_label(st, config);
      const ImVec2 ts = font->CalcTextSizeA(font_size, FLT_MAX, 0.0f, label.c_str());
      check_text_fits("block diagram label \"" + label + "\"", ts.x, box_w - 2 * pad + 0.5f);
      dl->PushClipRect(a, b, true);
      dl->AddText(font, font_size, ImVec2(x + std::max((box_w - ts.x) * 0.5f, pad), ymid - ts.y * 0.5f),
                  hot ? hot_text : text, label.c_str());
      dl->PopClipRect();
      x += box_w;
    }
    arrow_to(x, x + arrow);
    x += arrow;
  }
  ImGui::Dummy(ImVec2(width, skip_h + box_h + 4.0f * k));
  if (current < 0) ImGui::TextDisabled("%s", tr("The current step is outside the blocks (embedding or output head)."));
}

// [SECTION] token chips

void draw_token_chips(const TokenVocabulary& vocab, const std::vector<int>& tokens, int highlight_last,
                      const DrawContext& ctx) {
  const float s = ctx.dpi_scale;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float right = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
  const ImU32 fill = col(ImGui::GetStyleColorVec4(ImGuiCol_FrameBg));
  const ImU32 fill_new = col(ImVec4(0.80f, 0.45f, 0.10f, 0.55f));
  const ImU32 text = col(ImGui::GetStyleColorVec4(ImGuiCol_Text));
  const ImU32 dim = col(ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  const float pad = 4.0f * s, line = ImGui::GetTextLineHeight();
  const int n = static_cast<int>(tokens.size());
  std::vector<TokenDisplay> shown_all;
  bool any_partial = false;  // then every chip has a third line: the character under the token where it starts
  for (int i = 0; i < n; ++i) {
    shown_all.push_back(vocab.display(tokens, static_cast<size_t>(i)));
    any_partial = any_partial || shown_all.back().partial;
  }
  for (int i = 0; i < n; ++i) {
    ImGui::PushID(i);
    const TokenDisplay& shown = shown_all[static_cast<size_t>(i)];
    const std::string& label = shown.text;
    const std::string id = std::to_string(tokens[static_cast<size_t>(i)]);
    const std::string character = shown.character_starts ? shown.character : "";
    const float w = std::max({ImGui::CalcTextSize(label.c_str()).x, ImGui::CalcTextSize(id.c_str()).x,
                              ImGui::CalcTextSize(character.c_str()).x}) +
                    2 * pad;
    const float h = (any_partial ? 3 : 2) * line + 2 * pad;
    if (i > 0) {
      ImGui::SameLine(0, 3.0f * s);
      if (ImGui::GetCursorScreenPos().x + w > right) ImGui::NewLine();
    }
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("chip", ImVec2(w, h));
    const bool appended = i >= n - highlight_last;
    dl->AddRectFilled(p, ImVec2(p.x + w, p.y + h), appended ? fill_new : fill, 4.0f * s);
    const ImU32 label_col = shown.special ? col(ImVec4(0.35f, 0.65f, 1.0f, 1.0f)) : text;  // special tokens stand out
    dl->AddText(ImVec2(p.x + (w - ImGui::CalcTextSize(label.c_str()).x) * 0.5f, p.y + pad), label_col, label.c_str());
    if (!character.empty())
      dl->AddText(ImVec2(p.x + (w - ImGui::CalcTextSize(character.c_str()).x) * 0.5f, p.y + pad + line), text,
                  character.c_str());
    const float id_y = p.y + pad + (any_partial ? 2 : 1) * line;
    dl->AddText(ImVec2(p.x + (w - ImGui::CalcTextSize(id.c_str()).x) * 0.5f, id_y), dim, id.c_str());
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::TextUnformatted(subst(appended
                                       ? tr("position {0}, token id {1} (sampled and appended through the KV cache)")
                                       : tr("position {0}, token id {1}"),
                                   {std::to_string(i), std::to_string(tokens[static_cast<size_t>(i)])})
                                 .c_str());
      if (shown.special) ImGui::TextUnformatted(tr("a special token"));
      if (!shown.character.empty())
        ImGui::TextUnformatted(subst(tr("part of the character {0}"), {shown.character}).c_str());
      ImGui::EndTooltip();
    }
    ImGui::PopID();
  }
}

// [SECTION] step tree

int draw_step_tree(const Trace& trace, int current, bool reveal) {
  int clicked = -1;
  const auto groups = step_groups(trace);
  if (!ImGui::TreeNodeEx("model", ImGuiTreeNodeFlags_DefaultOpen, "%s", tr("model"))) return -1;
  for (size_t g = 0; g < groups.size(); ++g) {
    const StepGroup& group = groups[g];
    ImGui::PushID(static_cast<int>(g));
    const bool holds_current = std::find(group.steps.begin(), group.steps.end(), current) != group.steps.end();
    if (reveal && holds_current) ImGui::SetNextItemOpen(true, ImGuiCond_Always);
    if (ImGui::TreeNodeEx(group.label.c_str(), holds_current ? ImGuiTreeNodeFlags_DefaultOpen : 0)) {
      for (int i : group.steps) {
        ImGui::PushID(i);
        const TraceStep& st = trace.steps()[static_cast<size_t>(i)];
        const std::string label = sub_step_name(st.name);
        if (ImGui::Selectable(label.c_str(), i == current)) clicked = i;
        if (ImGui::IsItemHovered()) {  // the shape has $…$ math: typeset it, not SetTooltip's plain text
          ImGui::BeginTooltip();
          ImGui::TextUnformatted(tr(st.title.c_str()));
          math_text(st.shape_string().c_str(), -1.0f);
          ImGui::EndTooltip();
        }
        if (reveal && i == current) ImGui::SetScrollHereY(0.5f);
        ImGui::PopID();
      }
      ImGui::TreePop();
    }
    ImGui::PopID();
  }
  ImGui::TreePop();
  return clicked;
}

// [SECTION] step header

void draw_step_header(const ForwardResult& r, int step_index) {
  const auto& steps = r.run.trace.steps();
  if (step_index < 0 || step_index >= static_cast<int>(steps.size())) return;
  const TraceStep& st = steps[static_cast<size_t>(step_index)];
  ImGui::TextUnformatted(tr(st.title.c_str()));  // titles are msgids (core/model/forward_steps.h)
  ImGui::SameLine();
  ImGui::TextDisabled("%s", st.name.c_str());
  formula_line(st.formula.c_str());
  if (const char* look = forward_look_for(st.name)) {  // one sentence: what this step shows
    ImGui::TextDisabled("%s", tr("Look for:"));
    ImGui::SameLine();
    math_text(tr(look));
  }

  // Inputs: earlier steps (with their shapes), parameters (with their checkpoint shapes), or the token ids.
  const auto specs = tensor_specs(r.run.config);
  for (const std::string& in : st.inputs) {
    std::string shape;
    if (const TraceStep* prev = r.run.trace.find(in)) {
      shape = prev->shape_string();
    } else if (in == "tokens") {
      shape = subst(tr("($T = {0}$ tokens) ids"), {std::to_string(st.value.rows())});
    } else {
      for (const TensorSpec& spec : specs)
        if (spec.name == in) {
          // Built in a fresh string: assigning a literal to `shape` trips a false -Wrestrict in GCC 12.
          std::string dims("(");
          for (size_t d = 0; d < spec.shape.size(); ++d) dims += (d ? ", " : "") + std::to_string(spec.shape[d]);
          dims += ") ";
          dims += spec.shape.size() == 2 ? tr("(out_features, in_features) parameter") : tr("parameter");
          shape = std::move(dims);
        }
      if (shape.empty() && r.run.incremental) shape = tr("(earlier tokens: read from the KV cache)");
    }
    ImGui::Bullet();  // BulletText does not typeset the shape's $…$ math
    math_text(subst(tr("in  {0}  {1}"), {in, shape}).c_str());
  }
  ImGui::Bullet();
  math_text(subst(tr("out {0}"), {st.shape_string()}).c_str());
  ImGui::TextUnformatted(
      subst(tr("FLOPs {0}   bytes {1}   arithmetic intensity {2} FLOP/byte"),
            {plot::fmt("%.4g", st.flops), plot::fmt("%.4g", st.bytes), plot::fmt("%.3g", st.intensity())})
          .c_str());
  help_marker(
      tr("FLOPs count a multiply-add as 2. Bytes assume every input, weight and output is touched once as "
         "float32. Intensity = FLOPs / bytes: below roughly 10-100 FLOP/byte (depending on the chip) a step "
         "is limited by memory bandwidth, not arithmetic."));
}

// [SECTION] parameter tables

namespace {

// Text in cell `column` of the current table row.
void text_cell(int column, const std::string& text) {
  ImGui::TableSetColumnIndex(column);
  math_text(text.c_str(), -1.0f);  // "Attention $Q$": typeset; plain text goes through ImGui unchanged
}

// A number right-aligned in cell `column` (digits line up; a fixed column fits the widest, so none wraps).
void number_cell(int column, const std::string& text) {
  ImGui::TableSetColumnIndex(column);
  const float pad = ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize(text.c_str()).x;
  if (pad > 0) ImGui::SetCursorPosX(ImGui::GetCursorPosX() + pad);
  ImGui::TextUnformatted(text.c_str());
}

// The tables span the panel's width: names and numbers in columns fitted to their widest entry, the formula column
// taking the rest.
constexpr ImGuiTableFlags kFullWidthTable =
    ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;

// Begins such a table and draws its header row; false when it is not drawn (then no EndTable).
bool begin_full_width_table(const char* id, std::initializer_list<const char*> columns, const char* stretched) {
  if (!ImGui::BeginTable(id, static_cast<int>(columns.size()), kFullWidthTable, ImVec2(-FLT_MIN, 0))) return false;
  for (const char* c : columns)
    ImGui::TableSetupColumn(
        c, std::string_view(c) == stretched ? ImGuiTableColumnFlags_WidthStretch : ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableHeadersRow();
  return true;
}

}  // namespace

void draw_parameter_tables(const ModelConfig& config) {
  const auto rows = parameter_table(config);
  // The panel wraps its text; inside the tables no cell may wrap (a fixed column would then fit the wrapped width
  // and break "2,097,152" over three lines).
  ImGui::PushTextWrapPos(-1.0f);
  if (begin_full_width_table("params", {tr("component"), tr("formula"), tr("per instance"), tr("total")},
                             tr("formula"))) {
    for (const ParamGroup& g : rows) {
      ImGui::TableNextRow();
      text_cell(0, tr(g.name.c_str()));  // msgids for the named rows; W_q (q_proj) … stay as written
      text_cell(1, tr(g.formula.c_str()));
      number_cell(2, group_digits(g.count) + (g.instances > 1 ? " \u00D7 " + std::to_string(g.instances) : ""));
      number_cell(3, group_digits(g.total()));
    }
    ImGui::TableNextRow();
    text_cell(0, tr("Total"));
    number_cell(3, group_digits(parameter_count(config)));
    ImGui::EndTable();
  }
  ImGui::PopTextWrapPos();

  const bool notes_sizes = config.dim == 256 && config.n_layers == 4 && config.n_heads == 8 && config.n_kv_heads == 4 &&
                           config.vocab == 8192;
  if (!notes_sizes) {
    ImGui::TextDisabled("%s", tr("Choose the Small model to compare with a commonly quoted parameter table of it."));
    return;
  }
  const NotesParamCheck check = check_notes_small_table();
  ImGui::Spacing();
  math_text(subst(tr("A commonly quoted Small table, checked against its own formulas ($F = \\mathrm{int}(2 \\cdot 4 "
                     "\\cdot 256/3) = {0}$):"),
                  {std::to_string(check.notes_hidden)})
                .c_str());
  ImGui::PushTextWrapPos(-1.0f);
  if (begin_full_width_table("notes", {tr("component"), tr("table says"), tr("formula"), tr("exact"), ""},
                             tr("formula"))) {
    for (size_t i = 0; i < check.rows.size(); ++i) {
      const NotesParamRow& r = check.rows[i];
      ImGui::PushID(static_cast<int>(i));
      ImGui::TableNextRow();
      text_cell(0, r.component);
      text_cell(1, r.notes_text);
      text_cell(2, r.formula);
      number_cell(3, group_digits(r.computed));
      ImGui::TableSetColumnIndex(4);
      check_mark(r.agrees, r.agrees ? "" : tr("slip"));
      if (!r.remark.empty() && ImGui::IsItemHovered()) {  // the remark has $…$ math: typeset, not SetTooltip
        ImGui::BeginTooltip();
        math_text(r.remark.c_str(), ImGui::GetFontSize() * 32.0f);
        ImGui::EndTooltip();
      }
      ImGui::PopID();
    }
    ImGui::EndTable();
  }
  ImGui::PopTextWrapPos();
  const std::string text = subst(
      tr("{0} rows of that table do not follow from its formulas: each MLP matrix is $256 \\times {1}$ = {2}, not "
         "87K, and the total is {3}, not ~2.08M (their own rows add up to 6.03M). The model above uses $F = {4}$ "
         "(LLaMA rounds $\\mathrm{int}(2 \\cdot 4 \\cdot C/3)$ up to a multiple of 256), so its table differs from "
         "both."),
      {std::to_string(check.disagreements), std::to_string(check.notes_hidden),
       group_digits(int64_t(256) * check.notes_hidden), group_digits(check.computed_total),
       std::to_string(config.hidden)});
  warning_text(text.c_str());
}

void draw_next_token_table(const NextTokenChoice& next, const TokenVocabulary& vocab) {
  const SamplingTrace& f = next.filter;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  const std::vector<int> shown = shown_candidates(next);
  if (shown.empty() || !ImGui::BeginTable("filters", 6, flags)) return;
  // Fixed-fit columns size to their text: the column's wrap position would break "0.9999" and "(sampled)".
  ImGui::PushTextWrapPos(-1.0f);
  const char* const headers[] = {tr("token"), tr("id"), tr("$p$ after temperature"), "top-k", "top-p", tr("$p$ final")};
  for (const char* h : headers) ImGui::TableSetupColumn(h);
  ImGui::TableNextRow(ImGuiTableRowFlags_Headers);  // TableHeadersRow would show the $…$ source: typeset instead
  for (int c = 0; c < 6; ++c) {
    ImGui::TableSetColumnIndex(c);
    math_text(headers[c], -1.0f);
  }
  for (const int id : shown) {
    const size_t i = static_cast<size_t>(id);
    ImGui::PushID(id);
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::Text("%s%s", vocab.label(id).c_str(), id == next.sampled ? tr("  (sampled)") : "");
    ImGui::TableSetColumnIndex(1);
    ImGui::Text("%d", id);
    ImGui::TableSetColumnIndex(2);
    ImGui::Text("%.4f", static_cast<double>(f.probs_before[i]));
    ImGui::TableSetColumnIndex(3);
    check_mark(f.kept_top_k[i] != 0, "");
    ImGui::TableSetColumnIndex(4);
    check_mark(f.kept_top_p[i] != 0, "");
    ImGui::TableSetColumnIndex(5);
    ImGui::Text("%.4f", static_cast<double>(f.probs[i]));
    ImGui::PopID();
  }
  ImGui::PopTextWrapPos();
  ImGui::EndTable();
}

}  // namespace tw
