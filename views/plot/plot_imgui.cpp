// Figures on screen: layout primitives → ImDrawList, plus hover, zoom/pan and the export menu.
//
// Index of this file:
// [SECTION] Plot context (view state, textures, export settings)
// [SECTION] Figure equality (what the layout cache compares)
// [SECTION] Screen fonts
// [SECTION] Text pieces
// [SECTION] Math text (typeset lines and tooltips)
// [SECTION] Rendering primitives
// [SECTION] Draw cache (replaying an unchanged figure's vertices)
// [SECTION] Interaction
// [SECTION] Export menu
// [SECTION] draw_figure

#include "views/plot/plot_imgui.h"
#include "core/base/i18n.h"
#include "views/plot/text_pieces.h"

#include <imgui_internal.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>

#include "core/base/text_in_use.h"
#include "core/base/utf8.h"
#include "views/async_job.h"
#include "views/file_browser.h"
#include "views/plot/export.h"
#include "views/plot/export_naming.h"
#include "views/plot/layout.h"
#include "views/plot/text.h"

namespace tw::plot {

// [SECTION] Plot context (view state, textures, export settings)
namespace {

// The emitted draw-list geometry of one figure, kept so an unchanged figure is re-emitted by copying its vertices
// instead of re-tessellating every line and glyph each frame. Valid only for the exact inputs recorded with it.
struct DrawRecord {
  struct Segment {        // a run of triangles with one clip rect and texture (one ImDrawCmd)
    ImVec4 clip;          // absolute clip rect the triangles were emitted with
    ImTextureID texture;  // font atlas or heatmap texture
    int vtx_begin = 0, vtx_count = 0;
    int idx_begin = 0, idx_count = 0;  // indices relative to vtx_begin
  };
  std::vector<ImDrawVert> vtx;
  std::vector<ImDrawIdx> idx;
  std::vector<Segment> segments;
  std::vector<std::pair<int, ImTextureID>> textures;  // layout image index → texture drawn (nullptr: rectangles)
  // Everything the geometry depends on besides the layout:
  uint64_t layout_generation = 0;
  ImVec2 origin;
  ImVec4 clip;  // the figure's clip rect (the window's clip ∩ the figure rect): glyphs outside it were culled
  float scale = 0;
  ImFont* font = nullptr;
  ImTextureID font_texture = nullptr;
  ImDrawListFlags flags = 0;
  float fringe = 0;
  bool valid = false;
};

struct FigureState {
  std::vector<ViewRange> views;  // zoom/pan per axes
  int drag_axes = -1;            // axes being panned (set on mouse down)
  std::string message;           // result of the last export, shown under the figure
  bool message_error = false;
  double message_time = -1e9;
  ExportFormats pending_export = 0;  // an export waiting for the user: its files exist (overwrite / keep both)
  int last_frame = 0;
  ImVec2 screen_min, screen_size;  // where it was last drawn (the GUI test's report)
  float window_scroll_y = 0;
  ImVec4 window_visible;  // x, y, w, h of the part of its window the figure can show in (scrollbars excluded)
  // Layout cache: the layout of `shown` (a copy of the last figure drawn, which the layout points into) for
  // `shown_options`. Laying out is the most expensive step of a frame (text measurement, ticks, legends), and
  // panels hand over equal figures frame after frame, so it is redone only when the figure or its options change.
  Figure shown;
  LayoutOptions shown_options;
  Layout layout;
  bool has_layout = false;
  uint64_t layout_generation = 0;  // bumped with every new layout; invalidates `record`
  DrawRecord record;
};

struct TextureEntry {
  ImTextureID texture = nullptr;
  int width = 0, height = 0;
  uint64_t key = 0;
  int last_frame = 0;
};

// The plot layer's per-process UI state: one instance, owned here so panels keep none.
struct PlotContext {
  TextureBackend backend;
  ExportSettings exports;     // used when the DrawContext carries none (tests, tools without an app)
  std::string export_status;  // the last right-click export's message, until take_export_status()
  std::unordered_map<ImGuiID, FigureState> figures;
  std::unordered_map<uint64_t, TextureEntry> textures;  // keyed by figure ImGui id and image slot
  int frame = 0;
  int last_gc_frame = 0;
  LayoutReport report;  // since the last take_layout_report()
};

PlotContext& context() {
  static PlotContext ctx;  // plot-layer singleton (not panel state); lives until exit
  return ctx;
}

ImU32 to_imgui(uint32_t c) { return IM_COL32(red(c), green(c), blue(c), alpha(c)); }

// Drops textures and cached layouts of figures not drawn for a while (closed panels, changed figure ids); the
// zoom state stays, so a panel reopened later shows the view the user left.
void collect_garbage(PlotContext& pc) {
  if (pc.frame - pc.last_gc_frame < 120) return;
  pc.last_gc_frame = pc.frame;
  for (auto& [id, st] : pc.figures) {
    if (pc.frame - st.last_frame <= 300 || !st.has_layout) continue;
    st.shown = Figure();
    st.layout = Layout();
    st.record = DrawRecord();
    st.has_layout = false;
  }
  for (auto it = pc.textures.begin(); it != pc.textures.end();) {
    if (pc.frame - it->second.last_frame > 300) {
      if (pc.backend.destroy && it->second.texture) pc.backend.destroy(it->second.texture);
      it = pc.textures.erase(it);
    } else {
      ++it;
    }
  }
}

// The texture for image `slot` of figure `id`, re-uploaded only when the image key changes.
ImTextureID texture_for(PlotContext& pc, ImGuiID id, int slot, const ImageRef& ref) {
  if (!pc.backend.create || !pc.backend.update || !pc.backend.destroy) return nullptr;
  // Colour bars share one texture per colormap across all figures.
  const uint64_t map_key = ref.heatmap ? (uint64_t(id) << 20) ^ uint64_t(slot) : (0xC0103ull << 32) ^ ref.key;
  TextureEntry& e = pc.textures[map_key];
  e.last_frame = pc.frame;
  if (e.texture && e.key == ref.key) return e.texture;
  const Pixels px = image_pixels(ref);
  if (px.width <= 0 || px.height <= 0) return nullptr;
  if (e.texture && e.width == px.width && e.height == px.height) {
    pc.backend.update(e.texture, px.width, px.height, px.rgba.data());
  } else {
    if (e.texture) pc.backend.destroy(e.texture);
    e.texture = pc.backend.create(px.width, px.height, px.rgba.data());
  }
  e.width = px.width;
  e.height = px.height;
  e.key = ref.key;
  return e.texture;
}

}  // namespace

void set_texture_backend(const TextureBackend& backend) { context().backend = backend; }

void release_textures() {
  PlotContext& pc = context();
  for (auto& [key, e] : pc.textures)
    if (pc.backend.destroy && e.texture) pc.backend.destroy(e.texture);
  pc.textures.clear();
}

// [SECTION] Figure equality (what the layout cache compares)
namespace {

// Converts to any member type: initialising an aggregate from more and more of these finds how many members it has.
struct AnyMember {
  template <class U>
  operator U() const;  // only named in requires-expressions, never called
};
template <class T, class... Members>
constexpr size_t member_count() {
  if constexpr (requires { T{Members{}..., AnyMember{}}; })
    return member_count<T, Members..., AnyMember>();
  else
    return sizeof...(Members);
}

// Every member of an aggregate figure type as a tuple of references, in declaration order. Nothing lists them, so a
// member added to one of these types is compared by same() with no change here.
template <class T>
auto members(const T& v) {
  constexpr size_t n = member_count<T>();
  static_assert(n >= 1 && n <= 9, "members() binds aggregates of 1 to 9 members");
  if constexpr (n == 1) {
    const auto& [a] = v;
    return std::tie(a);
  } else if constexpr (n == 2) {
    const auto& [a, b] = v;
    return std::tie(a, b);
  } else if constexpr (n == 3) {
    const auto& [a, b, c] = v;
    return std::tie(a, b, c);
  } else if constexpr (n == 4) {
    const auto& [a, b, c, d] = v;
    return std::tie(a, b, c, d);
  } else if constexpr (n == 5) {
    const auto& [a, b, c, d, e] = v;
    return std::tie(a, b, c, d, e);
  } else if constexpr (n == 6) {
    const auto& [a, b, c, d, e, f] = v;
    return std::tie(a, b, c, d, e, f);
  } else if constexpr (n == 7) {
    const auto& [a, b, c, d, e, f, g] = v;
    return std::tie(a, b, c, d, e, f, g);
  } else if constexpr (n == 8) {
    const auto& [a, b, c, d, e, f, g, h] = v;
    return std::tie(a, b, c, d, e, f, g, h);
  } else {
    const auto& [a, b, c, d, e, f, g, h, i] = v;
    return std::tie(a, b, c, d, e, f, g, h, i);
  }
}

// Figure has a constructor, so it is not an aggregate: its members are named here. A structured binding must name
// every member, so adding one to Figure stops the build here until it is listed. The axes and the table, the
// longest to compare, come last.
auto members(const Figure& v) {
  const auto& [id, title, note, subject, grid, grid_cols, shared_colorbar, table, aspect, cell_aspect] = v;
  return std::tie(id, title, note, subject, grid_cols, shared_colorbar, aspect, cell_aspect, grid, table);
}

template <class T>
struct is_vector : std::false_type {};
template <class T>
struct is_vector<std::vector<T>> : std::true_type {};
template <class T>
struct is_variant : std::false_type {};
template <class... T>
struct is_variant<std::variant<T...>> : std::true_type {};

// Equal descriptions draw equal figures. Numbers compare bitwise, so NaN (kAuto, gaps in lines) equals itself.
template <class T>
bool same(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::memcmp(&a, &b, sizeof a) == 0;
  } else if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T> || std::is_same_v<T, std::string>) {
    return a == b;
  } else if constexpr (is_vector<T>::value) {
    if (a.size() != b.size()) return false;
    if constexpr (std::is_floating_point_v<typename T::value_type>)
      return a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0;
    for (size_t i = 0; i < a.size(); ++i)
      if (!same(a[i], b[i])) return false;
    return true;
  } else if constexpr (is_variant<T>::value) {
    return a.index() == b.index() &&
           std::visit([&b](const auto& x) { return same(x, std::get<std::decay_t<decltype(x)>>(b)); }, a);
  } else {
    const auto fa = members(a), fb = members(b);
    return std::apply(
        [&fb](const auto&... x) { return std::apply([&x...](const auto&... y) { return (same(x, y) && ...); }, fb); },
        fa);
  }
}

}  // namespace

