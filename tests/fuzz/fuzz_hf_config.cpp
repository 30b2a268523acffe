// libFuzzer target: a Hugging Face config.json (Llama / Mistral / Qwen2 keys, rope_scaling, sliding_window) gives a
// validated config or one message for any bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/model/hf_model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  tw::ModelConfig config;
  std::string architecture, error;
  if (!tw::hf_config_from_json(text, {}, &config, &architecture, &error)) {
    if (error.empty() || error.find('\n') != std::string::npos) std::abort();  // one line that says why
    return 0;
  }
  if (!tw::validate(config).empty() || architecture.empty()) std::abort();
  if (config.max_seq > tw::HfLoadOptions{}.max_seq) std::abort();  // capped for tracing
  return 0;
}
