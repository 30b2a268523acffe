#pragma once
// Checks shared by the LoRA sweep tests (toy task and new text): what every sweep's spectra must satisfy.
#include <gtest/gtest.h>

#include "core/experiments/lora_rank_sweep.h"

namespace tw::testing {

// Every rank-r ΔW = s·BA has at most r singular values above 1e-5 σ₁ (rank ≤ r); the full fine-tune's ΔW (rank 0)
// uses more than 16 directions. `matrices`: the adapted matrices per run (layers × modules).
inline void expect_rank_bounded_spectra(const LoraSweep& s, size_t matrices) {
  for (const LoraSweepRun& r : s.runs) {
    ASSERT_EQ(r.spectra.size(), matrices);
    for (const LoraSweepSpectrum& sp : r.spectra) {
      ASSERT_GT(sp.sigma[0], 0.0) << "rank " << r.rank << " " << peft_module_name(sp.module);
      int above = 0;
      for (Eigen::Index i = 0; i < sp.sigma.size(); ++i) above += sp.sigma[i] > 1e-5 * sp.sigma[0];
      if (r.rank > 0)
        EXPECT_LE(above, r.rank) << peft_module_name(sp.module);
      else
        EXPECT_GT(above, 16) << peft_module_name(sp.module);
    }
  }
}

}  // namespace tw::testing
