#pragma once
// How much memory this machine has, for memory caps: a cap a file raises past it ("tw_memory_cap_mb": 1e9) is
// capped at it, so a model that cannot fit is refused before its weights are initialised.

namespace tw {

// Physical memory in MiB (sysconf), or 0 when the system does not say.
double machine_memory_mb();

// `cap_mb` no higher than the machine's memory (unchanged when it is unknown).
double cap_to_machine(double cap_mb);

}  // namespace tw
