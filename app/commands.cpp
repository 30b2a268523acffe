#include "app/commands.h"

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

}  // namespace tw
