#pragma once
// Subcommands of transformer-workbench (export, dump, scene-keys, ...). Adding one is adding one file in app/
// that ends with TW_REGISTER_COMMAND(...). Each command configures its CLI11 subcommand and returns the action
// to run when the subcommand was given; the action returns the process exit code and prints its own errors
// as one clear line on stderr.

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tw {

using CommandAction = std::function<int()>;

struct Command {
  std::string name;
  std::string description;
  // Adds options to `sub`, binding them to storage the returned action reads.
  std::function<CommandAction(CLI::App& sub)> setup;
};

bool register_command(Command command);
const std::vector<Command>& registered_commands();

// A command whose options are the fields of one struct: `add_options` binds them to the subcommand, `run` reads
// them once the command line is parsed.
template <class Options>
Command options_command(std::string name, std::string description, void (*add_options)(CLI::App&, Options&),
                        int (*run)(const Options&)) {
  return {.name = std::move(name),
          .description = std::move(description),
          .setup = [add_options, run](CLI::App& sub) -> CommandAction {
            auto o = std::make_shared<Options>();
            add_options(sub, *o);
            return [o, run] { return run(*o); };
          }};
}

// Headless limits (README, "Command line"): `dump` refuses a model whose memory estimate is above this many MiB
// unless --memory-cap raises it; `export` stops a panel's computation that runs, or at its pace would run, longer
// than this many seconds unless --max-seconds raises it, keeping what it has.
inline constexpr double kHeadlessMemoryCapMb = 2048;
inline constexpr double kHeadlessMaxSeconds = 10;  // every shipped preset exports in under 3 s here

// What every command that loads a scene headless (export, train) takes: --scene, --set, --out, --format.
struct SceneCommandOptions {
  std::string scene;                    // a scene file or the name of a shipped preset
  std::vector<std::string> sets;        // key=value overrides, applied in order
  std::string out;                      // the directory to write into
  std::string formats = "png,svg,csv";  // figure formats
};
// Adds those four options; --scene's help names `preset_example`, --out's help is `out_help`.
void add_scene_command_options(CLI::App& sub, SceneCommandOptions& o, const std::string& preset_example,
                               const std::string& out_help);

#define TW_REGISTER_COMMAND(...) \
  static const bool TW_CMD_CONCAT(tw_registered_command_, __COUNTER__) = ::tw::register_command(__VA_ARGS__)
#define TW_CMD_CONCAT_INNER(a, b) a##b
#define TW_CMD_CONCAT(a, b) TW_CMD_CONCAT_INNER(a, b)

}  // namespace tw
