// The roofline of inference: GEMM (prefill) vs GEMV (decode) intensity, a device's roofline, where both phases
// land, what int8 / int4 weights and the KV cache do to decode speed, and estimates beside this machine's measured
// numbers (issue 19).
//
// [SECTION] state and the measurement cache
// [SECTION] result and compute (core/experiments/roofline, core/experiments/machine_probe)
// [SECTION] figures
// [SECTION] panel
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/experiments/machine_probe.h"
#include "core/experiments/roofline.h"
#include "core/matmul_threads.h"
#include "core/model/forward.h"
#include "views/recompute.h"
#include "views/widgets.h"

namespace tw {

namespace roofline_panel {

const PanelInfo kInfo = {"roofline", N_("Roofline of inference"), N_("Inference"),
                         N_("Why prefill is compute-bound and decoding memory-bound; quantization, KV cache, measured "
                            "tokens/s")};

using plot::fmt;

// [SECTION] state and the measurement cache

// Measurements outlive one recompute: the probe is the machine's (run once), a forward timing belongs to one
// config. The panel owns the cache; every copy of the state points at it, so the worker can fill it.
struct MeasureCache {
  std::mutex mutex;
  std::optional<MachineProbe> probe;
  std::map<std::string, ForwardTiming> forward;  // by model name
};

struct RooflineState {
  int model = 0;   // index into inference_model_presets()
  int device = 2;  // 0 = this machine (measured), else 1 + index into device_presets()
  WeightFormat weights = WeightFormat::BF16;
  KvFormat kv_format = KvFormat::BF16;
  int batch = 1;
  int prompt = 512;
  int context = 4096;
  bool measure = false;  // probe this machine and time our own forward pass (off at first: the panel opens at once)
  std::shared_ptr<MeasureCache> cache = std::make_shared<MeasureCache>();
};

// Our forward pass runs in fp32 on the CPU: a model of more than ~30 M matmul weights would take too long to
// time, so the measurement uses the Small preset then (and says so).
const InferenceModel& measured_model(int model) {
  const auto& models = inference_model_presets();
  const InferenceModel& m = models[static_cast<size_t>(std::clamp(model, 0, int(models.size()) - 1))];
  if (matmul_parameters(m.config) <= 3e7) return m;
  for (const InferenceModel& s : models)
    if (s.config == small_config()) return s;
  return models.back();
}

// [SECTION] result and compute

struct RooflineResult {
  RooflineState state;
  InferenceModel model;
  std::vector<Device> devices;  // the measured machine first when measured, then the presets
  int device = 0;               // index into devices of the chosen one
  std::string error;            // why nothing can be shown
  std::string device_note;      // e.g. "this machine is not measured: showing the A100"
  InferenceShape shape;
  PhaseCost prefill, decode;
  // Decode tokens/s against context, one curve per weight format, at the chosen batch.
  std::vector<int> contexts;
  std::vector<std::vector<double>> decode_tok_s;  // [format][context]
  std::vector<double> kv_cache_bytes;             // [context]
  // GEMM intensity of a C×C weight against M tokens.
  std::vector<double> gemm_tokens, gemm_intensity_values;
  // Measured vs estimated on this machine (when measured).
  std::optional<MachineProbe> probe;
  std::optional<ForwardTiming> timing;
  std::string measured_model_name;
  PhaseCost est_prefill, est_decode;  // roofline estimate of the timed shape on the measured machine, fp32
};
using ResultPtr = std::shared_ptr<const RooflineResult>;

ResultPtr compute(const RooflineState& s, Progress& progress) {
  auto r = std::make_shared<RooflineResult>();
  r->state = s;
  r->state.cache = nullptr;  // the result does not keep the cache alive
  const auto& models = inference_model_presets();
  r->model = models[static_cast<size_t>(std::clamp(s.model, 0, int(models.size()) - 1))];
  auto keep_going = [&progress](float f) {
    progress.set(f);
    return !progress.cancelled();
  };

  // Measurements: the probe once per session, a forward timing once per measured model.
  if (s.measure && s.cache) {
    std::optional<MachineProbe> probe;
    {
      std::lock_guard<std::mutex> lock(s.cache->mutex);
      probe = s.cache->probe;
    }
    if (!probe) {
      MachineProbe p = probe_machine([&](float f) { return keep_going(0.4f * f); });
      if (!p.complete) {
        r->error = tr("Measurement cancelled: turn \"measure this machine\" off or change a setting to try again.");
        return r;
      }
      std::lock_guard<std::mutex> lock(s.cache->mutex);
      s.cache->probe = p;
      probe = p;
    }
    r->probe = probe;
    const InferenceModel& mm = measured_model(s.model);
    r->measured_model_name = mm.name;
    std::optional<ForwardTiming> timing;
    {
      std::lock_guard<std::mutex> lock(s.cache->mutex);
      if (auto it = s.cache->forward.find(mm.name); it != s.cache->forward.end()) timing = it->second;
    }
    if (!timing) {
      int prompt = 128, steps = 32;
      cap_forward_timing(mm.config, probe->peak_flops, 1.0, &prompt, &steps);
      ForwardTiming t = time_forward(mm.config, prompt, steps, 1, [&](float f) { return keep_going(0.4f + 0.6f * f); });
      if (!t.error.empty()) {
        r->error = subst(tr("Cannot time {0}: {1}"), {mm.name, t.error});
        return r;
      }
      if (!t.complete) {
        r->error = tr("Measurement cancelled: turn \"measure this machine\" off or change a setting to try again.");
        return r;
      }
      std::lock_guard<std::mutex> lock(s.cache->mutex);
      s.cache->forward[mm.name] = t;
      timing = t;
    }
    r->timing = timing;
    r->devices.push_back({subst(trn("this machine (measured, {0} thread)", "this machine (measured, {0} threads)",
                                    static_cast<unsigned long>(matmul_threads())),
                                {std::to_string(matmul_threads())}),
                          probe->peak_flops, probe->bandwidth,
                          subst(tr("built-in probe: {0}\xC2\xB3 float GEMM and a {1} MiB copy/sum"),
                                {std::to_string(probe->gemm_n), fmt("%.0f", probe->buffer_bytes / (1 << 20))})});
    // The estimate of exactly what was timed: fp32 weights and cache, batch 1, the timed prompt, and a decode step
    // at the middle of the timed steps.
    InferenceShape ts;
    ts.model = timing->config;
    ts.weights = WeightFormat::F32;
    ts.kv_bytes = 4;
    ts.prompt = timing->prompt;
    ts.context = timing->prompt + timing->decode_steps / 2;
    r->est_prefill = prefill_cost(ts, r->devices[0]);
    r->est_decode = decode_cost(ts, r->devices[0]);
  }
  const int presets_start = static_cast<int>(r->devices.size());
  for (const Device& d : device_presets()) r->devices.push_back(d);
  if (s.device == 0) {
    r->device = 0;
    if (!s.measure) {
      r->device = presets_start;
      r->device_note =
          subst(tr("this machine is not measured (measurement off): showing {0}"), {r->devices[r->device].name});
    }
  } else {
    r->device = std::clamp(presets_start + s.device - 1, presets_start, int(r->devices.size()) - 1);
  }
  const Device& dev = r->devices[static_cast<size_t>(r->device)];

  InferenceShape& sh = r->shape;
  sh.model = r->model.config;
  sh.batch = s.batch;
  sh.prompt = s.prompt;
  sh.context = s.context;
  sh.weights = s.weights;
  sh.kv_bytes = bytes_per_value(s.kv_format);
  r->prefill = prefill_cost(sh, dev);
  r->decode = decode_cost(sh, dev);

  for (int c = 128; c <= 131072; c *= 2) r->contexts.push_back(c);
  for (int f = 0; f < 4; ++f) {
    std::vector<double> v;
    InferenceShape q = sh;
    q.weights = static_cast<WeightFormat>(f);
    for (int c : r->contexts) {
      q.context = c;
      v.push_back(decode_cost(q, dev).tokens_per_s);
    }
    r->decode_tok_s.push_back(std::move(v));
  }
  for (int c : r->contexts) r->kv_cache_bytes.push_back(kv_cache_bytes(sh, c));
  const double bpw = bytes_per_weight(sh.weights);
  for (double m = 1; m <= 16384; m *= 2) {
    r->gemm_tokens.push_back(m);
    r->gemm_intensity_values.push_back(gemm_intensity(m, sh.model.dim, sh.model.dim, bpw));
  }
  progress.set(1.0f);
  return r;
}

std::string error_of(const RooflineResult& r) { return r.error; }
// The formulas are microseconds; only a measurement not yet in the cache takes long.
bool quick(const RooflineState& s) {
  if (!s.measure || !s.cache) return true;
  std::lock_guard<std::mutex> lock(s.cache->mutex);
  return s.cache->probe && s.cache->forward.count(measured_model(s.model).name) > 0;
}

const Device& chosen(const RooflineResult& r) { return r.devices[static_cast<size_t>(r.device)]; }

// [SECTION] figures

// One fixed colour per weight format (fp32, bf16, int8, int4), distinct in both themes.
constexpr uint32_t kFormatColors[4] = {0x7F7F7FFF, 0x1F77B4FF, 0x2CA02CFF, 0xD62728FF};
// The bottom of the roofline plot: the attainable rate at the left end of the intensity axis.
double roof_bottom(const Device& d) { return attainable_flops(d, 0.125) / 1e12 / 2; }

plot::Figure roofline_figure(const RooflineResult& r) {
  const Device& dev = chosen(r);
  plot::Figure fig("roofline", subst(tr("Roofline of {0}"), {dev.name}));
  fig.note =
      subst(tr("peak {0} TFLOP/s, {1} GB/s, ridge {2} FLOP/byte"),
            {fmt("%.4g", dev.peak_flops / 1e12), fmt("%.4g", dev.bandwidth / 1e9), fmt("%.3g", ridge_point(dev))});
  plot::Axes& ax = fig.axes();
  ax.setup(tr("arithmetic intensity"), "FLOP/byte", tr("attainable"), "TFLOP/s");
  ax.x.scale = plot::Scale::Log10;
  ax.y.scale = plot::Scale::Log10;
  // Headroom above the roof for the legend, so it never covers the prefill point on the flat part.
  ax.set_y_range(roof_bottom(dev), dev.peak_flops / 1e12 * 40);
  std::vector<double> xs;
  for (double i = 0.125; i <= 16384; i *= std::sqrt(2.0)) xs.push_back(i);
  plot::Table& t = fig.table;
  t.header = {"device", "intensity_flop_per_byte", "attainable_flops"};
  std::vector<double> ys;
  for (double i : xs) {
    ys.push_back(attainable_flops(dev, i) / 1e12);
    t.add_row({dev.name, i, attainable_flops(dev, i)});
  }
  ax.line(tr("roofline"), xs, ys).width = 2.5f;
  ax.vline(tr("ridge"), ridge_point(dev));
  ax.scatter(subst(trn("prefill ({0} token)", "prefill ({0} tokens)", static_cast<unsigned long>(r.shape.prompt)),
                   {std::to_string(r.shape.prompt)}),
             {r.prefill.intensity}, {attainable_flops(dev, r.prefill.intensity) / 1e12});
  ax.scatter(subst(tr("decode (batch {0})"), {std::to_string(r.shape.batch)}), {r.decode.intensity},
             {attainable_flops(dev, r.decode.intensity) / 1e12});
  t.add_row({std::string("prefill"), r.prefill.intensity, attainable_flops(dev, r.prefill.intensity)});
  t.add_row({std::string("decode"), r.decode.intensity, attainable_flops(dev, r.decode.intensity)});
  return fig;
}

plot::Figure gemm_figure(const RooflineResult& r) {
  const int C = r.model.config.dim;
  plot::Figure fig("intensity",
                   subst(tr("GEMM vs GEMV: intensity of a {0}\xC3\x97{0} weight against tokens"), {std::to_string(C)}));
  fig.note = subst(tr("$2MC^2 / (b(2MC + C^2))$, $b$ = {0} bytes ({1}); decode: $M$ = batch"),
                   {fmt("%g", bytes_per_weight(r.shape.weights)), to_string(r.shape.weights)});
  plot::Axes& ax = fig.axes();
  ax.setup(tr("tokens multiplied at once $M$"), "", tr("intensity"), "FLOP/byte");
  ax.x.scale = plot::Scale::Log10;
  ax.y.scale = plot::Scale::Log10;
  ax.flags |= plot::AxesFlags_NoLegend;
  ax.line(tr("intensity"), r.gemm_tokens, r.gemm_intensity_values).width = 2.5f;
  ax.hline(subst(tr("ridge of {0}"), {chosen(r).name.substr(0, chosen(r).name.find(' ', 7))}), ridge_point(chosen(r)));
  ax.vline(tr("decode"), std::max(1, r.shape.batch));
  ax.vline(tr("prefill"), double(r.shape.batch) * r.shape.prompt);
  plot::Table& t = fig.table;
  t.header = {"tokens", "intensity_flop_per_byte"};
  for (size_t i = 0; i < r.gemm_tokens.size(); ++i) t.add_row({r.gemm_tokens[i], r.gemm_intensity_values[i]});
  return fig;
}

plot::Figure decode_figure(const RooflineResult& r) {
  plot::Figure fig("decode", tr("Decode speed against context: weight formats and the KV cache"));
  const double gib = 1024.0 * 1024.0 * 1024.0;
  fig.note = subst(tr("{0}, batch {1}, KV cache in {2}: {3} GiB at {4} tokens; weights {5} GiB"),
                   {r.model.name, std::to_string(r.shape.batch), to_string(r.state.kv_format),
                    fmt("%.3g", kv_cache_bytes(r.shape, r.shape.context) / gib), std::to_string(r.shape.context),
                    fmt("%.3g", matmul_parameters(r.model.config) * bytes_per_weight(r.shape.weights) / gib)});
  plot::Axes& ax = fig.axes();
  ax.setup(tr("context"), tr("tokens"), tr("decode"), "tokens/s");
  ax.x.scale = plot::Scale::Log10;
  ax.y.scale = plot::Scale::Log10;
  std::vector<double> xs(r.contexts.begin(), r.contexts.end());
  for (int f = 0; f < 4; ++f) {
    plot::LineItem& l = ax.line(to_string(static_cast<WeightFormat>(f)), xs, r.decode_tok_s[static_cast<size_t>(f)]);
    l.color = kFormatColors[f];
    if (f == static_cast<int>(r.shape.weights)) l.width = 3;
  }
  ax.vline(subst(tr("context {0}"), {std::to_string(r.shape.context)}), r.shape.context);
  plot::Table& t = fig.table;
  t.header = {"context", "tok_s_fp32", "tok_s_bf16", "tok_s_int8", "tok_s_int4", "kv_cache_bytes"};
  for (size_t i = 0; i < r.contexts.size(); ++i)
    t.add_row({double(r.contexts[i]), r.decode_tok_s[0][i], r.decode_tok_s[1][i], r.decode_tok_s[2][i],
               r.decode_tok_s[3][i], r.kv_cache_bytes[i]});
  return fig;
}

plot::Figure measured_figure(const RooflineResult& r) {
  plot::Figure fig("measured", tr("This machine: roofline estimate vs our own forward pass"));
  plot::Axes& ax = fig.axes();
  ax.setup("", "", tr("throughput"), "tokens/s");
  ax.y.scale = plot::Scale::Log10;
  plot::Table& t = fig.table;
  t.header = {"phase", "estimate_tokens_per_s", "measured_tokens_per_s"};
  if (!r.timing || !r.probe) {
    fig.note = tr("turn on \"measure this machine\" to time the probe and the forward pass");
    return fig;
  }
  const ForwardTiming& m = *r.timing;
  fig.note =
      subst(tr("{0} (random weights, fp32, batch 1): prefill {1} tokens, {2} decode steps"),
            {r.measured_model_name, std::to_string(m.prompt), std::to_string(m.decode_steps)}) +
      (r.measured_model_name != r.model.name ? subst(tr("; {0} is too large to time here"), {r.model.name}) : "");
  ax.bars({tr("prefill"), tr("decode")}, {tr("roofline estimate"), tr("measured")},
          {{r.est_prefill.tokens_per_s, r.est_decode.tokens_per_s}, {m.prefill_tokens_per_s, m.decode_tokens_per_s}});
  t.add_row({std::string("prefill"), r.est_prefill.tokens_per_s, m.prefill_tokens_per_s});
  t.add_row({std::string("decode"), r.est_decode.tokens_per_s, m.decode_tokens_per_s});
  return fig;
}

// [SECTION] panel

class RooflinePanel final : public RecomputePanel<RooflineState, RooflineResult> {
 public:
  RooflinePanel()
      : RecomputePanel(kInfo, two_by_two("roofline", "intensity", "decode", "measured"),
                       {compute, error_of, {roofline_figure, gemm_figure, decode_figure, measured_figure}, quick}) {
    computing_text_ = N_("Measuring this machine (about two seconds)...");
  }

