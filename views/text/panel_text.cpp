#include "views/text/panel_text.h"

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "core/base/i18n.h"
#include "views/text/panel_text_strings.h"

namespace tw {

const char* panel_text(std::string_view id) {
  std::string joined;
  int count = 0;
  const char* single = "";
  for (const PanelParagraph& p : panel_paragraphs()) {
    if (p.id != id) continue;
    single = tr(p.text);
    if (count++) joined += '\n';  // appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "…" + std::string
    joined += single;
  }
  if (count <= 1) return single;  // tr() already returns a pointer that lives forever
  // Several paragraphs: keep each joined text (one per language and panel) for the life of the process.
  static std::mutex mutex;
  static std::map<std::pair<Language, std::string>, std::string> kept;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto [it, inserted] = kept.try_emplace({language(), std::string(id)}, std::move(joined));
  return it->second.c_str();
}

}  // namespace tw
