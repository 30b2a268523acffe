// Plot layer costs: laying out a 1024 × 1024 heatmap (done every frame on screen), colouring its texture
// (done when the data changes), and rasterising figures to PNG (export).
#include <benchmark/benchmark.h>

#include <cmath>

#include "views/plot/export.h"
#include "views/plot/layout.h"

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

}  // namespace

BENCHMARK_MAIN();
