#pragma once
// What `transformer-workbench --version` reports: which build this is and what it found on this machine, so a
// bug report from a classroom PC says which kernel multiplied and which fonts drew.

#include <string>

namespace tw {

// From git at configure time (cmake/version.cmake): "0.1.0+git812.e9ce1b3a1" and "e9ce1b3a1".
const char* build_version();
const char* build_commit();

// Several lines: version and commit, the OpenBLAS kernel in use, the font files found, the data folder in use.
std::string version_report();

}  // namespace tw