// [SECTION] Screen fonts
namespace {
ImFont* g_screen_fonts[4] = {};  // per FontStyle; owned by the atlas app/ builds
}  // namespace

void set_screen_font(FontStyle style, ImFont* font) { g_screen_fonts[static_cast<int>(style)] = font; }
ImFont* screen_font(FontStyle style) {
  ImFont* f = g_screen_fonts[static_cast<int>(style)];
  return f ? f : ImGui::GetFont();
}

// [SECTION] Text pieces
std::vector<std::string_view> draw_pieces(std::string_view text, size_t max_bytes) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    std::string_view piece = utf8_prefix(text, std::max<size_t>(max_bytes, 4));
    if (piece.empty()) piece = text.substr(0, std::min(text.size(), max_bytes));  // never stall
    out.push_back(piece);
    text.remove_prefix(piece.size());
  }
  return out;
}

void add_text(ImDrawList* dl, ImFont* font, float size, ImVec2 pos, ImU32 color, std::string_view text) {
  for (std::string_view piece : draw_pieces(text)) {
    dl->AddText(font, size, pos, color, piece.data(), piece.data() + piece.size());
    if (piece.size() < text.size())
      pos.x += font->CalcTextSizeA(size, FLT_MAX, 0.0f, piece.data(), piece.data() + piece.size()).x;
  }
}

