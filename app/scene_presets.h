#pragma once
// Shipped lecture presets: assets/scenes/*.json, listed in File > Open and accepted by `export --scene NAME`.
//
// The presets are the "scenes" folder of the shipped assets, found as core/assets.h finds every asset folder.

#include <cstddef>
#include <string>
#include <vector>

namespace tw {

constexpr size_t kSceneMaxBytes = size_t{8} << 20;  // larger scene files are refused before parsing

struct ScenePreset {
  std::string name;            // file name without .json, e.g. "softmax"
  std::string path;            // full path of the file
  std::string description;     // the scene's "description" field; empty when absent or unreadable
  std::string title_zh;        // the scene's "title_zh": the start card's title in Chinese; empty when absent
  std::string description_zh;  // the scene's "description_zh"; empty when absent
  std::string thumbnail;       // the scene's "thumbnail" field, "<panel>.<figure>" for its start-page card; empty: none
  int lesson = 0;              // 1-based lesson of kLessonOrder it belongs to; 0: not in a lesson (listed last)
};

// The lecture sequence: lessons in order, and in each the presets in the order they are taught. File > Open and the
// start page list presets this way (a preset not named here comes after, by name).
struct LessonPresets {
  const char* title;
  std::vector<const char*> presets;  // file names without .json
};
const std::vector<LessonPresets>& lesson_order();

// The preset's description in the interface language (the English one when the scene has none in it).
const std::string& preset_description(const ScenePreset& preset);

std::string presets_dir();                // empty when no candidate directory exists
std::vector<ScenePreset> list_presets();  // in lesson order (lesson_order()); reads each file's description

// A scene argument as typed: an existing file is used as is; otherwise a bare name ("softmax" or
// "softmax.json") names a preset. Returns the path to open (the argument itself when nothing matched, so the
// loader reports the missing file by the name the user typed).
std::string resolve_scene_argument(const std::string& argument);

}  // namespace tw
