// libFuzzer target: config.json parsing and validation give a config or one message for any bytes; an accepted
// config validates clean and survives a write → read round trip.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/model/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  tw::ModelConfig config;
  std::string error;
  if (!tw::config_from_json(text, &config, &error)) {
    if (error.empty()) std::abort();  // a refusal must say why
    return 0;
  }
  if (!tw::validate(config).empty()) std::abort();  // config_from_json promises a validated config
  tw::ModelConfig again;
  if (!tw::config_from_json(tw::config_to_json(config), &again, &error)) std::abort();
  if (tw::config_to_json(again) != tw::config_to_json(config)) std::abort();
  return 0;
}