// [SECTION] Math text (typeset lines and tooltips)
void draw_math(ImDrawList* dl, const MathLayout& m, ImVec2 origin, ImU32 color, ImU32 warning) {
  for (const MathRun& r : m.runs) {
    ImFont* font = screen_font(r.style);
    const float ascent = font->Ascent * r.size / font->FontSize;  // where ImGui puts this face's baseline
    note_text_in_use(r.text);  // typeset explanations and tooltips bring their characters into the atlas too
    const std::string text = displayable_text(r.text);
    add_text(dl, font, r.size, ImVec2(origin.x + r.x, origin.y + r.y - ascent), r.warning ? warning : color, text);
  }
  for (const MathRule& r : m.rules)
    dl->AddRectFilled(ImVec2(origin.x + r.x0, origin.y + r.y0), ImVec2(origin.x + r.x1, origin.y + r.y1), color);
  for (const MathStroke& st : m.strokes) {
    std::vector<ImVec2> pts;
    pts.reserve(st.points.size());
    for (const MathPoint& p : st.points) pts.emplace_back(origin.x + p.x, origin.y + p.y);
    dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), color, ImDrawFlags_None, st.width);
  }
}

void math_tooltip(const std::string& text) {
  if (!has_math(text)) return ImGui::SetTooltip("%s", text.c_str());
  ImGui::BeginTooltip();
  const ImU32 color = ImGui::GetColorU32(ImGuiCol_Text);
  const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  const ImU32 warning = to_imgui(ui_color(bg.x + bg.y + bg.z > 1.5f ? Theme::Print : Theme::Dark, UiRole::Warning));
  size_t from = 0;
  while (from <= text.size()) {
    size_t nl = text.find('\n', from);
    if (nl == std::string::npos) nl = text.size();
    const MathLayoutPtr m = layout_math(text.substr(from, nl - from), ImGui::GetFontSize());
    const ImVec2 at = ImGui::GetCursorScreenPos();
    draw_math(ImGui::GetWindowDrawList(), *m, ImVec2(at.x, at.y + m->ascent), color, warning);
    ImGui::Dummy(ImVec2(m->width, std::max(m->ascent + m->descent, ImGui::GetTextLineHeight())));
    from = nl + 1;
  }
  ImGui::EndTooltip();
}

// [SECTION] Rendering primitives
namespace {

struct Painter {
  ImDrawList* dl;
  ImVec2 origin;
  float s;  // screen pixels per logical pixel
  ImVec2 at(Vec2 p) const { return ImVec2(origin.x + p.x * s, origin.y + p.y * s); }
};

void draw_text(const Painter& pt, const Primitive& p) {
  ImFont* font = screen_font(p.style);
  note_text_in_use(p.text);  // the atlas gains glyphs for new characters before the next frame (app/fonts.cpp)
  const std::string text = displayable_text(p.text);  // U+1F642 for what no font draws, as PNG and SVG show it
  const float size = p.size * pt.s;
  const float w = text_width(p.text, p.size, p.style) * pt.s, h = size;
  const ImVec2 anchor = pt.at(p.pos);
  const ImVec2 top_left(anchor.x - p.align_x * w, anchor.y - p.align_y * h);
  if (!p.vertical) {
    add_text(pt.dl, font, size, top_left, to_imgui(p.color), text);
    return;
  }
  // AddText culls glyphs against the clip rect before we rotate them, so lay the text out with an unbounded
  // culling rect. RenderText culls with the rect it is given but keeps the draw command's own clip rect, so the
  // rotated label is still clipped to the window (a full-screen clip rect would leak below scrolled children).
  const int first = pt.dl->VtxBuffer.Size;
  const ImVec4 no_culling(-1e30f, -1e30f, 1e30f, 1e30f);
  ImVec2 pen = top_left;
  for (std::string_view piece : draw_pieces(text)) {
    font->RenderText(pt.dl, size, pen, to_imgui(p.color), no_culling, piece.data(), piece.data() + piece.size());
    pen.x += font->CalcTextSizeA(size, FLT_MAX, 0.0f, piece.data(), piece.data() + piece.size()).x;
  }
  // Rotate the glyph quads just emitted by 90° counter-clockwise about the anchor (reads bottom to top).
  for (int i = first; i < pt.dl->VtxBuffer.Size; ++i) {
    ImVec2& v = pt.dl->VtxBuffer[i].pos;
    const float dx = v.x - anchor.x, dy = v.y - anchor.y;
    v = ImVec2(anchor.x + dy, anchor.y - dx);
  }
}

void draw_image_fallback(const Painter& pt, const Primitive& p, const ImageRef& ref) {
  // No texture backend (tests, unusual builds): a down-sampled grid of rectangles, at most 128 × 128.
  const ImVec2 a = pt.at({p.rect.x0, p.rect.y0}), b = pt.at({p.rect.x1, p.rect.y1});
  if (!ref.heatmap) {
    const int n = 64;
    for (int k = 0; k < n; ++k) {
      const float y0 = a.y + (b.y - a.y) * k / n, y1 = a.y + (b.y - a.y) * (k + 1) / n;
      pt.dl->AddRectFilled(ImVec2(a.x, y0), ImVec2(b.x, y1 + 0.5f),
                           to_imgui(colormap_at(ref.colormap, 1.0 - (k + 0.5) / n)));
    }
    return;
  }
  const HeatmapItem& h = *ref.heatmap;
  const int step = std::max(1, (std::max(ref.rows, ref.cols) + 127) / 128);
  const float cw = (b.x - a.x) / ref.cols, ch = (b.y - a.y) / ref.rows;
  for (int i = 0; i < ref.rows; i += step)
    for (int j = 0; j < ref.cols; j += step) {
      const double v = h.data[size_t(ref.row0 + i) * size_t(h.cols) + size_t(ref.col0 + j)];
      const int di = ref.flip_y ? ref.rows - i - std::min(step, ref.rows - i) : i;
      const int dj = ref.flip_x ? ref.cols - j - std::min(step, ref.cols - j) : j;
      const ImVec2 c0(a.x + cw * dj, a.y + ch * di);
      const ImVec2 c1(c0.x + cw * std::min(step, ref.cols - j), c0.y + ch * std::min(step, ref.rows - i));
      pt.dl->AddRectFilled(c0, c1, to_imgui(cell_color(ref.colormap, v, ref.vmin, ref.vmax)));
    }
}

// Emits the layout's primitives; `textures` receives the texture drawn for each image.
void render(const Painter& pt, const Layout& l, PlotContext& pc, ImGuiID id,
            std::vector<std::pair<int, ImTextureID>>* textures) {
  textures->clear();
  int current_clip = -2;
  for (const Primitive& p : l.prims) {
    if (p.clip != current_clip) {
      if (current_clip >= 0) pt.dl->PopClipRect();
      if (p.clip >= 0) {
        const Rect& c = l.clips[size_t(p.clip)];
        pt.dl->PushClipRect(pt.at({c.x0, c.y0}), pt.at({c.x1, c.y1}), true);
      }
      current_clip = p.clip;
    }
    switch (p.kind) {
      case PrimKind::Rect:
        pt.dl->AddRectFilled(pt.at({p.rect.x0, p.rect.y0}), pt.at({p.rect.x1, p.rect.y1}), to_imgui(p.color));
        break;
      case PrimKind::Polyline: {
        std::vector<ImVec2> pts(p.points.size());
        for (size_t i = 0; i < pts.size(); ++i) pts[i] = pt.at(p.points[i]);
        pt.dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), to_imgui(p.color),
                           p.closed ? ImDrawFlags_Closed : ImDrawFlags_None, p.width * pt.s);
        break;
      }
      case PrimKind::Polygon: {
        std::vector<ImVec2> pts(p.points.size());
        for (size_t i = 0; i < pts.size(); ++i) pts[i] = pt.at(p.points[i]);
        pt.dl->AddConvexPolyFilled(pts.data(), static_cast<int>(pts.size()), to_imgui(p.color));
        break;
      }
      case PrimKind::Text: draw_text(pt, p); break;
      case PrimKind::Image: {
        const ImageRef& ref = l.images[size_t(p.image)];
        ImTextureID tex = texture_for(pc, id, p.image, ref);
        textures->emplace_back(p.image, tex);
        if (!tex) {
          draw_image_fallback(pt, p, ref);
          break;
        }
        ImVec2 uv0(0, 0), uv1(1, 1);
        if (ref.heatmap) {
          const float W = float(ref.heatmap->cols), H = float(ref.heatmap->rows);
          uv0 = ImVec2(ref.col0 / W, ref.row0 / H);
          uv1 = ImVec2((ref.col0 + ref.cols) / W, (ref.row0 + ref.rows) / H);
          if (ref.flip_x) std::swap(uv0.x, uv1.x);
          if (ref.flip_y) std::swap(uv0.y, uv1.y);
        }
        pt.dl->AddImage(tex, pt.at({p.rect.x0, p.rect.y0}), pt.at({p.rect.x1, p.rect.y1}), uv0, uv1);
        break;
      }
    }
  }
  if (current_clip >= 0) pt.dl->PopClipRect();
}

