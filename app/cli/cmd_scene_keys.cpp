// `transformer-workbench scene-keys`: every scene key, one per line — key, type, range, default, help.
// scripts/gen-scene-docs.sh turns the --tsv form into docs/scenes.md, and a test keeps that file current.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/scene.h"
#include "core/base/i18n.h"

namespace tw {

namespace {

struct KeyRow {
  std::string key, type, range, default_text, help;
};

std::vector<KeyRow> scene_key_rows() {
  const AppState state = make_app_state();
  std::vector<KeyRow> rows;
  for (const auto& slot : state.panels)
    for (const Control& c : slot.panel->controls().all())
      rows.push_back({slot.info.id + "." + c.key, c.type_name(), c.range_text(),
                      scene_value(c, c.default_value).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                      c.help});
  return rows;
}

struct SceneKeysOptions {
  bool tsv = false;
};

int print_scene_keys(const SceneKeysOptions& o) {
  const std::vector<KeyRow> rows = scene_key_rows();
  if (o.tsv) {
    for (const KeyRow& r : rows)
      std::printf("%s\t%s\t%s\t%s\t%s\n", r.key.c_str(), r.type.c_str(), r.range.c_str(), r.default_text.c_str(),
                  r.help.c_str());
    return 0;
  }
  // Aligned columns for people; the help sentence is left to --tsv and docs/scenes.md to keep lines short.
  size_t w_key = 0, w_type = 0, w_range = 0;
  for (const KeyRow& r : rows) {
    w_key = std::max(w_key, r.key.size());
    w_type = std::max(w_type, r.type.size());
    w_range = std::max(w_range, r.range.size());
  }
  for (const KeyRow& r : rows)
    std::printf("%-*s  %-*s  %-*s  %s\n", static_cast<int>(w_key), r.key.c_str(), static_cast<int>(w_type),
                r.type.c_str(), static_cast<int>(w_range), r.range.c_str(), r.default_text.c_str());
  return 0;
}

void add_scene_keys_options(CLI::App& sub, SceneKeysOptions& o) {
  sub.add_flag("--tsv", o.tsv, tr("Tab-separated: key, type, range, default, help (for scripts)"));
}

}  // namespace

TW_REGISTER_COMMAND(options_command<SceneKeysOptions>(
    "scene-keys", N_("List every scene key: key, type, range, default (one per line)"), add_scene_keys_options,
    print_scene_keys));

}  // namespace tw
