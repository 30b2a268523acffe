#include "core/experiments/norm_analysis.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "core/base/i18n.h"
#include "core/ops/mlp.h"
#include "core/ops/norm.h"

namespace tw {

std::string check_norm_input(const std::vector<double>& x, int batch, double eps) {
  if (x.size() < 2 || x.size() > 64) return tr("the vector needs between 2 and 64 numbers");
  for (double v : x)
    if (!std::isfinite(v) || std::abs(v) > 1e6) return tr("every number must be finite and at most 1e6 in size");
  if (batch < 2 || batch > 64) return tr("the batch must hold between 2 and 64 tokens");
  if (!(eps > 0.0) || eps > 1.0) return tr("eps must be in (0, 1]");
  return "";
}

namespace {

Mat row_of(const std::vector<double>& x) {
  Mat m(1, static_cast<Eigen::Index>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) m(0, static_cast<Eigen::Index>(i)) = static_cast<float>(x[i]);
  return m;
}

std::vector<double> to_vector(const Mat& m) { return std::vector<double>(m.data(), m.data() + m.size()); }

Mat layernorm(const Mat& x, float eps) {
  Mat y;
  layernorm_forward(y, x, Vec::Ones(x.cols()), Vec::Zero(x.cols()), eps);
  return y;
}
Mat rmsnorm(const Mat& x, float eps) {
  Mat y;
  rmsnorm_forward(y, x, Vec::Ones(x.cols()), eps);
  return y;
}

float max_change(const Mat& a, const Mat& b) { return (a - b).cwiseAbs().maxCoeff(); }

}  // namespace

NormComparison compare_norms(const std::vector<double>& x, int batch, double eps, uint64_t seed) {
  NormComparison r;
  r.x = x;
  const double C = static_cast<double>(x.size());
  for (double v : x) r.mean += v / C;
  for (double v : x) r.var += (v - r.mean) * (v - r.mean) / C;
  for (double v : x) r.rms += v * v / C;
  r.rms = std::sqrt(r.rms);

  const float e = static_cast<float>(eps);
  const Mat row = row_of(x);
  r.layernorm = to_vector(layernorm(row, e));
  r.rmsnorm = to_vector(rmsnorm(row, e));
  const Mat moved = (3.0f * row.array() + 10.0f).matrix(), scaled = 3.0f * row;
  r.layernorm_shift_change = max_change(layernorm(moved, e), layernorm(row, e));
  r.layernorm_scale_change = max_change(layernorm(scaled, e), layernorm(row, e));
  r.rmsnorm_shift_change = max_change(rmsnorm(moved, e), rmsnorm(row, e));
  r.rmsnorm_scale_change = max_change(rmsnorm(scaled, e), rmsnorm(row, e));

  // The batch: x, then tokens drawn around x's own mean and spread so the columns have something to normalise.
  std::mt19937_64 rng(seed);
  r.batch.resize(batch, static_cast<Eigen::Index>(x.size()));
  r.batch.row(0) = row;
  const double spread = std::max(std::sqrt(r.var), 1.0);
  for (int b = 1; b < batch; ++b)
    for (Eigen::Index c = 0; c < r.batch.cols(); ++c) {
      const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;  // platform-independent uniform [0, 1)
      r.batch(b, c) = static_cast<float>(r.mean + spread * (2.0 * u - 1.0) * 1.7320508075688772);  // unit var
    }
  r.batchnorm = layernorm(Mat(r.batch.transpose()), e).transpose();  // per-feature statistics over the batch
  r.batchnorm_row0 = to_vector(Mat(r.batchnorm.row(0)));
  return r;
}

std::vector<HiddenSizeRow> hidden_size_table(const std::vector<int>& dims, int multiple_of) {
  std::vector<HiddenSizeRow> rows;
  for (int C : dims) {
    HiddenSizeRow r;
    r.dim = C;
    r.plain_params = 2LL * C * 4LL * C;
    r.exact_hidden = 8.0 * C / 3.0;
    r.llama_hidden = llama_hidden_size(C, multiple_of);
    r.gated_params = 3LL * C * r.llama_hidden;
    r.ratio = static_cast<double>(r.gated_params) / static_cast<double>(r.plain_params);
    rows.push_back(r);
  }
  return rows;
}

}  // namespace tw
