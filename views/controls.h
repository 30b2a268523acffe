#pragma once
// Controls: every user-settable value of a panel, bound to a field of the panel's state struct.
//
// A panel declares its controls once (Panel::bind); the same list then
//   - draws the widget with its (?) help marker (draw_control),
//   - names the scene key `<panel>.<control>` with its type, range and default (scene files, `scene-keys`),
//   - validates values coming from a scene file or `export --set` before anything is applied.
// Values travel as JSON: bool, integer, number, string (enums store the option's name), array of integers.

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace tw {

enum class ControlType { Bool, Int, Float, Enum, Text, IntList };

struct Control {
  std::string key;    // control name without the panel prefix, e.g. "d_k"
  std::string label;  // widget label shown on screen
  std::string help;   // one sentence for the (?) marker
  ControlType type = ControlType::Int;
  void* target = nullptr;  // field in the panel's state: bool*, int*, float*, std::string*, std::vector<int>*
  std::function<int()> get_index = {};      // Enum: the field's option index (the field is an enum class or an int)
  std::function<void(int)> set_index = {};  // Enum: stores option i in the field
  double min = 0, max = 0;                  // Int / Float / IntList element range (inclusive); Text: max length
  bool log_scale = false;                   // Int / Float slider moves logarithmically
  std::vector<std::string> options = {};    // Enum: option names, in the order of the field's enum values
  int max_items = 64;                       // IntList: at most this many entries
  nlohmann::json default_value = {};        // captured when bound, so reset and docs use the state struct's defaults
  const char* format = nullptr;             // printf format for Float sliders (default "%.3g")

  // Checks a JSON value for this control; returns a message naming the key and the problem, or nothing.
  std::optional<std::string> check(const nlohmann::json& value, const std::string& full_key) const;
  void set(const nlohmann::json& value);  // assumes check() passed; writes the bound field, so not const
  nlohmann::json get() const;
  std::string type_name() const;   // "int", "float", "bool", "enum", "text", "int-list"
  std::string range_text() const;  // "1..4096 (log)", "one of: causal|bidirectional", ...
};

// The controls of one panel, in declaration order.
class Controls {
 public:
  explicit Controls(std::string panel_id) : panel_id_(std::move(panel_id)) {}

  Control& add_bool(const std::string& key, bool* v, const std::string& label, const std::string& help);
  Control& add_int(const std::string& key, int* v, int min, int max, const std::string& label, const std::string& help,
                   bool log_scale = false);
  Control& add_float(const std::string& key, float* v, float min, float max, const std::string& label,
                     const std::string& help, bool log_scale = false, const char* format = nullptr);
  // An enum class field: option i names the value static_cast<E>(i), so list the options in the enum's order.
  template <class E>
  Control& add_enum(const std::string& key, E* v, std::vector<std::string> options, const std::string& label,
                    const std::string& help) {
    static_assert(std::is_enum_v<E>, "add_enum binds an enum class field (or an int index, the overload below)");
    return add_enum_index(
        key, [v] { return static_cast<int>(*v); }, [v](int i) { *v = static_cast<E>(i); }, std::move(options), label,
        help);
  }
  // An enum class whose names core keeps (`to_string(E)`, one table per enum: core/enum_names.h): the options are
  // those names from the first enumerator to `last`, so scene files, the UI and config.json spell them one way.
  template <class E>
  Control& add_enum(const std::string& key, E* v, E last, const std::string& label, const std::string& help) {
    std::vector<std::string> options;
    for (int i = 0; i <= static_cast<int>(last); ++i) options.emplace_back(to_string(static_cast<E>(i)));
    return add_enum(key, v, std::move(options), label, help);
  }
  // An int index into `options` (e.g. a preset list that is data, not an enum).
  Control& add_enum(const std::string& key, int* v, std::vector<std::string> options, const std::string& label,
                    const std::string& help) {
    return add_enum_index(
        key, [v] { return *v; }, [v](int i) { *v = i; }, std::move(options), label, help);
  }
  Control& add_text(const std::string& key, std::string* v, int max_length, const std::string& label,
                    const std::string& help);
  // The seed of a panel's random inputs: key and label "seed", 0 … 1,000,000, as every panel names it.
  Control& add_seed(int* v, const std::string& help) { return add_int("seed", v, 0, 1000000, "seed", help); }
  Control& add_int_list(const std::string& key, std::vector<int>* v, int min, int max, int max_items,
                        const std::string& label, const std::string& help);

  const std::string& panel_id() const { return panel_id_; }
  const std::vector<Control>& all() const { return controls_; }
  std::span<Control> all() { return controls_; }      // to set values: the list itself stays fixed
  const Control* find(const std::string& key) const;  // key without the panel prefix
  Control* find(const std::string& key);

  nlohmann::json to_json() const;  // {"d_k": 64, ...}
  void reset_to_defaults();

 private:
  Control& add_enum_index(const std::string& key, std::function<int()> get, std::function<void(int)> set,
                          std::vector<std::string> options, const std::string& label, const std::string& help);
  Control& push(Control c);
  std::string panel_id_;
  std::vector<Control> controls_;
};

// Draws the ImGui widget of one control followed by its (?) marker; returns true when the value changed.
// `label_above`: the label and its marker on a line of their own, the widget the whole width below them (a choice
// whose value would be cut beside its label in a narrow column at a large zoom).
// Implemented in controls_imgui.cpp so that headless code never needs an ImGui context.
bool draw_control(const Control& c, bool label_above = false);
// The width a choice (Enum) needs to show its current value whole, arrow included; 0 for other controls.
float combo_width_for_value(const Control& c);

}  // namespace tw
