// PNG export: a small software rasteriser (no OpenGL, no display) over the layout primitives.
// Fills use the non-zero winding rule with exact horizontal coverage and 5 sub-scanlines per pixel row, which
// anti-aliases edges; a stroked polyline is filled as one path (segment quads + round joins), so overlapping
// pieces of the same line never double-blend. Text comes from stb_truetype with the same font as the screen.

#include <stb_image_write.h>

#include <algorithm>
#include <cmath>

#include "views/plot/export.h"
#include "views/plot/text.h"

namespace tw::plot {

namespace {

struct Canvas {
  int w = 0, h = 0;
  std::vector<uint8_t> rgba;

  void blend(int x, int y, uint32_t color, float coverage) {
    const float a = std::min(coverage, 1.0f) * (alpha(color) / 255.0f);
    if (a <= 0) return;
    uint8_t* d = &rgba[(size_t(y) * size_t(w) + size_t(x)) * 4];
    const uint8_t src[3] = {red(color), green(color), blue(color)};
    if (a >= 1.0f) {  // opaque: most pixels of fills and images
      d[0] = src[0], d[1] = src[1], d[2] = src[2], d[3] = 255;
      return;
    }
    for (int k = 0; k < 3; ++k) d[k] = static_cast<uint8_t>(src[k] * a + d[k] * (1 - a) + 0.5f);
    d[3] = static_cast<uint8_t>(255 * a + d[3] * (1 - a) + 0.5f);
  }
};

struct IRect {
  int x0, y0, x1, y1;  // half-open pixel range
};

IRect clip_rect(const Canvas& c, const Layout& l, int clip, float scale) {
  IRect r{0, 0, c.w, c.h};
  if (clip >= 0) {
    const Rect& k = l.clips[size_t(clip)];
    r.x0 = std::max(r.x0, static_cast<int>(std::floor(k.x0 * scale)));
    r.y0 = std::max(r.y0, static_cast<int>(std::floor(k.y0 * scale)));
    r.x1 = std::min(r.x1, static_cast<int>(std::ceil(k.x1 * scale)));
    r.y1 = std::min(r.y1, static_cast<int>(std::ceil(k.y1 * scale)));
  }
  return r;
}

struct Edge {
  float x0, y0, x1, y1;  // y0 < y1
  int dir;               // +1 downward in the source polygon, −1 upward
};

// Fills the union of `polys` (each oriented counter-clockwise on screen by the caller or not: orientation is
// normalised here so overlapping polygons add up instead of cancelling).
void fill_nonzero(Canvas& c, const std::vector<std::vector<Vec2>>& polys, uint32_t color, IRect clip) {
  std::vector<Edge> edges;
  float ymin = INFINITY, ymax = -INFINITY, xmin = INFINITY, xmax = -INFINITY;
  for (const auto& poly : polys) {
    if (poly.size() < 3) continue;
    double area = 0;
    for (size_t i = 0; i < poly.size(); ++i) {
      const Vec2 a = poly[i], b = poly[(i + 1) % poly.size()];
      area += double(a.x) * b.y - double(b.x) * a.y;
    }
    const int sign = area < 0 ? -1 : 1;
    for (size_t i = 0; i < poly.size(); ++i) {
      const Vec2 a = poly[i], b = poly[(i + 1) % poly.size()];
      xmin = std::min({xmin, a.x, b.x}), xmax = std::max({xmax, a.x, b.x});
      ymin = std::min({ymin, a.y, b.y}), ymax = std::max({ymax, a.y, b.y});
      if (a.y == b.y) continue;
      if (a.y < b.y)
        edges.push_back({a.x, a.y, b.x, b.y, sign});
      else
        edges.push_back({b.x, b.y, a.x, a.y, -sign});
    }
  }
  if (edges.empty()) return;
  const int x0 = std::max(clip.x0, static_cast<int>(std::floor(xmin)));
  const int x1 = std::min(clip.x1, static_cast<int>(std::ceil(xmax)) + 1);
  const int y0 = std::max(clip.y0, static_cast<int>(std::floor(ymin)));
  const int y1 = std::min(clip.y1, static_cast<int>(std::ceil(ymax)));
  if (x0 >= x1 || y0 >= y1) return;
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.y0 < b.y0; });

