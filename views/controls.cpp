#include "views/controls.h"

#include <cmath>
#include <sstream>

#include "core/base/i18n.h"
#include "core/base/utf8.h"

namespace tw {

namespace {
// A value as messages quote it: invalid UTF-8 in a string is replaced (nlohmann's dump() would throw), and a long value
// is cut, so a message stays one readable line.
std::string shown(const nlohmann::json& value) {
  std::string s = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s.size() > 80) s = s.substr(0, utf8_char_start(s, 77)) + "...";  // never half a character
  return s;
}

// Whole numbers as integers (1048576, not 1.04858e+06); others with six significant digits.
std::string fmt_number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  std::ostringstream os;
  os << v;
  return os.str();
}
}  // namespace

std::optional<std::string> Control::check(const nlohmann::json& value, const std::string& full_key) const {
  auto range_msg = [&](double v) -> std::optional<std::string> {
    if (!std::isfinite(v) || v < min || v > max)
      return subst(tr("{0}: {1} is out of range {2}..{3}"),
                   {full_key, fmt_number(v), fmt_number(min), fmt_number(max)});
    return std::nullopt;
  };
  switch (type) {
    case ControlType::Bool:
      if (!value.is_boolean()) return subst(tr("{0}: expected true or false, got {1}"), {full_key, shown(value)});
      return std::nullopt;
    case ControlType::Int:
      if (!value.is_number_integer()) return subst(tr("{0}: expected an integer, got {1}"), {full_key, shown(value)});
      return range_msg(value.get<double>());
    case ControlType::Float:
      if (!value.is_number()) return subst(tr("{0}: expected a number, got {1}"), {full_key, shown(value)});
      // Compare as the float the field will hold: the bound 0.05f is 0.0500000007 as a double, and a scene
      // that says 0.05 must still be in range.
      if (const double v = value.get<double>(); std::isfinite(v) && std::abs(v) < 3.0e38) {
        const float f = static_cast<float>(v);
        if (f < static_cast<float>(min) || f > static_cast<float>(max)) return range_msg(v);
        return std::nullopt;
      }
      return range_msg(value.get<double>());
    case ControlType::Enum: {
      if (!value.is_string())
        return subst(tr("{0}: expected one of {1}, got {2}"), {full_key, range_text(), shown(value)});
      for (const auto& o : options)
        if (o == value.get<std::string>()) return std::nullopt;
      return subst(tr("{0}: \"{1}\" is not {2}"), {full_key, value.get<std::string>(), range_text()});
    }
    case ControlType::Text:
      if (!value.is_string()) return subst(tr("{0}: expected a string, got {1}"), {full_key, shown(value)});
      if (value.get<std::string>().size() > static_cast<size_t>(max))
        return subst(tr("{0}: text longer than {1} bytes"), {full_key, fmt_number(max)});
      // Scene files are JSON, which holds only valid UTF-8; a text that is not would make the scene unsavable.
      if (std::string bad = utf8_error(value.get<std::string>(), full_key); !bad.empty()) return bad;
      return std::nullopt;
    case ControlType::IntList: {
      if (!value.is_array()) return subst(tr("{0}: expected an array of integers, got {1}"), {full_key, shown(value)});
      if (value.size() > static_cast<size_t>(max_items))
        return subst(tr("{0}: more than {1} entries"), {full_key, std::to_string(max_items)});
      for (const auto& e : value) {
        if (!e.is_number_integer())
          return subst(tr("{0}: expected an array of integers, got {1}"), {full_key, shown(value)});
        if (auto m = range_msg(e.get<double>())) return m;
      }
      return std::nullopt;
    }
  }
  return subst(tr("{0}: unknown control type"), {full_key});
}

void Control::set(const nlohmann::json& value) {
  switch (type) {
    case ControlType::Bool: *static_cast<bool*>(target) = value.get<bool>(); break;
    case ControlType::Int: *static_cast<int*>(target) = value.get<int>(); break;
    case ControlType::Float: *static_cast<float*>(target) = value.get<float>(); break;
    case ControlType::Enum: {
      const auto name = value.get<std::string>();
      for (size_t i = 0; i < options.size(); ++i)
        if (options[i] == name) set_index(static_cast<int>(i));
      break;
    }
    case ControlType::Text: *static_cast<std::string*>(target) = value.get<std::string>(); break;
    case ControlType::IntList: *static_cast<std::vector<int>*>(target) = value.get<std::vector<int>>(); break;
  }
}

