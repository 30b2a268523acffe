// Plot layer costs: laying out a 1024 × 1024 heatmap (done every frame on screen), colouring its texture
// (done when the data changes), and rasterising figures to PNG (export).
#include <benchmark/benchmark.h>

#include <cmath>

#include "views/plot/export.h"
#include "views/plot/layout.h"
#include "views/plot/math.h"

namespace {

using namespace tw::plot;

Figure heatmap_figure(int n) {
  Figure fig("attn", "Causal attention");
  std::vector<float> p(size_t(n) * size_t(n));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) p[size_t(i) * n + j] = j > i ? -INFINITY : 1.0f / float(i + 1);
  fig.axes()
      .setup("key position j", "", "query position i", "")
      .heatmap("P", p.data(), n, n, {.value_label = "probability"});
  return fig;
}

Figure lines_figure(int points) {
  Figure fig("lines", "Lines");
  const size_t n = static_cast<size_t>(points);
  std::vector<double> x(n), y(n), z(n);
  for (int i = 0; i < points; ++i)
    x[size_t(i)] = i, y[size_t(i)] = std::sin(i * 0.05), z[size_t(i)] = std::cos(i * 0.05);
  Axes& ax = fig.axes();
  ax.setup("t", "s", "v", "V");
  ax.line("sin", x, y);
  ax.line("cos", x, z).dashed = true;
  return fig;
}

void BM_LayoutHeatmap1024(benchmark::State& state) {
  const Figure fig = heatmap_figure(1024);
  for (auto _ : state) {
    Layout l = layout_figure(fig, {.width = 900, .height = 600});
    benchmark::DoNotOptimize(l.prims.data());
  }
}
BENCHMARK(BM_LayoutHeatmap1024)->Unit(benchmark::kMillisecond);

void BM_HeatmapTexturePixels1024(benchmark::State& state) {
  const Figure fig = heatmap_figure(1024);
  const Layout l = layout_figure(fig, {});
  for (auto _ : state) {
    Pixels px = image_pixels(l.images[0]);
    benchmark::DoNotOptimize(px.rgba.data());
  }
}
BENCHMARK(BM_HeatmapTexturePixels1024)->Unit(benchmark::kMillisecond);

void BM_PngHeatmap1024(benchmark::State& state) {
  const Figure fig = heatmap_figure(1024);
  for (auto _ : state) {
    RenderedPng png = render_png(fig, {.scale = 2});
    benchmark::DoNotOptimize(png.png.data());
  }
}
BENCHMARK(BM_PngHeatmap1024)->Unit(benchmark::kMillisecond);

void BM_PngLines(benchmark::State& state) {
  const Figure fig = lines_figure(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    RenderedPng png = render_png(fig, {.scale = 2});
    benchmark::DoNotOptimize(png.png.data());
  }
}
BENCHMARK(BM_PngLines)->Arg(200)->Arg(5000)->Unit(benchmark::kMillisecond);

// Compression alone, on the pixels of a typical line figure at export scale (render_png = rasterise + this).
void BM_EncodePng(benchmark::State& state) {
  const RenderedPng png = render_png(lines_figure(200), {.scale = 2});
  for (auto _ : state) benchmark::DoNotOptimize(encode_png(png.width, png.height, png.rgba).size());
}
BENCHMARK(BM_EncodePng)->Unit(benchmark::kMillisecond);

void BM_Svg(benchmark::State& state) {
  const Figure fig = lines_figure(5000);
  for (auto _ : state) benchmark::DoNotOptimize(render_svg(fig, {}).size());
}
BENCHMARK(BM_Svg)->Unit(benchmark::kMillisecond);

// [SECTION] math labels
// The labels of a screenful of panels' figures (titles, axis labels, legends, notes), 400 in all (≈ 17 panels ×
// 4 figures × 6 labels): formulas of the shapes the panels use, each made distinct by a number so none is shared.
std::vector<std::string> math_labels() {
  const char* shapes[] = {
      "Softmax $S_i = \\frac{e^{x_i/\\tau}}{\\sum_j e^{x_j/\\tau}}$ at $\\tau = {}$",
      "scores $\\frac{q \\cdot k}{\\sqrt{d_k}}$, $d_k = {}$",
      "$\\theta_k = b^{-2k/d}$, $b = {}$",
      "ALiBi bias $-m_h (i - j)$, head {}",
      "$\\max_j S_j$ over {} rows",
      "RMSNorm $\\frac{x}{\\sqrt{\\frac{1}{d}\\sum_i x_i^2 + \\epsilon}} \\odot \\gamma$ ({})",
      "$\\left(\\frac{a}{b}\\right)^2$ step {}",
      "$\\mathcal{N}(0, \\sigma^2)$ logits, $\\sigma = {}$",
  };
  std::vector<std::string> out;
  for (int i = 0; i < 400; ++i) {
    std::string s = shapes[i % 8];
    s.replace(s.find("{}"), 2, std::to_string(i));
    out.push_back(s);
  }
  return out;
}

// Every label laid out from scratch: what the first frame (or a zoom change) costs.
void BM_MathLayoutCold(benchmark::State& state) {
  const std::vector<std::string> labels = math_labels();
  for (auto _ : state)
    for (const std::string& s : labels) benchmark::DoNotOptimize(layout_math_uncached(s, 15));
  state.SetLabel("400 labels");
}
BENCHMARK(BM_MathLayoutCold)->Unit(benchmark::kMillisecond);

// The same 400 labels through the cache, as every later frame lays them out: the per-frame cost (< 2 ms).
void BM_MathLayoutPerFrame(benchmark::State& state) {
  const std::vector<std::string> labels = math_labels();
  for (const std::string& s : labels) layout_math(s, 15);
  for (auto _ : state)
    for (const std::string& s : labels) benchmark::DoNotOptimize(layout_math(s, 15));
  state.SetLabel("400 labels");
}
BENCHMARK(BM_MathLayoutPerFrame)->Unit(benchmark::kMillisecond);

// A figure with a typeset title, axis labels, legend and note, laid out as the screen does every frame.
void BM_LayoutTypesetFigure(benchmark::State& state) {
  Figure fig = lines_figure(200);
  fig.title = "Softmax $S_i = \\frac{e^{x_i/\\tau}}{\\sum_j e^{x_j/\\tau}}$";
  fig.grid[0].setup("$\\theta_k$", "rad", "$\\max_j S_j$", "");
  fig.note = "$\\tau = 0.5$, scale $\\frac{1}{\\sqrt{d_k}}$";
  for (auto _ : state) benchmark::DoNotOptimize(layout_figure(fig, {.width = 640, .height = 400}));
}
BENCHMARK(BM_LayoutTypesetFigure)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