  constexpr int kSub = 5;
  std::vector<float> cov(size_t(x1 - x0) + 1);
  std::vector<const Edge*> active;
  std::vector<std::pair<float, int>> crossings;
  size_t next = 0;
  for (int py = y0; py < y1; ++py) {
    std::fill(cov.begin(), cov.end(), 0.0f);
    while (next < edges.size() && edges[next].y0 < py + 1) active.push_back(&edges[next++]);
    active.erase(std::remove_if(active.begin(), active.end(), [py](const Edge* e) { return e->y1 <= py; }),
                 active.end());
    bool any = false;
    for (int k = 0; k < kSub; ++k) {
      const float sy = py + (k + 0.5f) / kSub;
      crossings.clear();
      for (const Edge* e : active)
        if (e->y0 <= sy && sy < e->y1)
          crossings.push_back({e->x0 + (sy - e->y0) * (e->x1 - e->x0) / (e->y1 - e->y0), e->dir});
      if (crossings.size() < 2) continue;
      std::sort(crossings.begin(), crossings.end());
      int wind = 0;
      for (size_t i = 0; i + 1 < crossings.size(); ++i) {
        wind += crossings[i].second;
        if (wind == 0) continue;
        // Span [xa, xb) is inside: add exact horizontal coverage, 1/kSub per sub-scanline.
        const float xa = std::clamp(crossings[i].first, float(x0), float(x1));
        const float xb = std::clamp(crossings[i + 1].first, float(x0), float(x1));
        if (xb <= xa) continue;
        any = true;
        const int ia = static_cast<int>(std::floor(xa)), ib = static_cast<int>(std::floor(xb));
        constexpr float w = 1.0f / kSub;
        if (ia == ib) {
          cov[size_t(ia - x0)] += (xb - xa) * w;
        } else {
          cov[size_t(ia - x0)] += (ia + 1 - xa) * w;
          for (int x = ia + 1; x < ib; ++x) cov[size_t(x - x0)] += w;
          if (ib < x1) cov[size_t(ib - x0)] += (xb - ib) * w;
        }
      }
    }
    if (!any) continue;
    for (int x = x0; x < x1; ++x)
      if (cov[size_t(x - x0)] > 0.001f) c.blend(x, py, color, cov[size_t(x - x0)]);
  }
}

std::vector<Vec2> disc_points(Vec2 c, float r) {
  const int n = std::clamp(static_cast<int>(r * 4), 8, 32);
  std::vector<Vec2> pts;
  for (int k = 0; k < n; ++k) {
    const float a = 6.2831853f * k / n;
    pts.push_back({c.x + r * std::cos(a), c.y + r * std::sin(a)});
  }
  return pts;
}

void stroke(Canvas& c, const std::vector<Vec2>& pts_in, bool closed, float width, uint32_t color, IRect clip) {
  std::vector<Vec2> pts = pts_in;
  if (closed && !pts.empty()) pts.push_back(pts.front());
  const float hw = std::max(width, 0.5f) * 0.5f;
  std::vector<std::vector<Vec2>> polys;
  for (size_t i = 0; i + 1 < pts.size(); ++i) {
    const Vec2 a = pts[i], b = pts[i + 1];
    const float dx = b.x - a.x, dy = b.y - a.y, len = std::hypot(dx, dy);
    if (len < 1e-6f) continue;
    const float nx = -dy / len * hw, ny = dx / len * hw;
    polys.push_back({{a.x + nx, a.y + ny}, {b.x + nx, b.y + ny}, {b.x - nx, b.y - ny}, {a.x - nx, a.y - ny}});
    if (i > 0 && hw > 0.75f) polys.push_back(disc_points(a, hw));  // round join
  }
  if (closed && pts.size() > 2 && hw > 0.75f) polys.push_back(disc_points(pts.front(), hw));
  fill_nonzero(c, polys, color, clip);
}

void fill_rect(Canvas& c, Rect r, uint32_t color, IRect clip) {
  fill_nonzero(c, {{{r.x0, r.y0}, {r.x1, r.y0}, {r.x1, r.y1}, {r.x0, r.y1}}}, color, clip);
}

void draw_text(Canvas& c, const Primitive& p, float scale, IRect clip) {
  const float size = p.size * scale;
  const float w = text_width(p.text, size);
  const Vec2 anchor{p.pos.x * scale, p.pos.y * scale};
  const float left = anchor.x - p.align_x * w, top = std::round(anchor.y - p.align_y * size);
  const TextBitmap bmp = render_text(p.text, size, left);
  const int ox = static_cast<int>(std::floor(left)), oy = static_cast<int>(top);
  for (int by = 0; by < bmp.height; ++by)
    for (int bx = 0; bx < bmp.width; ++bx) {
      const uint8_t a = bmp.alpha[size_t(by) * size_t(bmp.width) + size_t(bx)];
      if (!a) continue;
      int x = ox + bx, y = oy + by;
      if (p.vertical) {  // 90° counter-clockwise about the anchor, as on screen
        const float dx = x + 0.5f - anchor.x, dy = y + 0.5f - anchor.y;
        x = static_cast<int>(std::floor(anchor.x + dy));
        y = static_cast<int>(std::floor(anchor.y - dx));
      }
      if (x < clip.x0 || y < clip.y0 || x >= clip.x1 || y >= clip.y1) continue;
      c.blend(x, y, p.color, a / 255.0f);
    }
}

