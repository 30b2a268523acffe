#pragma once
// The panel explanations as English paragraphs (views/text/<id>.txt), generated into panel_text_strings.cpp by
// views/text/panel_text.cmake. panel_text() (views/text/panel_text.h) is what panels call.

#include <span>
#include <string_view>

namespace tw {

struct PanelParagraph {
  std::string_view id;  // panel id, the .txt file's name
  const char* text;     // one paragraph, the catalogue's msgid
};

// Every paragraph of every panel, grouped by panel id (sorted) and in reading order within a panel.
std::span<const PanelParagraph> panel_paragraphs();

}  // namespace tw
