#include "core/machine_memory.h"

#include <unistd.h>

#include <algorithm>

namespace tw {

double machine_memory_mb() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<double>(pages) * static_cast<double>(page) / (1024.0 * 1024.0);
}

double cap_to_machine(double cap_mb) {
  const double machine = machine_memory_mb();
  return machine > 0 ? std::min(cap_mb, machine) : cap_mb;
}

}  // namespace tw
