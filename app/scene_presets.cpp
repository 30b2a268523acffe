#include "app/scene_presets.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>
#include <utility>

#include "core/assets.h"
#include "core/base/i18n.h"
#include "core/base/json_parse.h"
#include "core/base/read_file.h"

namespace tw {

namespace fs = std::filesystem;

namespace {

// The scene's fields a card or a menu shows ("" when absent or unreadable).
struct CardFields {
  std::string description, thumbnail, title_zh, description_zh;
};
CardFields read_card_fields(const std::string& path) {
  std::string text, error;
  if (!read_file_bounded(path, kSceneMaxBytes, &text, &error)) return {};
  const nlohmann::json scene = parse_json_or_discarded(text);
  if (!scene.is_object()) return {};
  auto field = [&](const char* name) {
    const auto it = scene.find(name);
    return it != scene.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  return {field("description"), field("thumbnail"), field("title_zh"), field("description_zh")};
}

}  // namespace

const std::string& preset_description(const ScenePreset& preset) {
  return language() == Language::Zh && !preset.description_zh.empty() ? preset.description_zh : preset.description;
}

std::string presets_dir() { return find_asset_dir("scenes"); }

std::vector<ScenePreset> list_presets() {
  std::vector<ScenePreset> presets;
  const std::string dir = presets_dir();
  if (dir.empty()) return presets;
  std::error_code ec;
  // increment(ec) rather than range-for: a directory changing underneath must not throw.
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->path().extension() != ".json") continue;
    const std::string path = it->path().string();
    CardFields f = read_card_fields(path);
    ScenePreset p;
    p.name = it->path().stem().string();
    p.path = path;
    p.description = std::move(f.description);
    p.thumbnail = std::move(f.thumbnail);
    p.title_zh = std::move(f.title_zh);
    p.description_zh = std::move(f.description_zh);
    presets.push_back(std::move(p));
  }
  // Place in the lecture: (lesson, position in it); presets outside every lesson last, by name.
  auto place = [](const std::string& name) {
    const auto& lessons = lesson_order();
    for (size_t l = 0; l < lessons.size(); ++l)
      for (size_t i = 0; i < lessons[l].presets.size(); ++i)
        if (name == lessons[l].presets[i]) return std::pair{int(l) + 1, int(i)};
    return std::pair{int(lessons.size()) + 1, 0};
  };
  for (ScenePreset& p : presets) p.lesson = place(p.name).first <= int(lesson_order().size()) ? place(p.name).first : 0;
  std::sort(presets.begin(), presets.end(), [&](const auto& a, const auto& b) {
    return std::tuple(place(a.name), a.name) < std::tuple(place(b.name), b.name);
  });
  return presets;
}

const std::vector<LessonPresets>& lesson_order() {
  static const std::vector<LessonPresets> order = {
      {"High-dimensional intuition", {"geometry", "softmax", "lora", "roofline"}},
      {"The parts of a LLaMA model", {"forward", "rope", "gqa", "masks", "norms"}},
      {"What changed since GPT-2", {"alibi", "positions", "flash", "moe"}},
      {"Language-modelling basics",
       {"ngram", "decoding", "tokenizers", "train-sort", "train-induction", "heads", "decoding-after-training",
        "train-moe", "train-lm-poems", "train-lm-quotes"}},
      {"Architectures and training stability",
       {"architectures", "stability", "stability-softcap", "stability-softcap-compare", "stability-zloss",
        "stability-zloss-compare", "stability-qknorm-compare", "train-pre-vs-post", "train-scale-vs-none"}},
  };
  return order;
}

std::string resolve_scene_argument(const std::string& argument) {
  std::error_code ec;
  if (argument.empty() || fs::exists(argument, ec) || argument.find('/') != std::string::npos) return argument;
  const std::string stem = fs::path(argument).extension() == ".json" ? fs::path(argument).stem().string() : argument;
  for (const ScenePreset& preset : list_presets())
    if (preset.name == stem) return preset.path;
  return argument;
}

}  // namespace tw