void draw_image(Canvas& c, const Primitive& p, const ImageRef& ref, float scale, IRect clip) {
  const Pixels px = visible_pixels(ref);
  if (px.width <= 0 || px.height <= 0) return;
  const float rx0 = p.rect.x0 * scale, ry0 = p.rect.y0 * scale, rw = p.rect.width() * scale,
              rh = p.rect.height() * scale;
  const int x0 = std::max(clip.x0, static_cast<int>(std::round(rx0))),
            x1 = std::min(clip.x1, static_cast<int>(std::round(rx0 + rw)));
  const int y0 = std::max(clip.y0, static_cast<int>(std::round(ry0))),
            y1 = std::min(clip.y1, static_cast<int>(std::round(ry0 + rh)));
  for (int y = y0; y < y1; ++y) {
    const int sy = std::clamp(static_cast<int>((y + 0.5f - ry0) / rh * px.height), 0, px.height - 1);
    for (int x = x0; x < x1; ++x) {
      const int sx = std::clamp(static_cast<int>((x + 0.5f - rx0) / rw * px.width), 0, px.width - 1);
      const uint8_t* s = &px.rgba[(size_t(sy) * size_t(px.width) + size_t(sx)) * 4];
      c.blend(x, y, rgba(s[0], s[1], s[2], s[3]), 1.0f);
    }
  }
}

void append_bytes(void* context, void* data, int size) {
  static_cast<std::string*>(context)->append(static_cast<const char*>(data), size_t(size));
}

}  // namespace

std::string encode_png(int width, int height, const std::vector<uint8_t>& rgba) {
  std::string out;
  if (width <= 0 || height <= 0 || rgba.size() < size_t(width) * size_t(height) * 4) return out;
  // A fixed, moderate level: deterministic output, and about twice as fast as stb's default of 8 for flat
  // figure images that compress well anyway.
  stbi_write_png_compression_level = 4;
  stbi_write_png_to_func(append_bytes, &out, width, height, 4, rgba.data(), width * 4);
  return out;
}

RenderedPng render_png(const Figure& fig, const ExportOptions& options) {
  RenderedPng out;
  if (!figure_font_error().empty()) {
    out.error = figure_font_error();
    return out;
  }
  if (!(options.scale >= 1 && options.scale <= 4)) {
    out.error = "PNG scale must be between 1 and 4";
    return out;
  }
  LayoutOptions lo;
  const Vec2 size = default_figure_size(fig);
  lo.width = options.width > 0 ? options.width : size.x;
  lo.height = options.height > 0 ? options.height : size.y;
  lo.theme = options.theme;
  lo.views = options.views;
  const Layout l = layout_figure(fig, lo);
  const float s = options.scale;
  Canvas c;
  c.w = static_cast<int>(std::lround(l.width * s));
  c.h = static_cast<int>(std::lround(l.height * s));
  if (c.w <= 0 || c.h <= 0 || double(c.w) * c.h > 64.0e6) {
    out.error = "PNG size " + std::to_string(c.w) + " × " + std::to_string(c.h) + " is out of range";
    return out;
  }
  c.rgba.assign(size_t(c.w) * size_t(c.h) * 4, 0);
  auto scaled = [s](const std::vector<Vec2>& pts) {
    std::vector<Vec2> r(pts.size());
    for (size_t i = 0; i < pts.size(); ++i) r[i] = {pts[i].x * s, pts[i].y * s};
    return r;
  };
  for (const Primitive& p : l.prims) {
    const IRect clip = clip_rect(c, l, p.clip, s);
    switch (p.kind) {
      case PrimKind::Rect:
        fill_rect(c, {p.rect.x0 * s, p.rect.y0 * s, p.rect.x1 * s, p.rect.y1 * s}, p.color, clip);
        break;
      case PrimKind::Polyline: stroke(c, scaled(p.points), p.closed, p.width * s, p.color, clip); break;
      case PrimKind::Polygon: fill_nonzero(c, {scaled(p.points)}, p.color, clip); break;
      case PrimKind::Text: draw_text(c, p, s, clip); break;
      case PrimKind::Image: draw_image(c, p, l.images[size_t(p.image)], s, clip); break;
    }
  }
  out.width = c.w;
  out.height = c.h;
  out.png = encode_png(c.w, c.h, c.rgba);
  out.rgba = std::move(c.rgba);
  if (out.png.empty()) out.error = "PNG encoding failed";
  return out;
}

}  // namespace tw::plot
