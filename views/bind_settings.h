#pragma once
// A panel's controls from its settings' one declaration (core/base/setting_spec.h): for_each_setting(s, f) calls
// f(key, field, spec), and this binder turns each call into the control the spec describes. A panel with settings of
// its own beside core's (the step it shows, a display toggle) declares them the same way, in an overload of
// for_each_setting for its state that lists core's first:
//
//   template <class F>
//   void for_each_setting(AlibiState& s, F&& f) {
//     for_each_setting(static_cast<AlibiSettings&>(s), f);
//     f("log_slopes", s.log_slopes, BoolSpec{N_("log slopes"), N_("Draw the slope bars on a logarithmic axis.")});
//   }
//
//   void bind(Controls& c) override { bind_settings(c, s_); }
#include <string>
#include <type_traits>
#include <vector>

#include "core/base/setting_spec.h"
#include "views/controls.h"

namespace tw {

class ControlsBinder {
 public:
  explicit ControlsBinder(Controls& c) : c_(c) {}
  void operator()(const char* key, int& v, const IntSpec& s) {
    c_.add_int(key, &v, s.min, s.max, s.label, s.help, s.log);
  }
  void operator()(const char*, int& v, const SeedSpec& s) { c_.add_seed(&v, s.help); }  // key "seed"
  void operator()(const char* key, float& v, const FloatSpec& s) {
    c_.add_float(key, &v, s.min, s.max, s.label, s.help, s.log, s.format);
  }
  void operator()(const char* key, bool& v, const BoolSpec& s) { c_.add_bool(key, &v, s.label, s.help); }
  void operator()(const char* key, std::string& v, const TextSpec& s) {
    c_.add_text(key, &v, s.max_length, s.label, s.help);
  }
  void operator()(const char* key, std::vector<int>& v, const IntListSpec& s) {
    c_.add_int_list(key, &v, s.min, s.max, s.max_items, s.label, s.help);
  }
  template <class E>
  void operator()(const char* key, E& v, const OptionsSpec& s) {
    std::vector<std::string> options(s.names.begin(), s.names.end());
    if constexpr (std::is_enum_v<E>)
      c_.add_enum(key, &v, std::move(options), s.label, s.help);
    else
      c_.add_enum(key, static_cast<int*>(&v), std::move(options), s.label, s.help);
  }

 private:
  Controls& c_;
};

template <class S>
void bind_settings(Controls& c, S& s) {
  for_each_setting(s, ControlsBinder(c));
}

}  // namespace tw
