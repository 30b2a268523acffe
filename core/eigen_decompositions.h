#pragma once
// Eigen's QR and SVD (and the Eigen core under them), for the few core files that factor matrices (LoRA).
//
// GCC 12 reports a false -Wmaybe-uninitialized inside Eigen's triangular products used by BDCSVD and QR; the
// warning is attributed to Eigen's own lines, so it is silenced for Eigen's headers only. Include this first in a
// .cpp, before any header that brings in Eigen/Core, so that Eigen's lines are read under the pragma.
#pragma GCC diagnostic push
#if defined(__GNUC__) && !defined(__clang__)  // clang has no such warning (and warns about the name)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <Eigen/Core>
#include <Eigen/QR>
#include <Eigen/SVD>
#pragma GCC diagnostic pop
