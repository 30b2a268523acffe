#pragma once
// Names of enumerators kept as data: one array of names per enum, indexed by the enumerator's value, instead of
// a switch per enum. The same table serves both directions (to_string and parsing), so a name lives in one place.
// Only for enums numbered 0, 1, 2 … in declaration order (the default for an `enum class` without initialisers).
//
//   constexpr const char* kStorageTypeNames[] = {"F32", "F16", "BF16"};
//   static_assert(names_every(kStorageTypeNames, StorageType::BF16));  // a new enumerator needs a new name
//   const char* to_string(StorageType t) { return enum_name(kStorageTypeNames, t); }

#include <cstddef>
#include <string_view>

namespace tw {

// names[v], or `fallback` when v lies outside the table (a value cast from a corrupt file or a stale int).
template <class E, size_t N>
constexpr const char* enum_name(const char* const (&names)[N], E v, const char* fallback = "?") {
  const auto i = static_cast<size_t>(v);  // a negative value wraps to a huge index: also out of range
  return i < N ? names[i] : fallback;
}

// True when the table holds exactly one name per enumerator up to `last`, the final enumerator.
template <class E, size_t N>
constexpr bool names_every(const char* const (&)[N], E last) {
  return N == static_cast<size_t>(last) + 1;
}

// The enumerator named `name` (exact match). False, and *out untouched, when no name matches.
template <class E, size_t N>
constexpr bool enum_from_name(const char* const (&names)[N], std::string_view name, E* out) {
  for (size_t i = 0; i < N; ++i)
    if (name == names[i]) {
      *out = static_cast<E>(i);
      return true;
    }
  return false;
}

}  // namespace tw
