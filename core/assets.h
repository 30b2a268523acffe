#pragma once
// Where the data files the app ships (assets/) are found at run time: next to the executable first (an installed
// or copied build), then the source tree the build came from. Nothing is downloaded.

#include <string>

namespace tw {

// The full path of assets/<relative> when that file exists, else "".
std::string find_asset(const std::string& relative);

}  // namespace tw
