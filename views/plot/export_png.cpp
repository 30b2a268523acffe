// PNG export: a small software rasteriser (no OpenGL, no display) over the layout primitives.
// Fills use the non-zero winding rule with exact horizontal coverage and 5 sub-scanlines per pixel row, which
// anti-aliases edges; a stroked polyline is filled as one path (segment quads + round joins), so overlapping
// pieces of the same line never double-blend. Text comes from FreeType with the font chain the screen uses (text.h).
// The PNG file is written here too, compressed by zlib (encode_png says why not by stb_image_write).
//
// Index of this file:
// [SECTION] fills: fill_nonzero (every shape) and fill_rect (its fast path for rectangles), see export_raster.h
// [SECTION] primitives: strokes, text, images
// [SECTION] PNG encoding
// [SECTION] render_png: layout → canvas → PNG

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/base/i18n.h"
#include "views/plot/export.h"
#include "views/plot/export_raster.h"
#include "views/plot/text.h"

namespace tw::plot::detail {

// [SECTION] fills
namespace {

struct Edge {
  float x0, y0, x1, y1;  // y0 < y1
  int dir;               // +1 downward in the source polygon, −1 upward
};

}  // namespace

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
    const int sign = area < 0 ? -1 : 1;  // either winding: overlapping polygons add up instead of cancelling
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

  const bool opaque = alpha(color) == 255;
  const uint8_t solid[4] = {red(color), green(color), blue(color), 255};
  constexpr int kSub = 5;
  std::vector<float> cov(size_t(x1 - x0) + 1);
  std::vector<const Edge*> active;
  std::vector<std::pair<float, int>> crossings;
  size_t next = 0;
  for (int py = y0; py < y1; ++py) {
    while (next < edges.size() && edges[next].y0 < py + 1) active.push_back(&edges[next++]);
    active.erase(std::remove_if(active.begin(), active.end(), [py](const Edge* e) { return e->y1 <= py; }),
                 active.end());
    // Pixels this row touched, [lo, hi]: only they are blended and cleared, so a thin line across a wide
    // bounding box costs its own width per row, not the box's.
    int lo = x1, hi = x0 - 1;
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
        const int ia = static_cast<int>(std::floor(xa)), ib = static_cast<int>(std::floor(xb));
        lo = std::min(lo, ia), hi = std::max(hi, std::min(ib, x1 - 1));
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
    for (int x = lo; x <= hi; ++x) {
      float& v = cov[size_t(x - x0)];
      if (opaque && v >= 1.0f)  // what blend() does at full coverage, without its arithmetic: most pixels of a fill
        std::memcpy(&c.rgba[(size_t(py) * size_t(c.w) + size_t(x)) * 4], solid, 4);
      else if (v > 0.001f)
        c.blend(x, py, color, v);
      v = 0;  // ready for the next row
    }
  }
}

void fill_rect(Canvas& c, Rect r, uint32_t color, IRect clip) {
  // Every step below is fill_nonzero's for the rectangle's two vertical edges, with the same float expressions:
  // on each sub-scanline inside the rectangle a column receives the same coverage h(x), so a pixel's sum is n
  // additions of h(x) in a row, and interior pixels of fully covered rows come out at exactly 1.
  const float rx0 = std::min(r.x0, r.x1), rx1 = std::max(r.x0, r.x1);
  const float ry0 = std::min(r.y0, r.y1), ry1 = std::max(r.y0, r.y1);
  if (!std::isfinite(rx0) || !std::isfinite(rx1) || !std::isfinite(ry0) || !std::isfinite(ry1)) {
    fill_nonzero(c, {{{r.x0, r.y0}, {r.x1, r.y0}, {r.x1, r.y1}, {r.x0, r.y1}}}, color, clip);
    return;
  }
  if (!(ry0 < ry1)) return;  // only horizontal edges: fill_nonzero has nothing to fill either
  const int x0 = std::max(clip.x0, static_cast<int>(std::floor(rx0)));
  const int x1 = std::min(clip.x1, static_cast<int>(std::ceil(rx1)) + 1);
  const int y0 = std::max(clip.y0, static_cast<int>(std::floor(ry0)));
  const int y1 = std::min(clip.y1, static_cast<int>(std::ceil(ry1)));
  if (x0 >= x1 || y0 >= y1) return;
  const float xa = std::clamp(rx0, float(x0), float(x1));
  const float xb = std::clamp(rx1, float(x0), float(x1));
  if (xb <= xa) return;
  const int ia = static_cast<int>(std::floor(xa)), ib = static_cast<int>(std::floor(xb));

  constexpr int kSub = 5;
  constexpr float w = 1.0f / kSub;
  const bool opaque = alpha(color) == 255;
  const uint8_t solid[4] = {red(color), green(color), blue(color), 255};
  auto put = [&](int x, int y, float v) {
    if (opaque && v >= 1.0f)
      std::memcpy(&c.rgba[(size_t(y) * size_t(c.w) + size_t(x)) * 4], solid, 4);
    else if (v > 0.001f)
      c.blend(x, y, color, v);
  };
  for (int py = y0; py < y1; ++py) {
    int n = 0;  // sub-scanlines of this row inside the rectangle
    for (int k = 0; k < kSub; ++k) {
      const float sy = py + (k + 0.5f) / kSub;
      if (ry0 <= sy && sy < ry1) ++n;
    }
    if (n == 0) continue;
    auto sum = [n](float h) {
      float v = 0;
      for (int k = 0; k < n; ++k) v += h;
      return v;
    };
    if (ia == ib) {
      put(ia, py, sum((xb - xa) * w));
      continue;
    }
    put(ia, py, sum((ia + 1 - xa) * w));
    const float inside = sum(w);
    if (ia + 1 < ib) {
      if (opaque && inside >= 1.0f) {
        uint8_t* d = &c.rgba[(size_t(py) * size_t(c.w) + size_t(ia + 1)) * 4];
        for (int x = ia + 1; x < ib; ++x, d += 4) std::memcpy(d, solid, 4);
      } else {
        for (int x = ia + 1; x < ib; ++x) put(x, py, inside);
      }
    }
    if (ib < x1) put(ib, py, sum((xb - ib) * w));
  }
}

}  // namespace tw::plot::detail

