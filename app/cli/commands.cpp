#include "app/cli/commands.h"
#include "core/base/i18n.h"

namespace tw {

namespace {
std::vector<Command>& commands() {
  static std::vector<Command> list;
  return list;
}
}  // namespace

bool register_command(Command command) {
  commands().push_back(std::move(command));
  return true;
}

const std::vector<Command>& registered_commands() { return commands(); }

void add_scene_command_options(CLI::App& sub, SceneCommandOptions& o, const std::string& preset_example,
                               const std::string& out_help) {
  sub.add_option("--scene", o.scene,
                 subst(tr("Scene file, or the name of a shipped preset (e.g. {0})"), {preset_example}));

  sub.add_option("--set", o.sets, tr("Override a scene key: key=value (repeatable; see scene-keys)"));
  sub.add_option("--out", o.out, out_help);
  sub.add_option("--format", o.formats, tr("Comma-separated formats: png,svg,csv (default: all three)"));
}

}  // namespace tw
