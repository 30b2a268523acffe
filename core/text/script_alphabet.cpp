#include "core/text/script_alphabet.h"

#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/uset.h>

#include <map>
#include <mutex>
#include <utility>

namespace tw {

namespace {

// The size of Script = script ∩ Block = block, from ICU's property data.
int count_script_in_block(UScriptCode script, UBlockCode block) {
  UErrorCode err = U_ZERO_ERROR;
  USet* in_script = uset_openEmpty();
  USet* in_block = uset_openEmpty();
  uset_applyIntPropertyValue(in_script, UCHAR_SCRIPT, script, &err);
  uset_applyIntPropertyValue(in_block, UCHAR_BLOCK, block, &err);
  uset_retainAll(in_script, in_block);
  const int n = U_SUCCESS(err) ? uset_size(in_script) : 1;
  uset_close(in_block);
  uset_close(in_script);
  return n > 0 ? n : 1;
}

// Sets are built once per (script, block): a held-out text may hold thousands of unseen characters of few kinds.
std::mutex mutex;
std::map<std::pair<int, int>, int> sizes;

}  // namespace

int script_alphabet_size(uint32_t cp) {
  if (cp > 0x10FFFF) return 1;
  UErrorCode err = U_ZERO_ERROR;
  const UScriptCode script = uscript_getScript(static_cast<UChar32>(cp), &err);
  const UBlockCode block = ublock_getCode(static_cast<UChar32>(cp));
  if (U_FAILURE(err)) return 1;
  const std::pair<int, int> key{int(script), int(block)};
  std::lock_guard<std::mutex> lock(mutex);
  const auto it = sizes.find(key);
  if (it != sizes.end()) return it->second;
  return sizes[key] = count_script_in_block(script, block);
}

}  // namespace tw
