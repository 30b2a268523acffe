#pragma once
// Start page: the shipped lecture presets as cards (title, one-line summary, thumbnail of the preset's main
// figure). Drawing only: app/start_presets.* lists the presets and renders the thumbnails on a worker; the app
// loads the scene of the card the user clicks.

#include <imgui.h>

#include <string>
#include <vector>

#include "views/plot/theme.h"

namespace tw {

struct StartCard {
  std::string name;                 // preset file stem, e.g. "softmax" (unique)
  std::string title;                // "Softmax", "Train: pre vs post"
  std::string summary;              // the description's first sentence
  std::string description;          // the whole description (tooltip)
  std::string error;                // non-empty: the preset cannot be loaded; shown on the card, which is disabled
  ImTextureID thumbnail = nullptr;  // null while rendering (or when it could not be rendered)
  int thumb_w = 0, thumb_h = 0;     // pixels of the thumbnail texture
  bool thumbnail_done = false;      // the worker has answered for this card (texture or error)
};

// Draws the start window's body as a flowing grid of cards. `presets_dir` is shown in the empty state. Returns
// the index of the card clicked this frame, or -1.
int draw_start_cards(const std::vector<StartCard>& cards, const std::string& presets_dir, const DrawContext& ctx);

}  // namespace tw
