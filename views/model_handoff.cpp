#include "views/model_handoff.h"

#include <map>
#include <utility>

namespace tw {

namespace {
struct Mailbox {
  std::map<std::string, StepperModel> models;    // receiving panel id → the model posted to it
  std::map<std::string, nlohmann::json> values;  // receiving panel id → control values posted to it
  std::string focus;
};
Mailbox& mailbox() {
  static Mailbox box;
  return box;
}
thread_local int detached_depth = 0;
}  // namespace

DetachedFromHandoffs::DetachedFromHandoffs() { ++detached_depth; }
DetachedFromHandoffs::~DetachedFromHandoffs() { --detached_depth; }
bool handoffs_detached() { return detached_depth > 0; }

void post_model(const std::string& panel_id, StepperModel model) {
  if (handoffs_detached()) return;
  mailbox().models[panel_id] = std::move(model);
  request_focus(panel_id);
}

void request_focus(const std::string& panel_id) {
  if (!handoffs_detached()) mailbox().focus = panel_id;
}

std::optional<StepperModel> take_posted_model(const std::string& panel_id) {
  if (handoffs_detached()) return std::nullopt;
  auto& models = mailbox().models;
  const auto it = models.find(panel_id);
  if (it == models.end()) return std::nullopt;
  StepperModel m = std::move(it->second);
  models.erase(it);
  return m;
}

void post_values(const std::string& panel_id, nlohmann::json values) {
  if (handoffs_detached()) return;
  mailbox().values[panel_id] = std::move(values);
  request_focus(panel_id);
}

std::optional<nlohmann::json> take_posted_values(const std::string& panel_id) {
  if (handoffs_detached()) return std::nullopt;
  auto& values = mailbox().values;
  const auto it = values.find(panel_id);
  if (it == values.end()) return std::nullopt;
  nlohmann::json v = std::move(it->second);
  values.erase(it);
  return v;
}

std::string take_focus_request() { return std::exchange(mailbox().focus, std::string()); }

}  // namespace tw
