// SVG export: every primitive becomes an SVG element (text stays text). Heatmaps and colour bars are vector
// cells (one <rect> per run of equal cells in a row), so every renderer shows sharp cells, rsvg included; only a
// heatmap of more than kMaxVectorCells visible cells falls back to an embedded nearest-neighbour PNG.
#include <cstdio>

#include "views/plot/export.h"
#include "views/plot/text.h"

namespace tw::plot {

namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();  // "12.50" → "12.5", "3.00" → "3"
  if (s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

std::string escape_xml(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // Control characters are not allowed in XML 1.0 text.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n')
          out += ' ';
        else
          out += c;
    }
  }
  return out;
}

std::string base64(const std::string& bytes) {
  static const char* const table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (unsigned char)bytes[i] << 16 | (unsigned char)bytes[i + 1] << 8 | (unsigned char)bytes[i + 2];
    out += table[v >> 18 & 63], out += table[v >> 12 & 63], out += table[v >> 6 & 63], out += table[v & 63];
  }
  if (i + 1 == bytes.size()) {
    const unsigned v = (unsigned char)bytes[i] << 16;
    out += table[v >> 18 & 63], out += table[v >> 12 & 63], out += "==";
  } else if (i + 2 == bytes.size()) {
    const unsigned v = (unsigned char)bytes[i] << 16 | (unsigned char)bytes[i + 1] << 8;
    out += table[v >> 18 & 63], out += table[v >> 12 & 63], out += table[v >> 6 & 63], out += '=';
  }
  return out;
}

std::string paint(const char* attr, uint32_t c) {
  std::string s = std::string(" ") + attr + "=\"" + css_hex(c) + "\"";
  if (alpha(c) != 255) s += std::string(" ") + attr + "-opacity=\"" + num(alpha(c) / 255.0) + "\"";
  return s;
}

std::string points(const std::vector<Vec2>& pts) {
  std::string s;
  for (size_t i = 0; i < pts.size(); ++i) {
    if (i) s += ' ';
    s += num(pts[i].x) + "," + num(pts[i].y);
  }
  return s;
}

constexpr long kMaxVectorCells = 65536;

// The visible cells of an image as rects over `r`, merging horizontal runs of one colour.
std::string vector_cells(const Pixels& px, const Rect& r) {
  std::string out = "<g shape-rendering=\"crispEdges\">\n";
  const double cw = r.width() / px.width, ch = r.height() / px.height;
  for (int y = 0; y < px.height; ++y) {
    int x = 0;
    while (x < px.width) {
      auto at = [&](int k) {
        const size_t i = (size_t(y) * size_t(px.width) + size_t(k)) * 4;
        return rgba(px.rgba[i], px.rgba[i + 1], px.rgba[i + 2], px.rgba[i + 3]);
      };
      const uint32_t c = at(x);
      int end = x + 1;
      while (end < px.width && at(end) == c) ++end;
      // An opaque cell reaches half a pixel into its right and lower neighbours, which paint over it: rsvg rounds
      // each crisp edge on its own, and at fractional cell edges a one-pixel seam of background showed between two
      // cells (a white line down the ALiBi bias map).
      const bool opaque = alpha(c) == 255;
      const double ox = opaque && end < px.width ? 0.5 : 0.0, oy = opaque && y + 1 < px.height ? 0.5 : 0.0;
      out += "<rect x=\"" + num(r.x0 + cw * x) + "\" y=\"" + num(r.y0 + ch * y) + "\" width=\"" +
             num(cw * (end - x) + ox) + "\" height=\"" + num(ch + oy) + "\"" + paint("fill", c) + "/>\n";
      x = end;
    }
  }
  return out + "</g>\n";
}

// The runs [begin, end) of one typeset label as one <text> with a <tspan> per run, so an editor (Inkscape) keeps
// the label one object. A vertical label is written unrotated and turned as a whole about its first run.
std::string math_text(const std::vector<Primitive>& prims, size_t begin, size_t end) {
  const Primitive& first = prims[begin];
  const Vec2 c = first.pos;
  // xml:space keeps the spaces that begin or end a run ("Softmax ", " over 8 logits"): each tspan is placed alone.
  std::string out = "<text xml:space=\"preserve\"" + paint("fill", first.color);
  if (first.vertical) out += " transform=\"rotate(-90 " + num(c.x) + " " + num(c.y) + ")\"";
  out += ">";
  for (size_t k = begin; k < end; ++k) {
    const Primitive& r = prims[k];
    // Un-rotate the run's corner about the same point (the inverse of layout's turn).
    const Vec2 q = first.vertical ? Vec2{c.x - (r.pos.y - c.y), c.y + (r.pos.x - c.x)} : r.pos;
    out += "<tspan x=\"" + num(q.x) + "\" y=\"" + num(q.y + text_baseline(r.size)) + "\" font-size=\"" +
           num(text_em_size(r.size)) + "\"";
    if (r.style == FontStyle::Italic) out += " font-style=\"italic\"";
    if (r.style == FontStyle::Bold) out += " font-weight=\"bold\"";
    if (r.style == FontStyle::Math) out += " font-family=\"DejaVu Math TeX Gyre, DejaVu Sans, serif\"";
    if (r.color != first.color) out += paint("fill", r.color);
    out += '>';  // appended piece by piece: GCC 12 warns falsely (-Wrestrict) on ">" + std::string
    out += escape_xml(r.text);
    out += "</tspan>";
  }
  return out + "</text>\n";
}

}  // namespace

