// Typeset labels as layout primitives: the one place a $…$ label becomes glyph runs, rules and strokes.
#include <algorithm>

#include "views/plot/layout.h"
#include "views/plot/math.h"

namespace tw::plot {

void append_math_text(std::vector<Primitive>& prims, const Primitive& label, uint32_t warning_color) {
  const MathLayoutPtr m = layout_math(label.text, label.size);
  const float height = m->ascent + m->descent;
  const float left = label.pos.x - label.align_x * m->width;
  const float baseline = label.pos.y - label.align_y * height + m->ascent;
  const Vec2 anchor = label.pos;
  // Vertical labels turn 90° counter-clockwise about the anchor, as plain text does.
  auto place = [&](Vec2 q) {
    if (!label.vertical) return q;
    return Vec2{anchor.x + (q.y - anchor.y), anchor.y - (q.x - anchor.x)};
  };
  const int group = static_cast<int>(prims.size());
  for (const MathRun& r : m->runs) {
    Primitive t = label;
    t.color = r.warning ? warning_color : label.color;
    t.text = r.text;
    t.size = r.size;
    t.style = r.style;
    t.pos = place({left + r.x, baseline + r.y - text_baseline(r.size)});
    t.align_x = t.align_y = 0;
    t.group = group;
    prims.push_back(std::move(t));
  }
  for (const MathRule& r : m->rules) {
    const Vec2 a = place({left + r.x0, baseline + r.y0}), b = place({left + r.x1, baseline + r.y1});
    prims.push_back({.kind = PrimKind::Rect,
                     .color = label.color,
                     .rect = {std::min(a.x, b.x), std::min(a.y, b.y), std::max(a.x, b.x), std::max(a.y, b.y)},
                     .clip = label.clip,
                     .group = group});
  }
  for (const MathStroke& s : m->strokes) {
    Primitive p{.kind = PrimKind::Polyline, .color = label.color, .width = s.width, .clip = label.clip, .group = group};
    for (const MathPoint& q : s.points) p.points.push_back(place({left + q.x, baseline + q.y}));
    prims.push_back(std::move(p));
  }
}

}  // namespace tw::plot
