#pragma once
// Shared by the LoRA sweep tests (toy task and new text, core and panel): what every sweep's spectra must satisfy,
// and the new-text setup.
#include <gtest/gtest.h>

#include "core/experiments/lora_rank_sweep.h"
#include "core/model/stepper_model.h"
#include "core/train/tasks.h"

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

// A sweep fine-tuning model `m` on the Song ci (song100) in windows of 32 of its own tokens; ranks, steps, batch,
// evaluation and learning rates are the caller's.
inline LoraSweepParams song_ci_sweep(const StepperModel& m) {
  LoraSweepParams p;
  p.model = m.config;
  p.base = m.weights;
  p.task.kind = TaskKind::Language;
  p.task.context = 32;
  p.task.language.corpus = "song100";
  p.task.language.tokenizer_json = m.tokenizer_json;  // the model's own vocabulary
  return p;
}

}  // namespace tw::testing
