#pragma once
// Helpers for headless panel tests: set a control through its own validation, then run the panel's
// headless contract (update → wait_idle → figures).
#include <gtest/gtest.h>

#include <cctype>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/base/i18n.h"
#include "views/panel.h"
#include "views/plot/figure.h"
#include "views/plot/layout.h"

namespace tw::testing {

// Sets `key` as a scene file or --set would: the value must pass the control's check first.
inline void set(Panel& p, const std::string& key, const nlohmann::json& value) {
  Control* c = p.controls().find(key);
  ASSERT_NE(c, nullptr) << key;
  ASSERT_FALSE(c->check(value, p.info().id + "." + key).has_value()) << key << " = " << value;
  c->set(value);
}

// Every registered panel's id, in menu order: the parameters of the tests that cover every panel.
inline std::vector<std::string> registered_ids() {
  std::vector<std::string> ids;
  for (const PanelInfo& info : panel_infos()) ids.push_back(info.id);
  return ids;
}
// A panel id as a GoogleTest parameter name (letters, digits and '_' only).
inline std::string panel_param_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

// The panel `id` with these controls set in order, each through its own check as `set` does; null (after a
// test failure) when there is no such panel or a value is refused.
inline std::unique_ptr<Panel> panel_with(const std::string& id,
                                         std::initializer_list<std::pair<const char*, nlohmann::json>> values) {
  std::unique_ptr<Panel> p = make_panel(id);
  if (!p) {
    ADD_FAILURE() << "no panel " << id;
    return nullptr;
  }
  for (const auto& [key, value] : values) {
    set(*p, key, value);
    if (::testing::Test::HasFatalFailure()) return nullptr;
  }
  return p;
}

// The figure with `id` (a test failure, and the first figure, when there is none).
inline const plot::Figure& figure_by_id(const std::vector<plot::Figure>& figs, const std::string& id) {
  for (const auto& f : figs)
    if (f.id == id) return f;
  ADD_FAILURE() << "no figure " << id;
  return figs.front();
}

// The first item of `ax`, which must be a heatmap.
inline const plot::HeatmapItem& heatmap(const plot::Axes& ax) { return std::get<plot::HeatmapItem>(ax.items.at(0)); }

inline std::vector<plot::Figure> run(Panel& p) {
  p.update();
  p.wait_idle();
  return p.figures();
}

// The figure with this id, or null.
inline const plot::Figure* by_id(const std::vector<plot::Figure>& figs, const std::string& id) {
  for (const auto& f : figs)
    if (f.id == id) return &f;
  return nullptr;
}

// A table cell as the number or the text it holds (throws std::bad_variant_access, a test failure, otherwise).
inline double num(const plot::Cell& c) { return std::get<double>(c); }
inline std::string str(const plot::Cell& c) { return std::get<std::string>(c); }

// The table of figure `id` among `figs` (a test failure and an empty table when there is none).
inline plot::Table table_of(const std::vector<plot::Figure>& figs, const std::string& id) {
  for (const auto& f : figs)
    if (f.id == id) return plot::figure_table(f);
  ADD_FAILURE() << "no figure " << id;
  return {};
}

// Lays out every figure of panel `id` (after update → wait_idle) at its export size and at the smallest fraction of
// it a panel draws it on screen (plot::kMinReadableFraction), calling fn(figure, layout, fraction) for each.
template <class Fn>
void for_each_layout(const std::string& id, Fn fn) {
  std::unique_ptr<Panel> panel = make_panel(id);
  ASSERT_NE(panel, nullptr) << id;
  for (const plot::Figure& fig : run(*panel)) {
    const plot::Vec2 size = plot::default_figure_size(fig);
    for (float fraction : {1.0f, plot::kMinReadableFraction})
      fn(fig, plot::layout_figure(fig, {.width = size.x * fraction, .height = size.y * fraction}), fraction);
  }
}

// The tests that cover every panel run in both interface languages: their parameter is a panel id ("softmax",
// English) or an id with a language ("softmax@zh"). The scope sets that language and restores English at its end.
inline std::vector<std::string> registered_ids_in(Language lang) {
  std::vector<std::string> ids = registered_ids();
  if (lang != Language::En)
    for (std::string& id : ids) id += std::string("@") + language_code(lang);
  return ids;
}
struct LanguageScope {
  explicit LanguageScope(const std::string& param) : id(param.substr(0, param.find('@'))) {
    const size_t at = param.find('@');
    set_language(at == std::string::npos ? Language::En : parse_language(param.substr(at + 1)).value_or(Language::En));
  }
  ~LanguageScope() { set_language(Language::En); }
  LanguageScope(const LanguageScope&) = delete;
  LanguageScope& operator=(const LanguageScope&) = delete;
  std::string id;  // the panel id without the language
};

// With the controls set so far (panel_with), `p` shows no figures and an error containing `part`, e.g. the field
// it names.
inline void expect_error_without_figures(const std::unique_ptr<Panel>& p, const std::string& part) {
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(run(*p).empty());
  EXPECT_NE(p->error().find(part), std::string::npos) << p->error();
}

}  // namespace tw::testing
