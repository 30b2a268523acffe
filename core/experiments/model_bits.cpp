#include "core/experiments/model_bits.h"

#include <algorithm>
#include <cmath>

#include "core/base/i18n.h"
#include "core/base/utf8.h"
#include "core/model/forward.h"
#include "core/ops/softmax.h"

namespace tw {

ScoringWindows scoring_windows(const StepperModel& model, const std::vector<std::string>& records, int64_t max_chars) {
  ScoringWindows out;
  if (!model.weights || !model.vocabulary) {
    out.error = tr("the model has no weights or no tokenizer");
    return out;
  }
  const bool bos = model.vocabulary->has_bos();
  const int window = std::max(2, model.config.max_seq);
  for (const std::string& record : records) {
    if (out.records > 0 && out.chars >= max_chars) break;
    std::vector<int> ids;
    if (!model.vocabulary->encode(record, bos, &ids, &out.error)) return out;
    if (ids.size() < 2) continue;  // nothing to predict
    // Windows overlap by one token: the last token of one is the context that starts the next.
    for (size_t start = 0; start + 1 < ids.size(); start += size_t(window - 1)) {
      const size_t end = std::min(ids.size(), start + size_t(window));
      out.windows.emplace_back(ids.begin() + long(start), ids.begin() + long(end));
    }
    out.chars += int64_t(decode_utf8(record).size());
    ++out.records;
  }
  if (out.chars == 0 && out.error.empty()) out.error = tr("no held-out text to score");
  return out;
}

double window_bits(const Mat& logits, const std::vector<int>& w, size_t first) {
  double bits = 0;
  for (size_t t = first; t + 1 < w.size(); ++t) {
    const double log_z = log_sum_exp(logits.row(long(t)).data(), static_cast<int>(logits.cols()));
    bits += (log_z - double(logits(long(t), w[t + 1]))) / std::log(2.0);
  }
  return bits;
}

ModelBits model_bits_per_char(const StepperModel& model, const std::vector<std::string>& records, int64_t max_chars) {
  ModelBits out;
  ScoringWindows s = scoring_windows(model, records, max_chars);
  if (!s.error.empty()) {
    out.error = s.error;
    return out;
  }
  for (const std::vector<int>& w : s.windows) {
    Mat logits;
    if (!forward(logits, nullptr, *model.weights, model.config, w, &out.error)) return out;
    out.bits += window_bits(logits, w);
    out.tokens_scored += int64_t(w.size()) - 1;
  }
  out.chars = s.chars;
  out.records = s.records;
  out.bits_per_char = out.bits / double(out.chars);
  return out;
}

ModelBits model_bits_of_text(const StepperModel& model, const std::string& text,
                             const std::function<bool(double)>& progress) {
  ModelBits out;
  if (!model.weights || !model.vocabulary) return out.error = tr("the model has no weights or no tokenizer"), out;
  std::vector<int> ids;
  if (!model.vocabulary->encode(text, model.vocabulary->has_bos(), &ids, &out.error)) return out;
  if (ids.size() < 2) return out.error = tr("no held-out text to score"), out;
  const size_t window = size_t(std::max(2, model.config.max_seq)), stride = std::max<size_t>(1, window / 2);
  size_t scored_until = 1;  // targets before this index are scored (the first token has no context)
  for (size_t start = 0; scored_until < ids.size(); start += stride) {
    if (progress && !progress(double(scored_until) / double(ids.size()))) return out.error = tr("cancelled"), out;
    const size_t end = std::min(ids.size(), start + window);
    const std::vector<int> w(ids.begin() + long(start), ids.begin() + long(end));
    Mat logits;
    if (!forward(logits, nullptr, *model.weights, model.config, w, &out.error)) return out;
    // Row t predicts ids[start + t + 1]: score the targets this window is the first to reach.
    const size_t first = scored_until - 1 - start;
    out.bits += window_bits(logits, w, first);
    out.tokens_scored += int64_t(w.size() - 1 - first);
    scored_until = end;
  }
  out.chars = int64_t(decode_utf8(text).size());
  out.records = 1;
  out.bits_per_char = out.bits / double(out.chars);
  return out;
}

}  // namespace tw