nlohmann::json Control::get() const {
  switch (type) {
    case ControlType::Bool: return *static_cast<const bool*>(target);
    case ControlType::Int: return *static_cast<const int*>(target);
    case ControlType::Float: return *static_cast<const float*>(target);
    case ControlType::Enum: {
      const int i = get_index();
      return (i >= 0 && i < static_cast<int>(options.size())) ? options[i] : options.front();
    }
    case ControlType::Text: return *static_cast<const std::string*>(target);
    case ControlType::IntList: return *static_cast<const std::vector<int>*>(target);
  }
  return nullptr;
}

std::string Control::type_name() const {
  switch (type) {
    case ControlType::Bool: return "bool";
    case ControlType::Int: return "int";
    case ControlType::Float: return "float";
    case ControlType::Enum: return "enum";
    case ControlType::Text: return "text";
    case ControlType::IntList: return "int-list";
  }
  return "?";
}

std::string Control::range_text() const {
  switch (type) {
    case ControlType::Bool: return "true|false";
    case ControlType::Int:
    case ControlType::Float: return fmt_number(min) + ".." + fmt_number(max) + (log_scale ? " (log)" : "");
    case ControlType::Enum: {
      std::string names;  // the values a scene spells, in English in every language
      for (size_t i = 0; i < options.size(); ++i) names += (i ? "|" : "") + options[i];
      return subst(tr("one of: {0}"), {names});
    }
    case ControlType::Text: return subst(tr("up to {0} bytes"), {fmt_number(max)});
    case ControlType::IntList:
      return subst(tr("up to {0} of {1}..{2}"), {std::to_string(max_items), fmt_number(min), fmt_number(max)});
  }
  return "";
}

Control& Controls::push(Control c) {
  c.default_value = c.get();
  controls_.push_back(std::move(c));
  return controls_.back();
}

namespace {
Control make(const std::string& key, const std::string& label, const std::string& help, ControlType type, void* target,
             double min = 0, double max = 0) {
  return {.key = key, .label = label, .help = help, .type = type, .target = target, .min = min, .max = max};
}
}  // namespace

Control& Controls::add_bool(const std::string& key, bool* v, const std::string& label, const std::string& help) {
  return push(make(key, label, help, ControlType::Bool, v));
}

Control& Controls::add_int(const std::string& key, int* v, int min, int max, const std::string& label,
                           const std::string& help, bool log_scale) {
  Control c = make(key, label, help, ControlType::Int, v, min, max);
  c.log_scale = log_scale;
  return push(std::move(c));
}

Control& Controls::add_float(const std::string& key, float* v, float min, float max, const std::string& label,
                             const std::string& help, bool log_scale, const char* format) {
  Control c = make(key, label, help, ControlType::Float, v, min, max);
  c.log_scale = log_scale;
  c.format = format;
  return push(std::move(c));
}

Control& Controls::add_enum_index(const std::string& key, std::function<int()> get, std::function<void(int)> set,
                                  std::vector<std::string> options, const std::string& label, const std::string& help) {
  Control c = make(key, label, help, ControlType::Enum, nullptr, 0, double(options.size()) - 1);
  c.get_index = std::move(get);
  c.set_index = std::move(set);
  c.options = std::move(options);
  return push(std::move(c));
}

Control& Controls::add_text(const std::string& key, std::string* v, int max_length, const std::string& label,
                            const std::string& help) {
  return push(make(key, label, help, ControlType::Text, v, 0, max_length));
}

Control& Controls::add_int_list(const std::string& key, std::vector<int>* v, int min, int max, int max_items,
                                const std::string& label, const std::string& help) {
  Control c = make(key, label, help, ControlType::IntList, v, min, max);
  c.max_items = max_items;
  return push(std::move(c));
}

const Control* Controls::find(const std::string& key) const {
  for (const auto& c : controls_)
    if (c.key == key) return &c;
  return nullptr;
}

Control* Controls::find(const std::string& key) {
  for (auto& c : controls_)
    if (c.key == key) return &c;
  return nullptr;
}

nlohmann::json Controls::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& c : controls_) j[c.key] = c.get();
  return j;
}

void Controls::reset_to_defaults() {
  for (auto& c : controls_) c.set(c.default_value);
}

}  // namespace tw