// [SECTION] Draw cache (replaying an unchanged figure's vertices)
// A figure's triangles depend only on its layout, where it is drawn and the font; when none of them changed since
// the last frame, copying the recorded vertices gives the same pixels as re-emitting every line and glyph.

// Copies the triangles emitted since vertex `vtx0` / index `idx0` into `rec`. False when they cannot be replayed:
// a callback command, an index into vertices emitted before the figure, or a run too long for 16-bit indices.
bool record_draw(const ImDrawList& dl, int vtx0, int idx0, DrawRecord* rec) {
  rec->vtx.clear();
  rec->idx.clear();
  rec->segments.clear();
  int first = dl.CmdBuffer.Size - 1;
  while (first > 0 && static_cast<int>(dl.CmdBuffer[first].IdxOffset) > idx0) --first;
  for (int c = std::max(first, 0); c < dl.CmdBuffer.Size; ++c) {
    const ImDrawCmd& cmd = dl.CmdBuffer[c];
    const int begin = std::max(static_cast<int>(cmd.IdxOffset), idx0);
    const int end = static_cast<int>(cmd.IdxOffset + cmd.ElemCount);
    if (end <= begin) continue;
    if (cmd.UserCallback) return false;
    unsigned lo = ~0u, hi = 0;
    for (int k = begin; k < end; ++k) {
      const unsigned v = cmd.VtxOffset + dl.IdxBuffer[k];
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    if (lo < static_cast<unsigned>(vtx0) || hi >= static_cast<unsigned>(dl.VtxBuffer.Size)) return false;
    if (sizeof(ImDrawIdx) == 2 && hi - lo >= 0xFFFF) return false;
    DrawRecord::Segment seg;
    seg.clip = cmd.ClipRect;
    seg.texture = cmd.TextureId;
    seg.vtx_begin = static_cast<int>(rec->vtx.size());
    seg.vtx_count = static_cast<int>(hi - lo + 1);
    seg.idx_begin = static_cast<int>(rec->idx.size());
    seg.idx_count = end - begin;
    rec->vtx.insert(rec->vtx.end(), dl.VtxBuffer.Data + lo, dl.VtxBuffer.Data + hi + 1);
    for (int k = begin; k < end; ++k) rec->idx.push_back(static_cast<ImDrawIdx>(cmd.VtxOffset + dl.IdxBuffer[k] - lo));
    rec->segments.push_back(seg);
  }
  return true;
}

void replay_draw(ImDrawList* dl, const DrawRecord& rec) {
  for (const DrawRecord::Segment& seg : rec.segments) {
    dl->PushClipRect(ImVec2(seg.clip.x, seg.clip.y), ImVec2(seg.clip.z, seg.clip.w));
    dl->PushTextureID(seg.texture);
    dl->PrimReserve(seg.idx_count, seg.vtx_count);  // may start a new vertex block (VtxOffset), so read the base after
    std::memcpy(dl->_VtxWritePtr, rec.vtx.data() + seg.vtx_begin, size_t(seg.vtx_count) * sizeof(ImDrawVert));
    const unsigned base = dl->_VtxCurrentIdx;
    for (int k = 0; k < seg.idx_count; ++k)
      dl->_IdxWritePtr[k] = static_cast<ImDrawIdx>(base + rec.idx[size_t(seg.idx_begin + k)]);
    dl->_VtxWritePtr += seg.vtx_count;
    dl->_IdxWritePtr += seg.idx_count;
    dl->_VtxCurrentIdx += static_cast<unsigned>(seg.vtx_count);
    dl->PopTextureID();
    dl->PopClipRect();
  }
}

bool same(const ImVec2& a, const ImVec2& b) { return a.x == b.x && a.y == b.y; }
bool same(const ImVec4& a, const ImVec4& b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }

// Draws the figure's current layout (st.layout), replaying the recorded vertices when nothing they depend on changed.
void draw_layout(const Painter& pt, FigureState& st, PlotContext& pc, ImGuiID id) {
  DrawRecord& rec = st.record;
  ImFont* font = ImGui::GetFont();
  const ImVec4 clip(pt.dl->GetClipRectMin().x, pt.dl->GetClipRectMin().y, pt.dl->GetClipRectMax().x,
                    pt.dl->GetClipRectMax().y);
  bool replay = rec.valid && rec.layout_generation == st.layout_generation && same(rec.origin, pt.origin) &&
                same(rec.clip, clip) && rec.scale == pt.s && rec.font == font &&
                rec.font_texture == font->ContainerAtlas->TexID && rec.flags == pt.dl->Flags &&
                rec.fringe == pt.dl->_FringeScale;
  // Looking the textures up also keeps them alive; a re-created texture (new id) needs a new record.
  for (size_t i = 0; replay && i < rec.textures.size(); ++i) {
    const auto& [image, texture] = rec.textures[i];
    replay = texture_for(pc, id, image, st.layout.images[size_t(image)]) == texture;
  }
  if (replay) {
    replay_draw(pt.dl, rec);
    return;
  }
  const int vtx0 = pt.dl->VtxBuffer.Size, idx0 = pt.dl->IdxBuffer.Size;
  render(pt, st.layout, pc, id, &rec.textures);
  rec.valid = record_draw(*pt.dl, vtx0, idx0, &rec);
  rec.layout_generation = st.layout_generation;
  rec.origin = pt.origin;
  rec.clip = clip;
  rec.scale = pt.s;
  rec.font = font;
  rec.font_texture = font->ContainerAtlas->TexID;
  rec.flags = pt.dl->Flags;
  rec.fringe = pt.dl->_FringeScale;
}

// [SECTION] Interaction
void zoom(ViewRange& v, const AxesFrame& f, Vec2 mouse, float factor) {
  auto zoom_axis = [factor](double lo, double hi, double at, Scale s, double* out_lo, double* out_hi) {
    if (s == Scale::Log10) {
      const double l0 = std::log10(lo), l1 = std::log10(hi), la = std::log10(at > 0 ? at : lo);
      *out_lo = std::pow(10.0, la + (l0 - la) * factor);
      *out_hi = std::pow(10.0, la + (l1 - la) * factor);
    } else {
      *out_lo = at + (lo - at) * factor;
      *out_hi = at + (hi - at) * factor;
    }
  };
  zoom_axis(f.x0, f.x1, f.x_from_pixel(mouse.x), f.x_scale, &v.x0, &v.x1);
  zoom_axis(f.y0, f.y1, f.y_from_pixel(mouse.y), f.y_scale, &v.y0, &v.y1);
  v.set = true;
}

void pan(ViewRange& v, const AxesFrame& f, Vec2 delta) {
  auto shift = [](double lo, double hi, double from, double to, Scale s, double* out_lo, double* out_hi) {
    if (s == Scale::Log10) {
      const double d = std::log10(from) - std::log10(to);
      *out_lo = std::pow(10.0, std::log10(lo) + d);
      *out_hi = std::pow(10.0, std::log10(hi) + d);
    } else {
      *out_lo = lo + (from - to);
      *out_hi = hi + (from - to);
    }
  };
  const Vec2 c{(f.plot.x0 + f.plot.x1) / 2, (f.plot.y0 + f.plot.y1) / 2};
  shift(f.x0, f.x1, f.x_from_pixel(c.x), f.x_from_pixel(c.x + delta.x), f.x_scale, &v.x0, &v.x1);
  shift(f.y0, f.y1, f.y_from_pixel(c.y), f.y_from_pixel(c.y + delta.y), f.y_scale, &v.y0, &v.y1);
  v.set = true;
}

bool zoomed(const FigureState& st) {
  return std::any_of(st.views.begin(), st.views.end(), [](const ViewRange& v) { return v.set; });
}

// While any axes is zoomed or panned, a "Reset view" button sits in the figure's top-right corner: a zoomed figure
// always says so, and one click (like a double-click or the figure menu's Reset view) returns to the data's ranges.
// Drawn and hit-tested by hand, inside the figure's own item, so it never competes with the figure for the mouse.
struct ResetMarker {
  ImVec2 min, max;
  const char* label;
  bool contains(ImVec2 p) const { return p.x >= min.x && p.x < max.x && p.y >= min.y && p.y < max.y; }
};
ResetMarker reset_marker(ImVec2 origin, float w, float s) {
  const char* label = tr("Reset view");
  const ImVec2 text = ImGui::CalcTextSize(label);
  const ImVec2 size(text.x + 12.0f * s, text.y + 6.0f * s);
  const ImVec2 min(origin.x + w - size.x - 4.0f * s, origin.y + 4.0f * s);
  return {min, ImVec2(min.x + size.x, min.y + size.y), label};
}
void draw_reset_marker(ImDrawList* dl, const ResetMarker& m, bool hot, float s) {
  const ImGuiStyle& style = ImGui::GetStyle();
  dl->AddRectFilled(m.min, m.max,
                    ImGui::GetColorU32(hot ? style.Colors[ImGuiCol_ButtonHovered] : style.Colors[ImGuiCol_Button]),
                    3.0f * s);
  dl->AddRect(m.min, m.max, ImGui::GetColorU32(style.Colors[ImGuiCol_Border]), 3.0f * s);
  dl->AddText(ImVec2(m.min.x + 6.0f * s, m.min.y + 3.0f * s), ImGui::GetColorU32(ImGuiCol_Text), m.label);
}

int axes_at(const Layout& l, Vec2 p) {
  for (size_t i = 0; i < l.frames.size(); ++i)
    if (l.frames[i].plot.contains(p)) return static_cast<int>(i);
  return -1;
}

// [SECTION] Export menu
void set_message(FigureState& st, const std::string& error, const std::vector<std::string>& written) {
  st.message_time = ImGui::GetTime();
  st.message_error = !error.empty();
  if (!error.empty()) {
    st.message = error;
    context().export_status = error;
    return;
  }
  st.message = tr("Wrote");
  for (const std::string& w : written) st.message += " " + w;
  context().export_status = st.message;
}

// The one export settings object (the app's, through ctx) and the GUI's naming: `<panel>-<id>-<subject>` files in
// an absolute folder; an existing file is never overwritten without asking (views/plot/export_naming.h).
void export_menu(const Figure& fig, const Layout& l, FigureState& st, const DrawContext& ctx, const char* panel_id) {
  namespace fs = std::filesystem;
  ExportSettings& ex = ctx.exports ? *ctx.exports : context().exports;
  if (ImGui::IsWindowAppearing()) st.pending_export = 0;  // a question left open last time is not answered now
  const std::string stem = figure_file_stem(panel_id, fig);
  ImGui::TextDisabled(tr("Export %s.png/.svg/.csv"), stem.c_str());
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 20);
  ImGui::InputText((std::string(tr("Folder")) + "###Folder").c_str(), &ex.dir);
  ImGui::SameLine();
  static FileBrowser folder_browser({.folders_only = true, .extensions = {}});  // UI thread; one for every figure
  browse_button("export_dir", folder_browser, &ex.dir);
  const bool absolute = fs::path(ex.dir).is_absolute();
  if (!absolute) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.35f, 1.0f), tr("Use an absolute folder (starting with /)"));
  ImGui::Checkbox(tr("Print theme (white background)"), &ex.print_theme);
  ImGui::Checkbox(tr("16:9 slide (1280 \u00D7 720)"), &ex.slide);
  ImGui::SameLine();
  ImGui::Checkbox(tr("Caption (title and note)"), &ex.caption);
  ImGui::Separator();
  ExportOptions opt;
  opt.theme = ex.print_theme ? Theme::Print : ctx.theme;
  opt.width = l.width;
  opt.height = l.height;
  opt.slide = ex.slide;
  opt.caption = ex.caption;
  opt.views = st.views;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  ImGui::SliderInt((std::string(tr("PNG scale")) + "###PNG scale").c_str(), &ex.png_scale, 1, 4, "%d\xC3\x97");
  opt.scale = static_cast<float>(std::clamp(ex.png_scale, 1, 4));
  auto run = [&](ExportFormats formats, const std::string& as) {
    std::vector<std::string> written;
    const std::string err = export_figure_as(fig, ex.dir, as, formats, opt, &written);
    set_message(st, err, written);
    st.pending_export = 0;
    ImGui::CloseCurrentPopup();
  };
  if (st.pending_export) {  // the files exist: ask
    const auto existing = existing_export_files(ex.dir, stem, st.pending_export);
    ImGui::TextUnformatted(existing.size() == 1 ? tr("This file exists:") : tr("These files exist:"));
    for (const std::string& e : existing) ImGui::TextDisabled("%s", e.c_str());
    if (ImGui::Button(tr("Overwrite"))) run(st.pending_export, stem);
    ImGui::SameLine();
    const std::string other = free_export_stem(ex.dir, stem, st.pending_export);
    if (ImGui::Button(tr("Keep both"))) run(st.pending_export, other);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip(tr("Write %s.* beside it"), other.c_str());
    ImGui::SameLine();
    if (ImGui::Button(tr("Cancel"))) {
      st.pending_export = 0;
      ImGui::CloseCurrentPopup();
    }
    return;
  }
  auto item = [&](const char* label, ExportFormats formats) {
    if (!ImGui::Selectable(tr(label), false, ImGuiSelectableFlags_DontClosePopups) || !absolute) return;
    if (existing_export_files(ex.dir, stem, formats).empty())
      run(formats, stem);
    else
      st.pending_export = formats;
  };
  ImGui::BeginDisabled(!absolute);
  item("PNG", ExportFormat_Png);
  item(N_("SVG (vector)"), ExportFormat_Svg);
  item(N_("CSV (data)"), ExportFormat_Csv);
  item(N_("All three"), ExportFormat_All);
  ImGui::EndDisabled();
  ImGui::Separator();
  if (ImGui::MenuItem(tr("Reset view"), tr("double-click"))) st.views.assign(fig.grid.size(), ViewRange{});
}

}  // namespace

