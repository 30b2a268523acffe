#include "views/handoffs.h"

#include <utility>

namespace tw {

namespace {
// Takes the entry under `key` out of `box`, or nothing.
template <class T>
std::optional<T> take(std::map<std::string, T>& box, const std::string& key) {
  const auto it = box.find(key);
  if (it == box.end()) return std::nullopt;
  T v = std::move(it->second);
  box.erase(it);
  return v;
}
}  // namespace

void Handoffs::post_model(const std::string& panel_id, StepperModel model) {
  models_[panel_id] = std::move(model);
  request_focus(panel_id);
}
std::optional<StepperModel> Handoffs::take_posted_model(const std::string& panel_id) { return take(models_, panel_id); }

void Handoffs::post_values(const std::string& panel_id, nlohmann::json values) {
  values_[panel_id] = std::move(values);
  request_focus(panel_id);
}
std::optional<nlohmann::json> Handoffs::take_posted_values(const std::string& panel_id) {
  return take(values_, panel_id);
}

void Handoffs::post_train_comparison(TrainComparison c) {
  comparison_ = std::move(c);
  request_focus("train");
}
std::optional<TrainComparison> Handoffs::take_train_comparison() { return std::exchange(comparison_, std::nullopt); }

std::string Handoffs::take_focus_request() { return std::exchange(focus_, std::string()); }

}  // namespace tw
