#pragma once
// Helpers for headless panel tests: set a control through its own validation, then run the panel's
// headless contract (update → wait_idle → figures).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "views/panel.h"
#include "views/plot/figure.h"

namespace tw::testing {

// Sets `key` as a scene file or --set would: the value must pass the control's check first.
inline void set(Panel& p, const std::string& key, const nlohmann::json& value) {
  const Control* c = p.controls().find(key);
  ASSERT_NE(c, nullptr) << key;
  ASSERT_FALSE(c->check(value, p.info().id + "." + key).has_value()) << key << " = " << value;
  c->set(value);
}

inline std::vector<plot::Figure> run(Panel& p) {
  p.update();
  p.wait_idle();
  return p.figures();
}

}  // namespace tw::testing