// [SECTION] layout report
namespace {
void note_layout(LayoutReport& report, const Figure& fig, const Layout& layout, float scale) {
  constexpr size_t kMaxProblems = 256;  // the app never takes the report: keep it small
  ++report.layouts;
  for (const std::string& p : layout.problems) {
    if (report.problems.size() >= kMaxProblems) break;
    char size[64];
    std::snprintf(size, sizeof(size), "%.0f \xC3\x97 %.0f logical px at scale %.2f", layout.width, layout.height,
                  scale);
    report.problems.push_back("figure '" + fig.id + "' (" + size + "): " + p);
  }
}
}  // namespace

std::string take_export_status() { return std::exchange(context().export_status, std::string()); }

std::vector<FigureOnScreen> figures_on_screen() {
  const PlotContext& pc = context();
  std::vector<FigureOnScreen> out;
  for (const auto& [id, st] : pc.figures)
    if (st.has_layout && pc.frame - st.last_frame <= 1)
      out.push_back({st.shown.id, st.screen_min.x, st.screen_min.y, st.screen_size.x, st.screen_size.y,
                     st.window_scroll_y, zoomed(st), st.window_visible.x, st.window_visible.y, st.window_visible.z,
                     st.window_visible.w, st.layout.problems});
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return std::tie(a.y, a.x) < std::tie(b.y, b.x); });
  return out;
}

