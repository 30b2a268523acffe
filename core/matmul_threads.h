// How many threads the large matrix products use, whichever library runs them.
//
// With TW_BLAS (the default build) Eigen hands float matrix products above a small size to OpenBLAS, which keeps its
// own thread pool; with TW_OPENMP Eigen's own products use OpenMP; otherwise products are single-threaded. The app,
// the command line and the tests run on one thread (the GUI's worker threads already occupy the other core, and one
// thread keeps every number independent of the machine's core count); the benchmarks ask for 1 and 2.
#pragma once

#include <string>

namespace tw {

// Sets the product thread count (n >= 1). Returns false, changing nothing, when this build cannot run n threads.
bool set_matmul_threads(int n);
int matmul_threads();
// "OpenBLAS 0.3.21 ...", "Eigen (OpenMP)" or "Eigen": which code multiplies matrices, for reports.
std::string matmul_backend();
// The matrix kernel this CPU runs ("SKYLAKEX", "Haswell", "Zen" from OpenBLAS's runtime dispatch; "eigen" without
// OpenBLAS). Products summed by another kernel round differently, so bit-identical results across machines hold
// only for the same kernel (the shipped checkpoints record theirs).
std::string matmul_kernel();

}  // namespace tw
