// Plot gallery: one small figure per item kind of the plot layer, in the spirit of ImPlot's demo.
// It documents the API by example and is the visual test bed for the screen, PNG and SVG renderers.
#include <imgui.h>

#include <array>
#include <cmath>
#include <cstdint>

#include "core/ops/rope.h"
#include "views/panel.h"
#include "views/plot/math.h"
#include "views/plot/plot_imgui.h"
#include "views/text/panel_text.h"
#include "views/widgets.h"

namespace tw {

namespace plot_gallery_panel {

constexpr double kPi = 3.14159265358979323846;

struct GalleryState {
  int points = 200;                                   // samples per line
  int heatmap_size = 12;                              // rows = cols of the attention-like heatmap
  bool causal_mask = true;                            // mask the upper triangle with −∞
  plot::Colormap colormap = plot::Colormap::Viridis;  // viridis or magma
  float angle = 0.8f;                                 // radians, for the vectors figure
  int samples = 5000;                                 // histogram samples
};

// A small deterministic generator so the gallery (and its exports) are identical on every run.
struct Lcg {
  uint64_t s;
  double uniform() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return (double((s >> 11) & ((1ull << 53) - 1)) + 0.5) / double(1ull << 53);
  }
  double normal() { return std::sqrt(-2 * std::log(uniform())) * std::cos(2 * kPi * uniform()); }
};

// [SECTION] one function per figure: each draws into a figure whose one axes the catalogue below has labelled

void lines_plot(plot::Figure& fig, const GalleryState& s) {
  plot::Axes& ax = fig.axes();
  std::vector<double> xs, sin_y, cos_y, sx, sy;
  for (int i = 0; i < s.points; ++i) {
    const double x = 4 * kPi * i / std::max(1, s.points - 1);
    xs.push_back(x);
    sin_y.push_back(std::sin(x));
    cos_y.push_back(0.6 * std::cos(x));
  }
  for (int i = 0; i <= 12; ++i) sx.push_back(kPi * i / 3), sy.push_back(std::round(2 * std::sin(kPi * i / 3)) / 2);
  ax.line(tr("sin $t$"), xs, sin_y);
  ax.line(tr("$0.6 \\cos t$"), xs, cos_y).dashed = true;
  ax.step(tr("quantised"), sx, sy);
}

void scatter_plot(plot::Figure& fig, const GalleryState&) {
  plot::Axes& ax = fig.axes();
  Lcg rng{42};
  std::vector<double> x1, y1, x2, y2;
  for (int i = 0; i < 80; ++i) {
    x1.push_back(rng.normal()), y1.push_back(0.8 * x1.back() + 0.4 * rng.normal());
    x2.push_back(rng.normal() + 2), y2.push_back(-0.5 * x2.back() + 0.5 * rng.normal());
  }
  ax.scatter(tr("cluster $A$"), x1, y1);
  ax.scatter(tr("cluster $B$"), x2, y2);
}

void bars_plot(plot::Figure& fig, const GalleryState&) {
  plot::Axes& ax = fig.axes();
  ax.bars({tr("MHA"), tr("GQA-4"), tr("MQA")}, {tr("$K$ cache"), tr("$V$ cache")}, {{64, 16, 4}, {64, 16, 4.5}});
}

void histogram_plot(plot::Figure& fig, const GalleryState& s) {
  plot::Axes& ax = fig.axes();
  Lcg rng{7};
  std::vector<double> v(size_t(s.samples));
  for (double& x : v) x = rng.normal();
  ax.histogram(tr("samples"), v, 40);
  ax.vline(tr("mean 0"), 0);
}

void heatmap_plot(plot::Figure& fig, const GalleryState& s) {
  plot::Axes& ax = fig.axes();
  const int n = s.heatmap_size;
  std::vector<double> p(size_t(n) * size_t(n));
  for (int i = 0; i < n; ++i) {
    double sum = 0;
    for (int j = 0; j < n; ++j) {
      const bool masked = s.causal_mask && j > i;
      const double w = masked ? 0 : std::exp(-0.35 * std::abs(i - j)) * (1 + 0.5 * std::sin(0.7 * j));
      p[size_t(i) * n + j] = masked ? -INFINITY : w;
      sum += w;
    }
    for (int j = 0; j < n; ++j)
      if (p[size_t(i) * n + j] != -INFINITY) p[size_t(i) * n + j] /= sum;
  }
  plot::HeatmapOptions o;
  o.colormap = s.colormap;
  o.vmin = 0;
  o.value_label = tr("probability");
  if (n <= 16) {
    static const char* const words[] = {"The", "cat", "sat", "on",  "the", "mat", "and",    "looked",
                                        "at",  "the", "dog", "who", "was", "not", "amused", "."};
    for (int i = 0; i < n; ++i) o.row_labels.push_back(words[i]), o.col_labels.push_back(words[i]);
  }
  ax.heatmap("$P$", p.data(), n, n, o);
}

void diverging_plot(plot::Figure& fig, const GalleryState&) {
  plot::Axes& ax = fig.axes();
  const int rows = 8, cols = 16;
  std::vector<float> v(size_t(rows * cols));
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) v[size_t(i * cols + j)] = float(std::sin(0.5 * j + i) * (i + 1) / 4.0);
  plot::HeatmapOptions o;
  o.colormap = plot::Colormap::Diverging;
  o.value_label = tr("score");
  ax.heatmap(tr("scores"), v.data(), rows, cols, o);
}