LayoutReport take_layout_report() { return std::exchange(context().report, LayoutReport{}); }

// [SECTION] draw_figure

namespace {
struct Highlight {
  std::string panel, figure;
  int scroll = 0;  // frames left in which to bring it into view (the panel's figures settle in their first frames)
};
Highlight& highlight() {
  static Highlight h;  // UI thread only
  return h;
}
// An accent frame around the highlighted figure, just inside its rectangle (outside, the edges of a figure that fills
// its column were clipped away): drawn after the figure, over its background.
void draw_highlight_frame(const char* panel_id, const std::string& figure_id, ImVec2 origin, ImVec2 size, float s) {
  const Highlight& h = highlight();
  if (h.figure.empty() || h.figure != figure_id || h.panel != panel_id) return;
  const float pad = 3.0f * s, in = 0.5f * pad;  // a line `pad` thick, drawn centred `in` inside the edge
  ImGui::GetWindowDrawList()->AddRect(
      ImVec2(origin.x + in, origin.y + in), ImVec2(origin.x + size.x - in, origin.y + size.y - in),
      ImGui::ColorConvertFloat4ToU32(ImGui::GetStyleColorVec4(ImGuiCol_PlotHistogram)), 4.0f * s, 0, pad);
}
// Scrolls the highlighted figure's top (and a margin) to the top of the view, in the first frames after it was set
// (the panel's figures settle in their first frames) unless the user scrolls first.
void scroll_to_highlight(const char* panel_id, const std::string& figure_id, ImVec2 origin, float s) {
  Highlight& h = highlight();
  if (h.scroll <= 0 || h.figure.empty() || h.figure != figure_id || h.panel != panel_id) return;
  ImGui::SetScrollFromPosY(origin.y - ImGui::GetWindowPos().y - 12.0f * s, 0.0f);
  if (ImGui::IsMouseDown(ImGuiMouseButton_Left) || ImGui::GetIO().MouseWheel != 0.0f)
    h.scroll = 0;  // theirs wins
  else
    --h.scroll;
}
}  // namespace