 protected:
  void draw_summary(const RooflineResult& r) override {
    ImGui::Separator();
    if (!r.device_note.empty()) warning_text(r.device_note.c_str());
    ImGui::TextWrapped(tr("prefill: %.4g FLOP/byte, %.4g tokens/s (%s-bound)"), r.prefill.intensity,
                       r.prefill.tokens_per_s, r.prefill.memory_bound ? tr("memory") : tr("compute"));
    ImGui::TextWrapped(tr("decode: %.4g FLOP/byte, %.4g tokens/s (%s-bound)"), r.decode.intensity,
                       r.decode.tokens_per_s, r.decode.memory_bound ? tr("memory") : tr("compute"));
    if (r.probe)
      ImGui::Text(tr("this machine: %.3g GFLOP/s, %.3g GB/s"), r.probe->peak_flops / 1e9, r.probe->bandwidth / 1e9);
    ImGui::TextWrapped(tr("device source: %s"), chosen(r).source.c_str());
    ImGui::TextWrapped(tr("model source: %s"), r.model.source.c_str());
  }

  void bind(Controls& c) override {
    std::vector<std::string> models, devices = {N_("this machine (measured)")};

    for (const InferenceModel& m : inference_model_presets()) models.push_back(m.name);
    for (const Device& d : device_presets()) devices.push_back(d.name);
    c.add_enum("model", &s_.model, models, N_("model"),
               N_("The model whose matrix sizes set FLOPs and bytes (config.json)."));
    c.add_enum("device", &s_.device, devices, N_("device"),
               N_("Peak FLOP/s and memory bandwidth: this machine as measured, or a GPU from its datasheet."));
    c.add_enum("weights", &s_.weights, WeightFormat::Int4, N_("weights"),
               N_("Storage of the weight matrices: bytes read per weight."));
    c.add_enum("kv_format", &s_.kv_format, KvFormat::FP32, N_("KV cache"),
               N_("Storage of each cached key and value number."));
    c.add_int("batch", &s_.batch, 1, 1024, N_("batch $B$"),
              N_("Sequences decoded together: each weight read serves $B$ tokens."), true);
    c.add_int("prompt", &s_.prompt, 1, 131072, N_("prompt $T$"), N_("Tokens per sequence processed in the prefill."),
              true);
    c.add_int("context", &s_.context, 1, 131072, N_("context"),
              N_("Tokens already in the KV cache when the decode step runs."), true);
    c.add_bool("measure", &s_.measure, N_("measure this machine"),
               N_("Probe this computer's FLOP/s and bandwidth and time our forward pass (about 2 s, once)."));
  }
};

}  // namespace roofline_panel

TW_REGISTER_PANEL(roofline_panel::RooflinePanel);

}  // namespace tw
