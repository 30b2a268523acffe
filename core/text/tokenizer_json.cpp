#include "core/text/tokenizer_json.h"

#include <nlohmann/json.hpp>

#include "core/base/i18n.h"
#include "core/base/utf8.h"

namespace tw {

using nlohmann::json;

namespace {

// A value as a message quotes it: short, on one line.
std::string shown_value(const json& v) {
  std::string s = v.dump();
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  if (s.size() > 60) s = std::string(utf8_prefix(s, 57)) + "...";
  return s;
}

std::string kind_of(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return tr("null");
    case json::value_t::boolean: return tr("a boolean");
    case json::value_t::string: return tr("a string");
    case json::value_t::array: return tr("a list");
    case json::value_t::object: return tr("an object");
    default: return tr("a number");
  }
}

enum class Want { Bool, BoolOrNull, String, StringOrNull, Probability, PositiveInt, NonNegativeInt, IntOrNull };

struct Option {
  const char* key;
  Want want;
};

// The options the reference library reads, by key (the same key has the same type in every component).
constexpr Option kOptions[] = {
    {"add_prefix_space", Want::Bool},
    {"use_regex", Want::Bool},
    {"trim_offsets", Want::Bool},
    {"individual_digits", Want::Bool},
    {"invert", Want::Bool},
    {"split", Want::Bool},
    {"clean_text", Want::Bool},
    {"handle_chinese_chars", Want::Bool},
    {"lowercase", Want::Bool},
    {"strip_accents", Want::BoolOrNull},
    {"strip_left", Want::Bool},
    {"strip_right", Want::Bool},
    {"byte_fallback", Want::Bool},
    {"ignore_merges", Want::Bool},
    {"fuse_unk", Want::Bool},
    {"cleanup", Want::Bool},
    {"replacement", Want::String},
    {"prepend_scheme", Want::String},
    {"prepend", Want::String},
    {"behavior", Want::String},
    {"prefix", Want::String},
    {"suffix", Want::String},
    {"unk_token", Want::StringOrNull},
    {"continuing_subword_prefix", Want::StringOrNull},
    {"end_of_word_suffix", Want::StringOrNull},
    {"dropout", Want::Probability},
    {"max_input_chars_per_word", Want::PositiveInt},
    {"start", Want::NonNegativeInt},
    {"stop", Want::NonNegativeInt},
    {"unk_id", Want::IntOrNull},
};

bool fits(const json& v, Want want) {
  switch (want) {
    case Want::Bool: return v.is_boolean();
    case Want::BoolOrNull: return v.is_boolean() || v.is_null();
    case Want::String: return v.is_string();
    case Want::StringOrNull: return v.is_string() || v.is_null();
    case Want::Probability: return v.is_null() || (v.is_number() && v.get<double>() >= 0 && v.get<double>() <= 1);
    case Want::PositiveInt: return v.is_number_integer() && v.get<int64_t>() >= 1;
    case Want::NonNegativeInt: return v.is_number_integer() && v.get<int64_t>() >= 0;
    case Want::IntOrNull: return v.is_null() || v.is_number_integer();
  }
  return false;
}

std::string wanted(Want want) {
  switch (want) {
    case Want::Bool: return tr("true or false");
    case Want::BoolOrNull: return tr("true, false or null");
    case Want::String: return tr("a string");
    case Want::StringOrNull: return tr("a string or null");
    case Want::Probability: return tr("a number from 0 to 1, or null");
    case Want::PositiveInt: return tr("a whole number of at least 1");
    case Want::NonNegativeInt: return tr("a whole number of at least 0");
    case Want::IntOrNull: return tr("a whole number or null");
  }
  return "";
}

}  // namespace

bool component_type(const json& j, std::string_view stage, std::string* type, std::string* error) {
  if (j.is_object() && j.contains("type") && j["type"].is_string()) {
    *type = j["type"].get<std::string>();
    return true;
  }
  *error = j.is_object() ? subst(tr("{0} needs a string 'type' (it has none)"), {std::string(stage)})
                         : subst(tr("{0} must be an object with a 'type', not {1} ({2})"),
                                 {std::string(stage), kind_of(j), shown_value(j)});
  return false;
}

std::string option_type_error(const json& j, std::string_view component) {
  if (!j.is_object()) return "";
  for (const Option& o : kOptions) {
    auto it = j.find(o.key);
    if (it == j.end() || fits(*it, o.want)) continue;
    return subst(tr("{0}: '{1}' must be {2}, not {3}"),
                 {std::string(component), o.key, wanted(o.want), shown_value(*it)});
  }
  return "";
}

bool open_component(const json& j, std::string_view stage, const char* too_deep, int depth, std::string* type,
                    std::string* error) {
  if (depth > kMaxNesting) {
    *error = tr(too_deep);
    return false;
  }
  if (!component_type(j, stage, type, error)) return false;
  if (std::string bad = option_type_error(j, std::string(stage) + " " + *type); !bad.empty()) {
    *error = std::move(bad);
    return false;
  }
  return true;
}

bool read_sequence(const json& j, std::string_view stage, const char* list_key,
                   const std::function<bool(const json& item)>& read_item, const std::function<size_t()>& steps_so_far,
                   std::string* error) {
  if (!j.contains(list_key) || !j[list_key].is_array()) {
    *error = subst(tr("{0} Sequence needs a '{1}' list"), {std::string(stage), list_key});
    return false;
  }
  for (const json& item : j[list_key]) {
    if (!read_item(item)) return false;
    if (steps_so_far && steps_so_far() > kMaxPipelineSteps) {
      *error =
          subst(tr("{0} Sequence has more than {1} steps"), {std::string(stage), std::to_string(kMaxPipelineSteps)});
      return false;
    }
  }
  return true;
}

bool json_bool(const nlohmann::json& j, const char* key, bool fallback) {
  return j.is_object() && j.contains(key) && j[key].is_boolean() ? j[key].get<bool>() : fallback;
}

}  // namespace tw