void set_highlighted_figure(const std::string& panel_id, const std::string& figure_id) {
  Highlight& h = highlight();
  if (h.panel == panel_id && h.figure == figure_id) return;
  h = {panel_id, figure_id, figure_id.empty() ? 0 : 8};
}

namespace {
FigureMenuExtra g_figure_menu_extra = nullptr;  // set once by the app before the first frame
}  // namespace

void set_figure_menu_extra(FigureMenuExtra extra) { g_figure_menu_extra = extra; }

ImGuiID figure_too_wide_key() { return ImHashStr("tw_figure_too_wide"); }

namespace {

// A figure's size on screen (w × h pixels) and its scale (screen pixels per logical pixel).
struct ScreenSize {
  float w, h, scale;
};

// `size`: > 0 a size, ≤ 0 the space left minus that much, y 0 the figure's own proportions.
ScreenSize figure_screen_size(const Figure& fig, ImVec2 size, FigureDrawFlags flags) {
  float s = std::max(0.5f, ImGui::GetFontSize() / kBaseFontSize);  // screen pixels per logical pixel
  ImVec2 avail = ImGui::GetContentRegionAvail();
  // In a column that scrolls sideways the content region is as wide as last frame's content: a figure sized to it
  // kept itself too wide frame after frame (the stepper's figures at 150%, 16 px past the edge, and the text above
  // wrapped out of view with it). The width is the part of the column on screen.
  const ImGuiWindow* window = ImGui::GetCurrentWindow();
  avail.x = std::min(avail.x, window->InnerRect.Max.x - window->WindowPadding.x - ImGui::GetCursorScreenPos().x);
  const Vec2 natural = default_figure_size(fig);
  float w = size.x > 0 ? size.x : avail.x + size.x;
  w = std::max(w, 120.0f * s);
  float h = size.y > 0 ? size.y : (size.y < 0 ? avail.y + size.y : w * natural.y / natural.x);
  h = std::max(h, 90.0f * s);
  // Never squeezed below a readable size (the figure-quality test checks kMinReadableFraction of the export size):
  // a narrow column (a zoom without a larger window) grows the figure in its own proportions and scrolls instead.
  if (!(flags & FigureDrawFlags_NoMinSize)) {
    // Capped for wide grids of small multiples, whose cells read at a smaller share of their export width.
    const float min_w = std::min(kMinReadableFraction * natural.x, kMinReadableWidth);
    const float grow = std::max(1.0f, min_w * s / w);
    w *= grow;
    h *= grow;
    // A short strip (a wide figure stacked in a narrow column) keeps half its export height: at a large zoom its
    // wrapped title, labels and note would otherwise leave no room for the plot area.
    h = std::max(h, kMinReadableHeightFraction * natural.y * s);
    // Wider than its column at a zoom (a lesson's column beside it at 200%: 960 px in 620): the figure is drawn at
    // a smaller scale, down to 100%, so it shows whole, title included, instead of scrolling sideways. Its layout
    // (logical size) stays the readable one.
    const float column = avail.x;
    const float fit = column > 0 && w > column + 1.0f ? std::max(std::min(s, 1.0f) / s, column / w) : 1.0f;
    if (fit < 1.0f) {
      w *= fit;
      h *= fit;
      s *= fit;
    }
    if (column > 0 && w > column + 1.0f) ImGui::GetStateStorage()->SetBool(figure_too_wide_key(), true);
  }
  return {w, h, s};
}

// The mouse on a figure: Ctrl+wheel zooms the axes under the cursor, a drag pans it, a double click or a click on
// the reset marker shows the whole data again. `mouse` in logical pixels, s the scale.
void figure_input(FigureState& st, const Figure& fig, const Layout& layout, Vec2 mouse, bool on_marker, bool hovered,
                  bool active, float s) {
  const ImGuiIO& io = ImGui::GetIO();
  if (on_marker) {
    if (ImGui::IsItemClicked(ImGuiMouseButton_Left)) st.views.assign(fig.grid.size(), ViewRange{});
  } else {
    // The wheel scrolls the window; Ctrl+wheel zooms the axes under the cursor (ImGui does not scroll with Ctrl).
    if (hovered && io.MouseWheel != 0 && io.KeyCtrl) {
      const int a = axes_at(layout, mouse);
      if (a >= 0) zoom(st.views[size_t(a)], layout.frames[size_t(a)], mouse, std::pow(0.85f, io.MouseWheel));
    }
    if (ImGui::IsItemClicked(ImGuiMouseButton_Left)) st.drag_axes = axes_at(layout, mouse);
    if (active && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 0.0f) && st.drag_axes >= 0 &&
        size_t(st.drag_axes) < layout.frames.size() && (io.MouseDelta.x != 0 || io.MouseDelta.y != 0))
      pan(st.views[size_t(st.drag_axes)], layout.frames[size_t(st.drag_axes)],
          {-io.MouseDelta.x / s, -io.MouseDelta.y / s});
    if (hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) st.views.assign(fig.grid.size(), ViewRange{});
  }
}

}  // namespace

