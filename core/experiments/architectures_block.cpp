#include "core/experiments/architectures_block.h"

#include <cmath>

#include "core/experiments/model_bits.h"
#include "core/model/forward.h"
#include "core/ops/softmax.h"

namespace tw {

namespace {}  // namespace

BlockLayoutComparison compare_block_layouts(const StepperModel& model, const std::vector<std::string>& records,
                                            int64_t max_chars) {
  BlockLayoutComparison out;
  ModelConfig serial = model.config, parallel = model.config;
  serial.parallel_block = false;
  parallel.parallel_block = true;
  if (const std::vector<std::string> problems = validate(parallel); !problems.empty()) {
    out.error = problems.front();
    return out;
  }
  const ScoringWindows s = scoring_windows(model, records, max_chars);
  if (!s.error.empty()) {
    out.error = s.error;
    return out;
  }
  const int L = model.config.n_layers;
  std::vector<double> layer_diff2(size_t(L), 0.0), layer_norm2(size_t(L), 0.0);
  double bits_ser = 0, bits_par = 0, diff2 = 0, norm2 = 0, kl = 0;
  int64_t agree = 0;
  std::vector<std::string> residuals;  // the one step of each block the comparison reads
  for (int l = 0; l < L; ++l) residuals.push_back("layers." + std::to_string(l) + ".mlp.residual");
  for (const std::vector<int>& w : s.windows) {
    Mat ls, lp;
    Trace ts, tp;
    ts.keep_only(residuals);
    tp.keep_only(residuals);
    if (!forward(ls, &ts, *model.weights, serial, w, &out.error) ||
        !forward(lp, &tp, *model.weights, parallel, w, &out.error))
      return out;
    bits_ser += window_bits(ls, w);
    bits_par += window_bits(lp, w);
    for (int l = 0; l < L; ++l) {
      const std::string& name = residuals[size_t(l)];
      const Mat& xs = ts.find(name)->value;
      layer_diff2[size_t(l)] += (tp.find(name)->value - xs).cast<double>().squaredNorm();
      layer_norm2[size_t(l)] += xs.cast<double>().squaredNorm();
    }
    const Eigen::Index scored = Eigen::Index(w.size()) - 1;
    diff2 += (lp.topRows(scored) - ls.topRows(scored)).cast<double>().squaredNorm();
    norm2 += ls.topRows(scored).cast<double>().squaredNorm();
    for (Eigen::Index t = 0; t < scored; ++t) {
      Eigen::Index top_s = 0, top_p = 0;
      ls.row(t).maxCoeff(&top_s);
      lp.row(t).maxCoeff(&top_p);
      agree += top_s == top_p;
      const int V = static_cast<int>(ls.cols());
      const std::vector<double> a = log_softmax(ls.row(t).data(), V), b = log_softmax(lp.row(t).data(), V);
      double kl_row = 0;
      for (int v = 0; v < V; ++v) kl_row += std::exp(a[size_t(v)]) * (a[size_t(v)] - b[size_t(v)]);
      kl += kl_row / std::log(2.0);
    }
    out.tokens_scored += scored;
  }
  out.chars = s.chars, out.records = s.records, out.windows = int(s.windows.size());
  const double n = double(out.tokens_scored);
  out.serial = {bits_ser * std::log(2.0) / n, bits_ser / double(out.chars)};
  out.parallel = {bits_par * std::log(2.0) / n, bits_par / double(out.chars)};
  out.logit_rel_diff = norm2 > 0 ? std::sqrt(diff2 / norm2) : 0.0;
  out.top1_agreement = double(agree) / n;
  out.kl_bits = kl / n;
  for (int l = 0; l < L; ++l)
    out.layer_rel_diff.push_back(layer_norm2[size_t(l)] > 0 ? std::sqrt(layer_diff2[size_t(l)] / layer_norm2[size_t(l)])
                                                            : 0.0);
  return out;
}

}  // namespace tw
