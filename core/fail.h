#pragma once
// The one-line error convention of the readers: set *error, return false (`return fail(error, "...")`).

#include <string>
#include <utility>

namespace tw {

inline bool fail(std::string* error, std::string message) {
  *error = std::move(message);
  return false;
}

}  // namespace tw
