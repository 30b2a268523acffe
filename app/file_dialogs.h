#pragma once
// What the File menu's popups remember between frames (plain data; drawn by app/file_menu.cpp).

#include <string>
#include <vector>

#include "app/scene_presets.h"  // ScenePreset (scene_presets.cpp does not include scene.h: no include loop)
#include "core/io/user_dirs.h"
#include "views/file_browser.h"

namespace tw {

// The name File > Save scene offers first (a desktop file manager opens *.twscene.json with this program).
inline constexpr const char* kDefaultSceneName = "scene.twscene.json";

enum class FileDialog { None, OpenScene, SaveScene, ExportFigures, OpenModel };

struct FileDialogs {
  FileDialog requested = FileDialog::None;  // set by the menu or a shortcut; the popup opens next frame
  // Open and Save share it (absolute, under home); *.twscene.json is the name a file manager opens with this program.
  std::string scene_path = user_work_dir() + "/" + kDefaultSceneName;
  std::vector<ScenePreset> presets;   // re-read each time the Open popup opens
  std::string presets_dir;            // where they were found (shown, so a missing folder is visible)
  std::string model_dir;              // Open model folder: a Hugging Face folder
  std::vector<std::string> existing;  // Export: files that would be overwritten (the popup asks)
  std::string message;                // the last error or result, shown inside the open popup
  FileBrowser scene_browser{{.folders_only = false, .extensions = {".json"}}};  // Open and Save scene
  FileBrowser model_browser{{.folders_only = true, .extensions = {}}};          // Open model folder
  FileBrowser export_browser{{.folders_only = true, .extensions = {}}};         // Export figures: the folder
  bool message_is_error = false;
};

}  // namespace tw
