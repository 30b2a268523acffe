#pragma once
// The decoding panel's settings (two logit lists as typed, their temperatures, the sampling filters applied to p,
// a typed loss) and the one function that parses and checks them: the panel and the lessons both call it.
#include <string>
#include <vector>

#include "core/base/i18n.h"  // N_
#include "core/base/setting_spec.h"
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
  f("logits_p", s.logits_p,
    TextSpec{
        512, N_("logits of $p$"),
        N_("Comma-separated logits (2 to 32) of the data distribution $p$; also the distribution sampled below.")});
  f("temp_p", s.temp_p,
    FloatSpec{0.05f, 20.0f, N_("temperature of $p$"),
              N_("$p = \\softmax(\\ell / T)$ of the logits $\\ell$ of $p$ at temperature $T$."), true, "%.3g"});
  f("logits_q", s.logits_q,
    TextSpec{512, N_("logits of $q$"), N_("Comma-separated logits of the model distribution $q$, as many as $p$'s.")});
  f("temp_q", s.temp_q,
    FloatSpec{0.05f, 20.0f, N_("temperature of $q$"),
              N_("$q = \\softmax(\\ell / T)$ of the logits $\\ell$ of $q$ at temperature $T$."), true, "%.3g"});
  f("temperature", s.sampling.temperature,
    FloatSpec{0.05f, 20.0f, N_("sampling temperature"),
              N_("Divides p's logits before the filters: below 1 sharpens, above 1 flattens."), true, "%.3g"});
  f("top_k", s.sampling.top_k,
    IntSpec{0, 32, N_("top-k"), N_("Keep the $k$ most likely tokens (ties at the $k$-th survive); 0 = off.")});
  f("top_p", s.sampling.top_p,
    FloatSpec{0.01f, 1.0f, N_("top-p"),
              N_("Keep the smallest most-likely set whose mass reaches $p$ (the crossing token included); 1 = off."),
              false, "%.3g"});
  f("min_p", s.sampling.min_p,
    FloatSpec{0.0f, 1.0f, N_("min-p"),
              N_("Drop tokens whose probability is below $p_{\\min}$ times the largest; 0 = off."), false, "%.3g"});
  f("min_keep", s.sampling.min_tokens_to_keep,
    IntSpec{1, 32, N_("min tokens to keep"), N_("No filter removes the most likely this many.")});
  f("loss", s.loss,
    FloatSpec{0.0f, 12.0f, N_("training loss (nats)"),
              N_("A mean next-token loss to turn into a perplexity = $\\exp(\\mathrm{loss})$, used when no training "
                 "run is linked."),
              false, "%.4g"});
}

}  // namespace tw
