#include "core/eigen_decompositions.h"  // first: Eigen's SVD read under its warning pragma

#include "core/ops/lora.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "core/base/i18n.h"

namespace tw {

float lora_scale(float alpha, int r, bool rslora) {
  const double rr = static_cast<double>(r);
  return static_cast<float>(rslora ? alpha / std::sqrt(rr) : alpha / rr);
}

std::string check_lora(int d_in, int d_out, int r) {
  if (d_in < 1 || d_out < 1) return tr("LoRA d_in and d_out must be at least 1");
  if (r < 1) return subst(tr("LoRA rank must be at least 1 (got {0})"), {std::to_string(r)});
  if (r > std::min(d_in, d_out))
    return subst(tr("LoRA rank ({0}) cannot exceed $\\min(d_{in}, d_{out})$ = {1}"),
                 {std::to_string(r), std::to_string(std::min(d_in, d_out))});
  return "";
}

void lora_init(LoraAdapter& ad, int d_in, int d_out, int r, float alpha, bool rslora, std::mt19937_64& rng) {
  // A: (R, d_in)   B: (d_out, R)
  ad.alpha = alpha;
  ad.rslora = rslora;
  ad.A.resize(r, d_in);
  const double bound = 1.0 / std::sqrt(static_cast<double>(d_in));
  for (Eigen::Index i = 0; i < ad.A.size(); ++i)
    ad.A.data()[i] = static_cast<float>(bound * (2.0 * uniform01(rng) - 1.0));
  ad.B.setZero(d_out, r);
}

void lora_forward(Mat& out, Mat& xa, const Mat& x, const Mat& W0, const LoraAdapter& ad, int T, int d_in, int d_out,
                  int R) {
  // x: (T, d_in)   W0: (d_out, d_in)   A: (R, d_in)   B: (d_out, R)   xa: (T, R)   out: (T, d_out)
  assert(x.rows() == T && x.cols() == d_in && W0.rows() == d_out && W0.cols() == d_in);
  assert(ad.A.rows() == R && ad.A.cols() == d_in && ad.B.rows() == d_out && ad.B.cols() == R);
  static_cast<void>(d_in);  // the sizes only back the debug-build shape checks above
  xa.resize(T, R);
  out.resize(T, d_out);
  xa.noalias() = x * ad.A.transpose();
  out.noalias() = x * W0.transpose();
  out.noalias() += ad.scale() * (xa * ad.B.transpose());
}

void lora_delta(Mat& delta, const LoraAdapter& ad) { delta.noalias() = ad.scale() * (ad.B * ad.A); }

void lora_merge(Mat& W, const LoraAdapter& ad) { W.noalias() += ad.scale() * (ad.B * ad.A); }

void lora_unmerge(Mat& W, const LoraAdapter& ad) { W.noalias() -= ad.scale() * (ad.B * ad.A); }

Svd svd_decompose(const Mat& M) {
  // BDCSVD falls back to one-sided Jacobi below 16 columns, so small panels get Jacobi's accuracy too.
  const Eigen::MatrixXd md = M.cast<double>();
  Eigen::BDCSVD<Eigen::MatrixXd> solver(md, Eigen::ComputeThinU | Eigen::ComputeThinV);
  Svd s;
  s.U = solver.matrixU();
  s.sigma = solver.singularValues();
  s.V = solver.matrixV();
  return s;
}

VecD singular_values(const Mat& M) {
  const Eigen::MatrixXd md = M.cast<double>();
  const Eigen::BDCSVD<Eigen::MatrixXd> solver(md);
  return solver.singularValues();
}

void svd_truncate(Mat& out, const Svd& s, int r) {
  // U: (m, k)   σ: (k)   V: (n, k)   out: (m, n)
  const int k = static_cast<int>(s.sigma.size());
  r = std::clamp(r, 0, k);
  const MatD approx = s.U.leftCols(r) * s.sigma.head(r).asDiagonal() * s.V.leftCols(r).transpose();
  out = approx.cast<float>();
}

double svd_tail_error(const VecD& sigma, int r) {
  double sum = 0.0;
  for (Eigen::Index i = std::max(r, 0); i < sigma.size(); ++i) sum += sigma[i] * sigma[i];
  return std::sqrt(sum);
}

}  // namespace tw
