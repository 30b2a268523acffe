#include "core/base/text_in_use.h"

#include <array>
#include <atomic>

#include "core/base/utf8.h"

namespace tw {

namespace {

constexpr uint32_t kCodePoints = 0x110000;
// One bit per code point (136 KB), set with fetch_or so notes from worker threads never race.
std::array<std::atomic<uint64_t>, kCodePoints / 64> g_seen{};  // process-wide: the characters shown anywhere
std::atomic<uint64_t> g_generation{0};

}  // namespace

void note_text_in_use(std::string_view utf8) {
  size_t i = 0;
  while (i < utf8.size() && static_cast<unsigned char>(utf8[i]) < 0x80) ++i;
  if (i == utf8.size()) return;  // ASCII: always in the atlas
  bool added = false;
  for (uint32_t cp : decode_utf8(utf8.substr(i))) {
    if (cp < 0x80 || cp >= kCodePoints) continue;
    const uint64_t bit = uint64_t{1} << (cp % 64);
    std::atomic<uint64_t>& word = g_seen[cp / 64];
    if (word.load(std::memory_order_relaxed) & bit) continue;
    added |= (word.fetch_or(bit, std::memory_order_relaxed) & bit) == 0;
  }
  if (added) g_generation.fetch_add(1, std::memory_order_release);
}

uint64_t text_in_use_generation() { return g_generation.load(std::memory_order_acquire); }

std::vector<uint32_t> characters_in_use() {
  std::vector<uint32_t> out;
  for (uint32_t w = 0; w < g_seen.size(); ++w) {
    uint64_t bits = g_seen[w].load(std::memory_order_relaxed);
    while (bits) {
      const int b = __builtin_ctzll(bits);
      out.push_back(w * 64 + static_cast<uint32_t>(b));
      bits &= bits - 1;
    }
  }
  return out;
}

}  // namespace tw