namespace tw::plot {

namespace {

using detail::Canvas;
using detail::fill_nonzero;
using detail::fill_rect;
using detail::IRect;

// [SECTION] primitives
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

// True when `q` is the four corners of an axis-aligned rectangle, in either winding; `r` receives it.
bool axis_aligned_rect(const std::vector<Vec2>& q, Rect* r) {
  if (q.size() != 4) return false;
  const bool horizontal_first = q[0].y == q[1].y && q[1].x == q[2].x && q[2].y == q[3].y && q[3].x == q[0].x;
  const bool vertical_first = q[0].x == q[1].x && q[1].y == q[2].y && q[2].x == q[3].x && q[3].y == q[0].y;
  if (!horizontal_first && !vertical_first) return false;
  *r = {std::min(q[0].x, q[2].x), std::min(q[0].y, q[2].y), std::max(q[0].x, q[2].x), std::max(q[0].y, q[2].y)};
  return true;
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
  Rect box;
  if (polys.size() == 1 && axis_aligned_rect(polys[0], &box))  // grid lines, ticks, axis lines
    fill_rect(c, box, color, clip);
  else
    fill_nonzero(c, polys, color, clip);
}

void draw_text(Canvas& c, const Primitive& p, float scale, IRect clip) {
  const float size = p.size * scale;
  const float w = text_width(p.text, size, p.style);
  const Vec2 anchor{p.pos.x * scale, p.pos.y * scale};
  const float left = anchor.x - p.align_x * w, top = std::round(anchor.y - p.align_y * size);
  const TextBitmap bmp = render_text(p.text, size, left, p.style);
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

// [SECTION] PNG encoding
// Big-endian 32-bit integer, as PNG stores every length and dimension.
void put_u32(std::string& out, uint32_t v) {
  const char b[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
  out.append(b, 4);
}

// A chunk is its length, type, data, then the CRC-32 of type and data. begin_chunk writes a placeholder length
// and returns where the type starts; end_chunk fills in the length and appends the CRC, so data can be
// streamed straight into `out` in between.
size_t begin_chunk(std::string& out, const char (&type)[5]) {
  put_u32(out, 0);
  out.append(type, 4);
  return out.size() - 4;
}

void end_chunk(std::string& out, size_t type_at) {
  const size_t size = out.size() - type_at - 4;
  for (int b = 0; b < 4; ++b) out[type_at - 4 + size_t(b)] = static_cast<char>(uint32_t(size) >> (24 - 8 * b));
  const uLong crc = crc32_z(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(out.data() + type_at), 4 + size);
  put_u32(out, static_cast<uint32_t>(crc));
}

// Compresses what `z` holds as input and appends the output to `out`; Z_FINISH ends the stream.
bool deflate_append(z_stream& z, int flush, std::string& out) {
  unsigned char buffer[1 << 15];
  for (;;) {
    z.next_out = buffer;
    z.avail_out = sizeof buffer;
    const int status = deflate(&z, flush);
    if (status == Z_STREAM_ERROR) return false;
    out.append(reinterpret_cast<const char*>(buffer), sizeof buffer - z.avail_out);
    if (flush == Z_FINISH ? status == Z_STREAM_END : z.avail_in == 0 && z.avail_out != 0) return true;
  }
}

}  // namespace

std::string encode_png(int width, int height, const std::vector<uint8_t>& rgba) {
  if (width <= 0 || height <= 0 || rgba.size() < size_t(width) * size_t(height) * 4) return {};
  const size_t pixels = size_t(width) * size_t(height);
  // Exported figures have an opaque background: dropping the alpha byte is lossless there and leaves a quarter
  // less to compress. Images with any transparency stay RGBA.
  uint8_t min_alpha = 255;
  for (size_t i = 0; i < pixels; ++i) min_alpha = std::min(min_alpha, rgba[i * 4 + 3]);  // no early exit: vectorises
  const bool opaque = min_alpha == 255;
  const size_t channels = opaque ? 3 : 4;

  std::string out;
  const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  out.append(reinterpret_cast<const char*>(signature), sizeof signature);
  const size_t ihdr = begin_chunk(out, "IHDR");
  put_u32(out, uint32_t(width));
  put_u32(out, uint32_t(height));
  const char format[5] = {8, char(opaque ? 2 : 6), 0, 0, 0};  // 8 bits per channel, RGB or RGBA; deflate,
  out.append(format, 5);                                      // per-row filters, no interlacing
  end_chunk(out, ihdr);

  // Every row uses the Up filter (difference to the row above): the background and the flat colours of bars
  // and upscaled heatmap cells become runs of zeros that deflate as long matches. stb_image_write tried all
  // five filters on every row and then ran its own LZ77 with fixed Huffman codes, which was about 70% of the
  // CPU time of a headless export; one filter and zlib's fastest level are several times faster and give
  // smaller files. Rows are filtered and compressed one at a time, straight into the IDAT chunk.
  // Fixed settings: the same image gives the same bytes with a given zlib.
  z_stream z{};
  if (deflateInit2(&z, 1, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return {};
  const size_t idat = begin_chunk(out, "IDAT");
  const size_t row_bytes = size_t(width) * 4;
  const std::vector<uint8_t> zero_row(row_bytes, 0);
  std::vector<unsigned char> diff(row_bytes);
  std::vector<unsigned char> line(1 + size_t(width) * channels + 1);  // + 1: slack for 4-byte stores below
  line[0] = 2;                                                        // filter type Up
  bool ok = true;
  for (int y = 0; y < height && ok; ++y) {
    const uint8_t* src = &rgba[size_t(y) * row_bytes];
    const uint8_t* above = y > 0 ? src - row_bytes : zero_row.data();
    unsigned char* dst = line.data() + 1;
    if (opaque) {
      for (size_t i = 0; i < row_bytes; ++i) diff[i] = static_cast<unsigned char>(src[i] - above[i]);
      for (size_t x = 0; x < size_t(width); ++x) std::memcpy(dst + x * 3, &diff[x * 4], 4);  // RGB, then overwritten
    } else {
      for (size_t i = 0; i < row_bytes; ++i) dst[i] = static_cast<unsigned char>(src[i] - above[i]);
    }
    z.next_in = line.data();
    z.avail_in = static_cast<uInt>(line.size() - 1);
    ok = deflate_append(z, y + 1 == height ? Z_FINISH : Z_NO_FLUSH, out);
  }
  deflateEnd(&z);
  if (!ok) return {};
  end_chunk(out, idat);
  end_chunk(out, begin_chunk(out, "IEND"));
  return out;
}

// [SECTION] render_png
RenderedPng render_png(const Figure& captioned, const ExportOptions& options) {
  Figure bare;  // the layout points into the figure it drew: keep the copy alive for the whole render
  const Figure& fig = options.caption ? captioned : (bare = without_caption(captioned));
  RenderedPng out;
  if (!figure_font_error().empty()) {
    out.error = figure_font_error();
    return out;
  }
  if (!(options.scale >= 1 && options.scale <= 4)) {
    out.error = tr("PNG scale must be between 1 and 4");
    return out;
  }
  const Layout l = layout_for_export(fig, options);
  const float s = options.scale;
  Canvas c;
  c.w = static_cast<int>(std::lround(l.width * s));
  c.h = static_cast<int>(std::lround(l.height * s));
  if (c.w <= 0 || c.h <= 0 || double(c.w) * c.h > 64.0e6) {
    out.error = subst(tr("PNG size {0} × {1} is out of range"), {std::to_string(c.w), std::to_string(c.h)});
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
  if (out.png.empty()) out.error = tr("PNG encoding failed");
  return out;
}

}  // namespace tw::plot
