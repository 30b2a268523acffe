#pragma once
// What every component of a tokenizer.json (normalizer, pre-tokenizer, model, decoder, post-processor) is checked
// for before it is read: that it is an object with a "type", that a Sequence is not absurdly long, and that each
// option the reference library reads has the type it reads (a string where a boolean belongs is refused, naming
// the component, the key and the value, rather than silently defaulted).

#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace tw {

// Steps a Sequence may hold, flattened (real files have at most a handful): a Sequence of 10,000 entries runs every
// one of them over every piece of the text.
constexpr size_t kMaxPipelineSteps = 64;
// Sequences a component may sit inside (real files nest one or two): each level is a recursive call of its parser.
constexpr int kMaxNesting = 16;

// The "type" of component `j` of `stage` ("pre-tokenizer", "normalizer", "decoder", "post-processor"). False with
// one line in *error when `j` is not an object with a string "type" ("pre-tokenizer must be an object with a
// 'type', not a string").
bool component_type(const nlohmann::json& j, std::string_view stage, std::string* type, std::string* error);

// What every component parser checks first: `depth` (Sequences inside Sequences) at most kMaxNesting, else
// tr(too_deep) ("decoders are nested too deeply", an N_() message); then component_type and option_type_error of
// "{stage} {type}". True with *type set; false with one line in *error.
bool open_component(const nlohmann::json& j, std::string_view stage, const char* too_deep, int depth, std::string* type,
                    std::string* error);

// Empty when every known option of `j` has the type the reference reads; else one line naming `component`
// ("pre-tokenizer Digits"), the key, the value and the type wanted. Numbers are range-checked where the
// reference would refuse (dropout in [0, 1], max_input_chars_per_word ≥ 1).
std::string option_type_error(const nlohmann::json& j, std::string_view component);

// The items of a Sequence component, j[list_key] ("normalizers", "pretokenizers", "decoders", "processors"), each
// read in order by read_item (which says what is wrong in *error). False with one line when the list is missing
// ("{stage} Sequence needs a 'decoders' list"), when an item fails, or, when steps_so_far is given, when the steps
// read so far (a nested Sequence flattened) pass kMaxPipelineSteps.
bool read_sequence(const nlohmann::json& j, std::string_view stage, const char* list_key,
                   const std::function<bool(const nlohmann::json& item)>& read_item,
                   const std::function<size_t()>& steps_so_far, std::string* error);

// j[key] when `j` is an object holding a boolean there, else `fallback` (option_type_error refuses other types first).
bool json_bool(const nlohmann::json& j, const char* key, bool fallback);

}  // namespace tw