bool draw_figure(const Figure& fig, const DrawContext& ctx, const char* panel_id, ImVec2 size, FigureDrawFlags flags) {
  PlotContext& pc = context();
  if (ImGui::GetFrameCount() != pc.frame) {
    pc.frame = ImGui::GetFrameCount();
    collect_garbage(pc);
  }
  const ScreenSize size_px = figure_screen_size(fig, size, flags);
  const float w = size_px.w, h = size_px.h, s = size_px.scale;

  ImGui::PushID(fig.id.c_str());
  const ImGuiID id = ImGui::GetID("##figure");
  FigureState& st = pc.figures[id];
  // A zoom belongs to the data it was made on and to the time the figure was on screen: a figure not drawn in the
  // last frame (its panel closed, reopened later) or whose data changed starts again from its own ranges.
  const bool was_hidden = st.last_frame != 0 && pc.frame != st.last_frame && pc.frame != st.last_frame + 1;
  const bool data_changed = st.has_layout && !same(fig, st.shown);
  if (was_hidden || data_changed || st.views.size() != fig.grid.size()) st.views.assign(fig.grid.size(), ViewRange{});
  st.last_frame = pc.frame;

  const ImVec2 origin = ImGui::GetCursorScreenPos();
  st.screen_min = origin;
  st.screen_size = ImVec2(w, h);
  st.window_scroll_y = ImGui::GetScrollY();
  const ImRect inner = ImGui::GetCurrentWindow()->InnerRect;
  st.window_visible = ImVec4(inner.Min.x, inner.Min.y, inner.GetWidth(), inner.GetHeight());
  ImGui::InvisibleButton("##figure", ImVec2(w, h),
                         ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
  const bool hovered = ImGui::IsItemHovered();
  const bool active = ImGui::IsItemActive();
  scroll_to_highlight(panel_id, fig.id, origin, s);
  if (!ImGui::IsItemVisible()) {  // scrolled out of view: keep the space, skip layout and drawing
    ImGui::PopID();
    return false;
  }

  LayoutOptions lo;
  lo.width = w / s;
  lo.height = h / s;
  lo.theme = ctx.theme;
  lo.views = st.views;
  lo.background = !(flags & FigureDrawFlags_NoBackground);
  if (!st.has_layout || !same(lo, st.shown_options) || !same(fig, st.shown)) {
    st.shown = fig;  // the layout points into this copy
    st.shown_options = std::move(lo);
    st.layout = layout_figure(st.shown, st.shown_options);
    st.has_layout = true;
    ++st.layout_generation;
    note_layout(pc.report, fig, st.layout, s);
  }
  const Layout& layout = st.layout;

  const ImGuiIO& io = ImGui::GetIO();
  const Vec2 mouse{(io.MousePos.x - origin.x) / s, (io.MousePos.y - origin.y) / s};
  const ResetMarker marker = reset_marker(origin, w, s);
  const bool on_marker = zoomed(st) && marker.contains(io.MousePos);
  if (!(flags & FigureDrawFlags_NoInteraction)) figure_input(st, fig, layout, mouse, on_marker, hovered, active, s);

  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(origin, ImVec2(origin.x + w, origin.y + h), true);
  const Painter pt{dl, origin, s};
  draw_layout(pt, st, pc, id);

  if (hovered && !(active && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 2.0f))) {
    const HoverInfo info = hover_at(layout, mouse);
    const ImU32 highlight = to_imgui(layout.theme.text);
    if (info.has_point) dl->AddCircle(pt.at(info.point), 5.0f * s, highlight, 16, 1.5f * s);
    if (info.has_cell)
      dl->AddRect(pt.at({info.cell.x0, info.cell.y0}), pt.at({info.cell.x1, info.cell.y1}), highlight, 0, 0, 1.5f * s);
    if (!info.text.empty()) math_tooltip(info.text);
  }
  dl->PopClipRect();
  draw_highlight_frame(panel_id, fig.id, origin, ImVec2(w, h), s);
  if (!(flags & FigureDrawFlags_NoInteraction) && zoomed(st)) draw_reset_marker(dl, marker, hovered && on_marker, s);

  if (!(flags & FigureDrawFlags_NoExportMenu) && ImGui::BeginPopupContextItem("##figure_menu")) {
    export_menu(fig, layout, st, ctx, panel_id);
    if (g_figure_menu_extra) g_figure_menu_extra(panel_id, fig.id);
    ImGui::EndPopup();
  }
  if (!st.message.empty() && ImGui::GetTime() - st.message_time < 8.0) {
    request_frame_after(8.0 - (ImGui::GetTime() - st.message_time));  // a frame to take the message away
    const ImVec4 color = st.message_error ? ImVec4(1.0f, 0.45f, 0.35f, 1.0f) : ImVec4(0.45f, 0.85f, 0.5f, 1.0f);
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + w);
    ImGui::TextColored(color, "%s", st.message.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::PopID();
  return hovered;
}

}  // namespace tw::plot