void vectors_plot(plot::Figure& fig, const GalleryState& s) {
  plot::Axes& ax = fig.axes();
  ax.flags |= plot::AxesFlags_EqualAspect;
  ax.set_x_range(-1.3, 1.3).set_y_range(-1.3, 1.3);
  ax.circle(0, 0, 1);
  ax.arrow("$q$", 0, 0, 0.9, 0.3);
  const double a = std::atan2(0.3, 0.9);
  ax.arrow("$R(\\theta) q$", 0, 0, std::hypot(0.9, 0.3) * std::cos(a + s.angle),
           std::hypot(0.9, 0.3) * std::sin(a + s.angle));
  char label[64];
  std::snprintf(label, sizeof label, "$\\theta$ = %.2f rad", double(s.angle));
  ax.arc(label, 0, 0, 0.35, a, a + s.angle);
}

void log_plot(plot::Figure& fig, const GalleryState&) {
  plot::Axes& ax = fig.axes();
  ax.y.scale = plot::Scale::Log10;
  // The frequencies come from core (D = 64): unscaled, and NTK-aware with factor 4 (base · 4^(64/62)).
  RopeConfig ntk;
  ntk.scaling = RopeScaling::NtkAware;
  ntk.factor = 4.0;
  const std::vector<double> theta = rope_frequencies(64, 10000.0), theta_ntk = rope_scaled_frequencies(ntk, 64);
  std::vector<double> k;
  for (size_t i = 0; i < theta.size(); ++i) k.push_back(static_cast<double>(i));
  ax.line(tr("base 10000"), k, theta).style = plot::LineStyle::LineAndMarkers;
  ax.line("NTK $\\alpha = 4$", k, theta_ntk);
}

void annotations_plot(plot::Figure& fig, const GalleryState&) {
  plot::Axes& ax = fig.axes();
  std::vector<double> x, y;
  for (int i = 0; i <= 100; ++i) x.push_back(-6 + 12.0 * i / 100), y.push_back(1 / (1 + std::exp(-x.back())));
  ax.line("$\\sigma(x)$", x, y);
  ax.hline("$p = 0.9$", 0.9);
  ax.vline("$x = 0$", 0);
  ax.text(tr("saturates \xE2\x86\x92"), 2.5, 0.6).align_x = 0;
}

void multiples_plot(plot::Figure& fig, const GalleryState& s) {
  fig.grid_cols = 4;
  fig.shared_colorbar = true;
  const int n = 8;
  for (int h = 0; h < 4; ++h) {
    plot::Axes& ax = fig.add_axes(subst(tr("head {0}"), {std::to_string(h)}));
    std::vector<double> p(size_t(n * n));
    for (int i = 0; i < n; ++i) {
      double sum = 0;
      for (int j = 0; j <= i; ++j) sum += std::exp(-(h + 0.3) * 0.4 * (i - j));
      for (int j = 0; j < n; ++j) p[size_t(i * n + j)] = j > i ? -INFINITY : std::exp(-(h + 0.3) * 0.4 * (i - j)) / sum;
    }
    plot::HeatmapOptions o;
    o.colormap = s.colormap;
    o.vmin = 0, o.vmax = 1;
    ax.heatmap("$P$", p.data(), n, n, o);
  }
}

// [SECTION] the catalogue: every figure in the order shown

struct GalleryFigure {
  const char* id;
  const char* title;
  std::array<const char*, 4> axes;  // x label, x unit, y label, y unit of its one axes; {}: it lays out its own
  void (*draw)(plot::Figure&, const GalleryState&);  // nullptr: the labelled axes alone
};

