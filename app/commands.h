#pragma once
// Subcommands of transformer-workbench (export, dump, scene-keys, ...). Adding one is adding one file in app/
// that ends with TW_REGISTER_COMMAND(...). Each command configures its CLI11 subcommand and returns the action
// to run when the subcommand was given; the action returns the process exit code and prints its own errors
// as one clear line on stderr.

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

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

#define TW_REGISTER_COMMAND(...) \
  static const bool TW_CMD_CONCAT(tw_registered_command_, __LINE__) = ::tw::register_command(__VA_ARGS__)
#define TW_CMD_CONCAT_INNER(a, b) a##b
#define TW_CMD_CONCAT(a, b) TW_CMD_CONCAT_INNER(a, b)

}  // namespace tw
