#pragma once
// A panel's settings read from scene values, for lesson quantities: the same struct the panel binds and the same
// settings → parameters function it calls (core/experiments/<x>_settings.h), so a lesson computes what the panel
// shows.
//
// A settings struct S names its panel (`S::kPanel`) and lists its fields once, in `for_each_setting(S&, f)`, calling
// f(key, field, spec) for int, float, bool, std::string and std::vector<int> fields and for enums (an enum class or
// an int index, with an OptionsSpec naming the options): core/base/setting_spec.h. The panel binds its controls from
// the same list (views/bind_settings.h). A float field is read as the float the panel's slider holds, so the lesson
// rounds the same way.
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/base/setting_spec.h"

namespace tw {

// Reads "<panel>.<key>" values into the fields it is handed; ok turns false at the first missing key, wrong type
// or unknown option name (the field keeps its value).
class SceneSettingsReader {
 public:
  SceneSettingsReader(const nlohmann::json& values, const char* panel) : values_(values), prefix_(panel) {
    prefix_ += '.';
  }
  bool ok() const { return ok_; }

  void operator()(const char* key, int& field);
  void operator()(const char* key, float& field);
  void operator()(const char* key, bool& field);
  void operator()(const char* key, std::string& field);
  void operator()(const char* key, std::vector<int>& field);
  // A field with its spec (for_each_setting's calls): read as its type; the bounds and labels are the panel's.
  template <class T, class Spec>
  void operator()(const char* key, T& field, const Spec&) {
    (*this)(key, field);
  }
  template <class E>
  void operator()(const char* key, E& field, const OptionsSpec& options) {
    const std::optional<int> i = option_index(key, options.names);
    if (i) field = static_cast<E>(*i);
  }

 private:
  std::optional<int> option_index(const char* key, std::span<const char* const> names);
  std::string full(const char* key) const { return prefix_ + key; }
  const nlohmann::json& values_;
  std::string prefix_;
  bool ok_ = true;
};

// The panel's settings as the scene values give them; nullopt when a key is missing, has the wrong type or names
// an unknown option.
template <class S>
std::optional<S> read_scene_settings(const nlohmann::json& values) {
  S s;
  SceneSettingsReader r(values, S::kPanel);
  for_each_setting(s, r);
  if (!r.ok()) return std::nullopt;
  return s;
}

// The parameters the panel hands to core for those settings: its params_of (found beside S), nullopt as above or
// when the parameters' validate() finds them unusable (where the experiment has one).
template <class S>
auto scene_params(const nlohmann::json& values) -> std::optional<decltype(params_of(std::declval<const S&>()))> {
  const std::optional<S> s = read_scene_settings<S>(values);
  if (!s) return std::nullopt;
  auto p = params_of(*s);
  if constexpr (requires { validate(p); })
    if (!validate(p).empty()) return std::nullopt;
  return p;
}

}  // namespace tw
