#pragma once
// The interface language at start-up: --lang en|zh (GUI and every subcommand), else the last session's choice
// (GUI only), else the environment's locale (core/base/i18n.h language_from_environment).

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "core/base/i18n.h"

namespace tw {

// Sets the language from `--lang X` / `--lang=X` anywhere in argv, else from the environment, before any help text
// is built (so --help is already translated). Returns the language --lang named, if it named a valid one.
std::optional<Language> apply_language_argument(int argc, const char* const* argv);

// Declares --lang on `app` (the value is checked there; apply_language_argument has already acted on it).
void add_language_option(CLI::App& app, std::string* value);

}  // namespace tw