const GalleryFigure kGallery[] = {
    {"heatmap",
     N_("Causal attention probabilities"),
     {N_("key position $j$"), "", N_("query position $i$"), ""},
     heatmap_plot},
    {"diverging", N_("Signed scores (diverging map)"), {N_("dimension"), "", N_("token"), ""}, diverging_plot},
    {"lines", N_("Line and step plots"), {N_("time"), "s", N_("amplitude"), "V"}, lines_plot},
    {"scatter", N_("Scatter"), {"$x$", "", "$y$", ""}, scatter_plot},
    {"bars", N_("Grouped bars"), {N_("model"), "", N_("memory"), "MiB"}, bars_plot},
    {"histogram", N_("Histogram of $\\mathcal{N}(0, 1)$ samples"), {N_("value"), "", N_("count"), ""}, histogram_plot},
    {"vectors", N_("Rotation on the unit circle"), {"$x_0$", "", "$x_1$", ""}, vectors_plot},
    {"log", N_("Log axes: RoPE frequencies"), {N_("pair index $k$"), "", "$\\theta_k$", "rad/token"}, log_plot},  // θₖ
    {"annotations", N_("Markers and text"), {N_("logit"), "", N_("probability"), ""}, annotations_plot},
    {"heads", N_("Small multiples: four heads, one colour scale"), {}, multiples_plot},
    {"empty", N_("Empty state (no data yet)"), {"$x$", "", "$y$", ""}, nullptr},
};

// [SECTION] panel
class PlotGalleryPanel final : public Panel {
 public:
  PanelInfo info() const override {
    return {"gallery", N_("Plot gallery"), N_("Reference"),
            N_("One small figure per plot kind: lines, bars, heatmaps, vectors, log axes.")};
  }

  std::vector<plot::Figure> figures() override {
    std::vector<plot::Figure> figs;
    for (const GalleryFigure& g : kGallery) {
      plot::Figure& fig = figs.emplace_back(g.id, tr(g.title));
      if (g.axes[0]) {  // CSV columns in English whatever the interface language, math as the characters it draws
        plot::Axis x, y;
        x.label = g.axes[0], x.unit = g.axes[1], y.label = g.axes[2], y.unit = g.axes[3];
        fig.axes()
            .setup(tr(g.axes[0]), g.axes[1], tr(g.axes[2]), g.axes[3])
            .csv_columns(plot::math_plain_text(x.title()), plot::math_plain_text(y.title()));
      }
      if (g.draw) g.draw(fig, s_);
    }
    return figs;
  }

  // Rebuilt only when a control changed: the 1024 × 1024 heatmap costs a million exp() calls.
  const std::vector<plot::Figure>& shown_figures() override {
    if (controls_changed() || cached_figures_.empty() || cached_language_ != language()) {
      cached_figures_ = figures();
      cached_language_ = language();
    }
    return cached_figures_;
  }

  void draw(const DrawContext& ctx) override {
    panel_explanation(panel_text(info().id), ctx.fit_figures_to_height);
    for (const Control& c : controls().all()) draw_control(c);
    ImGui::Separator();
    const std::vector<plot::Figure>& figs = shown_figures();
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const float avail = ImGui::GetContentRegionAvail().x;
    // Two per row when each stays readable, else one per row (as draw_figure_rows does).
    const bool two = (avail - spacing) / 2 >= kReadableFigureWidth * ctx.dpi_scale;
    const float w = two ? (avail - spacing) / 2 : avail;
    for (size_t i = 0; i < figs.size(); ++i) {
      const bool wide = figs[i].id == "heads";  // small multiples get the full row
      if (two && wide && i % 2 == 1) ImGui::NewLine();
      const float fw = wide && two ? 2 * w + spacing : w;
      plot::draw_figure(figs[i], ctx, "gallery", ImVec2(fw, wide ? fw * 0.45f / (two ? 2 : 1) : w * 0.66f));
      if (two && !wide && i % 2 == 0 && i + 1 < figs.size() && figs[i + 1].id != "heads") ImGui::SameLine();
    }
  }

 protected:
  void bind(Controls& c) override {
    c.add_int("points", &s_.points, 2, 5000, N_("Line points"), N_("Samples per line in the line figure."), true);
    c.add_int("heatmap_size", &s_.heatmap_size, 2, 1024, N_("Heatmap size"),
              N_("Rows and columns of the attention-like heatmap; 1024 checks the texture path."), true);
    c.add_bool("causal_mask", &s_.causal_mask, N_("Causal mask"),
               N_("Mask keys after the query with −∞; masked cells are drawn grey with their own legend entry."));
    c.add_enum("colormap", &s_.colormap, {"viridis", "magma"}, N_("Colormap"),
               N_("Sequential colour scale of the heatmaps."));
    c.add_float("angle", &s_.angle, 0.0f, 6.2832f, N_("Angle $\\theta$"),
                N_("Rotation angle of the vector figure, in radians."));
    c.add_int("samples", &s_.samples, 10, 100000, N_("Histogram samples"),
              N_("Number of $\\mathcal{N}(0, 1)$ samples."), true);
  }

 private:
  GalleryState s_;
  std::vector<plot::Figure> cached_figures_;
  Language cached_language_ = Language::En;  // figure text is in the interface language
};

}  // namespace plot_gallery_panel

TW_REGISTER_PANEL(plot_gallery_panel::PlotGalleryPanel);

}  // namespace tw
