#include "core/ops/embedding.h"

#include <cassert>

namespace tw {

template <class S>
void embedding_forward(MatT<S>& out, const MatT<S>& table, const int* ids, int N) {
  // table: (V, C)   ids: (N)   out: (N, C)
  out.resize(N, table.cols());
  for (int i = 0; i < N; ++i) {  // one row per work item
    assert(ids[i] >= 0 && ids[i] < table.rows());
    out.row(i) = table.row(ids[i]);
  }
}

template <class S>
void embedding_backward(MatT<S>& dtable, const MatT<S>& dout, const int* ids, int N) {
  // dout: (N, C)   ids: (N)   dtable: (V, C)
  // Sequential over i: two rows with the same id would race on a GPU (atomics there, or a sort by id).
  assert(dout.rows() == N && dout.cols() == dtable.cols());
  for (int i = 0; i < N; ++i) dtable.row(ids[i]) += dout.row(i);
}

template void embedding_forward<float>(Mat&, const Mat&, const int*, int);
template void embedding_forward<double>(MatD&, const MatD&, const int*, int);
template void embedding_backward<float>(Mat&, const Mat&, const int*, int);
template void embedding_backward<double>(MatD&, const MatD&, const int*, int);

}  // namespace tw
