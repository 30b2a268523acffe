#pragma once
// Where the app suggests writing what the user saves (scenes, checkpoints): an absolute folder under the user's
// home, never the working directory the app happened to be started in.

#include <string>

namespace tw {

// $HOME/transformer-workbench (absolute); /tmp/transformer-workbench when HOME is unset or not absolute.
std::string user_work_dir();

}  // namespace tw
