#include "app/language.h"

#include <string_view>

namespace tw {

std::optional<Language> apply_language_argument(int argc, const char* const* argv) {
  std::optional<Language> named;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--lang" && i + 1 < argc)
      named = parse_language(argv[i + 1]);
    else if (a.substr(0, 7) == "--lang=")
      named = parse_language(a.substr(7));
  }
  set_language(named.value_or(language_from_environment()));
  return named;
}

void add_language_option(CLI::App& app, std::string* value) {
  app.add_option("--lang", *value, tr("Interface and figure language: en or zh (default: the environment's locale)"))
      ->check(CLI::IsMember({"en", "zh"}));
}

}  // namespace tw
