#pragma once
// Where the data files the app ships (assets/) are found at run time: next to the executable first (an installed
// or copied build), then the source tree the build came from. Nothing is downloaded.
//
// The roots, in order, first match wins:
//   1. <directory of the executable>/assets                          (a copied or packaged app carries its assets)
//   2. <directory of the executable>/../share/transformer-workbench  (an installed layout, wherever it was moved)
//   3. TW_ASSETS_DIR, the source tree's assets/, compiled in by CMake (a build directory anywhere; before the system
//      folders, so a developer's build never reads an installed package's older data)
//   4. <each directory of $XDG_DATA_DIRS>/transformer-workbench       (default /usr/local/share:/usr/share; a binary
//      copied without its data)

#include <string>

namespace tw {

// The full path of <root>/<relative> for the first root where that file exists, else "".
std::string find_asset(const std::string& relative);

// The canonical path of <root>/<folder> for the first root where that directory exists (e.g. "scenes",
// "models"), else "".
std::string find_asset_dir(const std::string& folder);

// The compiled message catalogue of language `lang` ("zh"), <root>/<lang>/LC_MESSAGES/transformer-workbench.mo,
// for the first locale root where it exists, else "". Roots, in order:
//   1. <directory of the executable>/locale            (the build tree: CMake compiles po/ there)
//   2. <directory of the executable>/../share/locale   (an installed layout)
//   3. <dir>/locale for each dir in $XDG_DATA_DIRS      (default /usr/local/share:/usr/share)
//   4. TW_LOCALE_DIR, the build tree's locale/, compiled in (test programs live in other directories)
std::string find_catalogue(const std::string& lang);

}  // namespace tw
