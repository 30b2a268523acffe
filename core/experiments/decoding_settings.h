#pragma once
// The decoding panel's settings (two logit lists as typed, their temperatures, the sampling filters applied to p,
// a typed loss) and the one function that parses and checks them: the panel and the lessons both call it.
#include <string>
#include <vector>

#include "core/ops/sampling.h"

namespace tw {

struct DecodingSettings {
  static constexpr const char* kPanel = "decoding";
  std::string logits_p = "3, 2, 1.5, 1, 0.5, 0, -0.5, -1";  // the data (or a confident model): p = softmax
  float temp_p = 1.0f;
  std::string logits_q = "2, 2, 1.5, 1, 1, 0.5, 0, 0";  // the model q = softmax(logits_q / temp_q)
  float temp_q = 1.0f;
  SamplingConfig sampling{.top_k = 5, .top_p = 0.9f, .min_p = 0.05f};  // applied to logits_p (temperature first)
  float loss = 1.2f;  // a typed training loss in nats: used when no training run is linked
};

// The parsed logits, or the one-line error the panel shows (a list that does not parse, lengths that differ, a
// logit beyond ±1e4, sampling filters validate() rejects).
struct DecodingInputs {
  std::vector<double> logits_p, logits_q;
  std::string error;
};
DecodingInputs params_of(const DecodingSettings& s);
inline const std::string& validate(const DecodingInputs& in) { return in.error; }

// The scene keys, in the panel's order (see core/lessons/scene_settings.h).
template <class F>
void for_each_setting(DecodingSettings& s, F&& f) {
  f("logits_p", s.logits_p);
  f("temp_p", s.temp_p);
  f("logits_q", s.logits_q);
  f("temp_q", s.temp_q);
  f("temperature", s.sampling.temperature);
  f("top_k", s.sampling.top_k);
  f("top_p", s.sampling.top_p);
  f("min_p", s.sampling.min_p);
  f("min_keep", s.sampling.min_tokens_to_keep);
  f("loss", s.loss);
}

}  // namespace tw
