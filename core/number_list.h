#pragma once
// Reads the comma-separated numbers a user types into a panel ("1, 2, 3" or "[1 2 3]") with one-line errors,
// so a bad entry gives a message instead of a crash and the panel keeps its last good result.

#include <string>
#include <vector>

namespace tw {

// "" on success (out holds min_count … max_count finite numbers), else one sentence; *out is then unspecified.
std::string parse_number_list(const std::string& text, std::vector<double>* out, size_t min_count, size_t max_count);

}  // namespace tw