std::string render_svg(const Figure& captioned, const ExportOptions& options) {
  Figure bare;  // the layout points into the figure it drew: keep the copy alive for the whole render
  const Figure& fig = options.caption ? captioned : (bare = without_caption(captioned));
  const Layout l = layout_for_export(fig, options);

  std::string out;
  out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out +=
      "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" version=\"1.1\" "
      "width=\"" +
      num(l.width) + "\" height=\"" + num(l.height) + "\" viewBox=\"0 0 " + num(l.width) + " " + num(l.height) +
      "\" font-family=\"" + escape_xml(svg_font_family()) + "\">\n";  // the screen's font chain, then look-alikes
  out += "<title>" + escape_xml(fig.title.empty() ? fig.id : fig.title) + "</title>\n";
  if (!l.clips.empty()) {
    out += "<defs>\n";
    for (size_t i = 0; i < l.clips.size(); ++i) {
      const Rect& c = l.clips[i];
      out += "<clipPath id=\"clip" + std::to_string(i) + "\"><rect x=\"" + num(c.x0) + "\" y=\"" + num(c.y0) +
             "\" width=\"" + num(c.width()) + "\" height=\"" + num(c.height()) + "\"/></clipPath>\n";
    }
    out += "</defs>\n";
  }
  int current_clip = -1;
  for (size_t index = 0; index < l.prims.size(); ++index) {
    const Primitive& p = l.prims[index];
    if (p.clip != current_clip) {
      if (current_clip >= 0) out += "</g>\n";
      if (p.clip >= 0) out += "<g clip-path=\"url(#clip" + std::to_string(p.clip) + ")\">\n";
      current_clip = p.clip;
    }
    switch (p.kind) {
      case PrimKind::Rect:
        out += "<rect x=\"" + num(p.rect.x0) + "\" y=\"" + num(p.rect.y0) + "\" width=\"" + num(p.rect.width()) +
               "\" height=\"" + num(p.rect.height()) + "\"" + paint("fill", p.color) + "/>\n";
        break;
      case PrimKind::Polyline:
        out += std::string(p.closed ? "<polygon" : "<polyline") + " points=\"" + points(p.points) + "\" fill=\"none\"" +
               paint("stroke", p.color) + " stroke-width=\"" + num(p.width) +
               "\" stroke-linejoin=\"round\" stroke-linecap=\"butt\"/>\n";
        break;
      case PrimKind::Polygon:
        out += "<polygon points=\"" + points(p.points) + "\"" + paint("fill", p.color) + "/>\n";
        break;
      case PrimKind::Text: {
        if (p.group >= 0) {  // a typeset label: one <text>, a <tspan> per run
          size_t end = index;
          while (end < l.prims.size() && l.prims[end].kind == PrimKind::Text && l.prims[end].group == p.group) ++end;
          out += math_text(l.prims, index, end);
          index = end - 1;
          break;
        }
        // Same placement as the screen: the box's top-left is the anchor minus the alignment; y is the baseline.
        const float w = text_width(p.text, p.size);
        const float baseline = p.pos.y - p.align_y * p.size + text_baseline(p.size);
        const char* anchor = p.align_x == 0.5f ? "middle" : p.align_x == 1.0f ? "end" : "start";
        const float x = p.align_x == 0.5f || p.align_x == 1.0f ? p.pos.x : p.pos.x - p.align_x * w;
        // textLength holds the text to the width the layout measured with the font chain, so a renderer that
        // substitutes another font still fits the boxes, legends and margins sized for it. Characters the chain
        // cannot draw are written as the placeholders the layout measured (U+1F642), as the screen shows them.
        out += "<text x=\"" + num(x) + "\" y=\"" + num(baseline) + "\" font-size=\"" + num(text_em_size(p.size)) +
               "\"" + paint("fill", p.color) + (p.align_x == 0 ? "" : std::string(" text-anchor=\"") + anchor + "\"") +
               " textLength=\"" + num(w) + "\" lengthAdjust=\"spacingAndGlyphs\"";
        if (p.vertical) out += " transform=\"rotate(-90 " + num(p.pos.x) + " " + num(p.pos.y) + ")\"";
        out += ">" + escape_xml(displayable_text(p.text)) + "</text>\n";
        break;
      }
      case PrimKind::Image: {
        const Pixels px = visible_pixels(l.images[size_t(p.image)]);
        if (px.width <= 0 || px.height <= 0) break;
        if (long(px.width) * px.height <= kMaxVectorCells) {
          out += vector_cells(px, p.rect);
          break;
        }
        out += "<image x=\"" + num(p.rect.x0) + "\" y=\"" + num(p.rect.y0) + "\" width=\"" + num(p.rect.width()) +
               "\" height=\"" + num(p.rect.height()) +
               "\" preserveAspectRatio=\"none\" image-rendering=\"optimizeSpeed\" style=\"image-rendering:pixelated\" "
               "xlink:href=\"data:image/png;base64," +
               base64(encode_png(px.width, px.height, px.rgba)) + "\"/>\n";
        break;
      }
    }
  }
  if (current_clip >= 0) out += "</g>\n";
  out += "</svg>\n";
  return out;
}

}  // namespace tw::plot
