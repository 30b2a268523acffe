#include "core/lessons/scene_settings.h"

#include <nlohmann/json.hpp>

#include "core/lessons/quantity_values.h"

namespace tw {

namespace lv = lesson_values;

namespace {

template <class T>
void store(std::optional<T> v, T& field, bool& ok) {
  if (v)
    field = std::move(*v);
  else
    ok = false;
}

}  // namespace

void SceneSettingsReader::operator()(const char* key, int& field) {
  store(lv::integer(values_, full(key).c_str()), field, ok_);
}

void SceneSettingsReader::operator()(const char* key, float& field) {
  const std::optional<double> d = lv::number(values_, full(key).c_str());
  store(d ? std::optional<float>(static_cast<float>(*d)) : std::nullopt, field, ok_);
}

void SceneSettingsReader::operator()(const char* key, bool& field) {
  store(lv::boolean(values_, full(key).c_str()), field, ok_);
}

void SceneSettingsReader::operator()(const char* key, std::string& field) {
  store(lv::text(values_, full(key).c_str()), field, ok_);
}

void SceneSettingsReader::operator()(const char* key, std::vector<int>& field) {
  store(lv::int_list(values_, full(key).c_str()), field, ok_);
}

std::optional<int> SceneSettingsReader::option_index(const char* key, std::span<const char* const> names) {
  const std::optional<std::string> name = lv::text(values_, full(key).c_str());
  if (name)
    for (size_t i = 0; i < names.size(); ++i)
      if (*name == names[i]) return static_cast<int>(i);
  ok_ = false;
  return std::nullopt;
}

}  // namespace tw
