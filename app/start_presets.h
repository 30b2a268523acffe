#pragma once
// The start page's data (no ImGui drawing here): the lecture presets as cards, and their thumbnails rendered with
// our own plot layer on a worker thread, one preset at a time, so a frame never waits for a preset's computation.
//
//   StartPresets sp;  sp.refresh();                        // lists assets/scenes, starts the worker
//   each frame: sp.take_thumbnails(upload);                // finished thumbnails → textures (UI thread)
//               int i = draw_start_cards(sp.cards(), ...);   // views/start_page.h
//
// Thumbnails: the preset is loaded into a scratch AppState of its own, the panel of its "thumbnail" field (else its
// first open panel) computes, and that figure (else the panel's first) is rendered as a PNG in the print theme at its
// export size, then halved (2 × 2 box filter). A Training panel first trains a few dozen real steps, so its card shows
// a falling loss, not empty axes.

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "app/scene_presets.h"
#include "core/base/i18n.h"
#include "views/start_page.h"

namespace tw {

// [SECTION] pure helpers (tested)
// "train-pre-vs-post" → "Train: pre vs post"; "softmax" → "Softmax"; "stability-zloss" → "Stability: z-loss";
// "gqa" → "GQA".
std::string preset_title(const std::string& name);
// The description's first sentence without a leading "Lecture: " (at most `max_chars` bytes, cut at a word).
std::string preset_summary(const std::string& description, size_t max_chars = 110);
// The card's title, summary and tooltip in the interface language: the scene's title_zh / description_zh in Chinese
// when it has them, else the English ones (title from the file name).
void set_card_text(StartCard* card, const ScenePreset& preset);
// 2 × 2 box filter of RGBA8 pixels (odd edges dropped).
std::vector<uint8_t> halve_rgba(const std::vector<uint8_t>& rgba, int w, int h, int* out_w, int* out_h);

struct PresetThumbnail {
  std::string name;           // preset name
  std::string error;          // non-empty: the preset could not be loaded (the card shows it)
  int width = 0, height = 0;  // pixels; 0 when there is no figure
  std::vector<uint8_t> rgba;
  std::string figure;   // "<panel>.<figure>" shown ("" when none)
  int line_points = 0;  // finite points of the figure's lines (0 for a curve figure that shows empty axes)
};
// Loads `preset` into `scratch` (an AppState of its own), computes the thumbnail's panel and renders its figure.
// Blocking (seconds for a training preset); any thread that owns `scratch`.
struct AppState;
PresetThumbnail render_preset_thumbnail(AppState& scratch, const ScenePreset& preset);

// [SECTION] the start page model
class StartPresets {
 public:
  StartPresets() = default;
  ~StartPresets();  // cancels the worker and waits for it (at most one preset's computation)
  StartPresets(const StartPresets&) = delete;
  StartPresets& operator=(const StartPresets&) = delete;

  // Re-lists the presets and (re)starts thumbnail rendering for those without one. Cheap to call when nothing
  // changed: only the first call, or one after the presets folder changed, starts work.
  void refresh();
  // Moves finished thumbnails into the cards; `upload` turns RGBA pixels into a texture (null on failure).
  void take_thumbnails(const std::function<ImTextureID(int w, int h, const uint8_t* rgba)>& upload);
  const std::vector<StartCard>& cards() const { return cards_; }
  const std::vector<ScenePreset>& presets() const { return presets_; }
  const std::string& dir() const { return dir_; }
  bool busy() const { return running_.load(); }  // the worker still renders (the app keeps drawing frames)

 private:
  void stop();
  std::vector<ScenePreset> presets_;
  std::vector<StartCard> cards_;
  std::string dir_;
  bool listed_ = false;
  Language language_ = Language::En;  // the language of the cards' text
  std::thread worker_;
  std::atomic<bool> cancel_{false}, running_{false};
  std::mutex mutex_;
  std::vector<PresetThumbnail> done_;  // guarded by mutex_
};

}  // namespace tw
