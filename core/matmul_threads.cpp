#include "core/matmul_threads.h"

#include <Eigen/Core>

#ifdef TW_HAVE_OPENBLAS
// OpenBLAS's own extensions (cblas.h declares them too, but it also declares the whole CBLAS interface).
extern "C" {
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
char* openblas_get_config(void);
char* openblas_get_corename(void);  // the kernel picked for this CPU, e.g. "SKYLAKEX"
// Stops the worker threads (OpenBLAS's own fork handler calls it); a later request for more threads restarts them.
int blas_thread_shutdown_(void);
}
#endif

namespace tw {

bool set_matmul_threads(int n) {
  if (n < 1) return false;
#ifdef TW_HAVE_OPENBLAS
  openblas_set_num_threads(n);
  // OpenBLAS starts its workers when the library loads, and an idle worker spins on sched_yield for about 0.1 s
  // before it sleeps: that much CPU wasted by every one-thread process, each headless export included. One
  // thread needs no workers.
  if (n == 1) blas_thread_shutdown_();
  Eigen::setNbThreads(n);  // products below OpenBLAS's cut-off still go through Eigen
  return openblas_get_num_threads() == n;
#else
  Eigen::setNbThreads(n);
  if (Eigen::nbThreads() != n) {
    Eigen::setNbThreads(1);
    return false;
  }
  return true;
#endif
}

int matmul_threads() {
#ifdef TW_HAVE_OPENBLAS
  return openblas_get_num_threads();
#else
  return Eigen::nbThreads();
#endif
}

std::string matmul_backend() {
#ifdef TW_HAVE_OPENBLAS
  return openblas_get_config();  // "OpenBLAS 0.3.21 ... Cooperlake MAX_THREADS=64"
#elif defined(EIGEN_HAS_OPENMP)
  return "Eigen (OpenMP)";
#else
  return "Eigen";
#endif
}

std::string matmul_kernel() {
#ifdef TW_HAVE_OPENBLAS
  return openblas_get_corename();
#else
  return "eigen";
#endif
}

}  // namespace tw
