// Start page data and thumbnails (see start_presets.h).
#include "app/start_presets.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <exception>
#include <string_view>
#include <utility>

#include "app/app_state.h"
#include "app/scene.h"
#include "core/base/i18n.h"
#include "core/base/utf8.h"
#include "core/train/trainer.h"
#include "core/train/trainer_session.h"
#include "views/async_job.h"
#include "views/panel_train.h"
#include "views/plot/export.h"
#include "views/plot/math.h"

namespace tw {

// [SECTION] pure helpers
std::string preset_title(const std::string& name) {
  // Words spelled as the field spells them; the rest get a capital first letter when they start the title.
  static constexpr std::pair<const char*, const char*> kSpelling[] = {
      {"alibi", "ALiBi"}, {"gqa", "GQA"},      {"lora", "LoRA"},           {"moe", "MoE"},
      {"rope", "RoPE"},   {"zloss", "z-loss"}, {"softcap", "soft-capping"}};
  std::string out, word;
  int words = 0;
  auto flush = [&] {
    if (word.empty()) return;
    std::string w = word;
    bool spelled = false;
    for (const auto& [from, to] : kSpelling)
      if (w == from) w = to, spelled = true;
    if (!spelled && words == 0) w[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(w[0])));
    out += w;
    word.clear();
    ++words;
  };
  bool first_dash = true;
  for (const char c : name) {
    if (c == '-' || c == '_') {
      flush();
      out += c == '-' && first_dash ? ": " : " ";
      if (c == '-') first_dash = false;
    } else {
      word += c;
    }
  }
  flush();
  return out;
}

std::string preset_summary(const std::string& description, size_t max_chars) {
  std::string text = description;
  for (const char* prefix : {"Lecture: ", "Lecture:", "\xE8\xAE\xB2\xE8\xA7\xA3\xEF\xBC\x9A"})  // 讲解：
    if (text.rfind(prefix, 0) == 0) {
      text.erase(0, std::string(prefix).size());
      break;
    }
  // First sentence: up to ". " (a decimal point such as "0.5" has no space after it) or the end.
  // An ellipsis ("[1 ... 9]") is not a full stop: the next word must start with a capital letter.
  for (size_t at = text.find(". "); at != std::string::npos; at = text.find(". ", at + 1)) {
    const bool ellipsis = at > 0 && text[at - 1] == '.';
    if (!ellipsis && at + 2 < text.size() && std::isupper(static_cast<unsigned char>(text[at + 2]))) {
      text.resize(at + 1);
      break;
    }
  }
  // A Chinese sentence ends at its full stop "。" (outside a formula).
  constexpr std::string_view kFullStop = "\xE3\x80\x82";
  for (size_t at = text.find(kFullStop); at != std::string::npos; at = text.find(kFullStop, at + 1))
    if (!plot::inside_math(text, at) && at + kFullStop.size() < text.size()) {
      text.resize(at + kFullStop.size());
      break;
    }
  if (text.size() > max_chars) {
    // At a space or after a Chinese comma in the second half, else at the limit; never inside a formula (a cut
    // "$\sqrt{95/3" would show as raw TeX), so a cut in one moves to before it.
    size_t cut = text.rfind(' ', max_chars);
    for (const std::string_view comma : {"\xEF\xBC\x8C", "\xE3\x80\x81", "\xEF\xBC\x9B"})  // ，、；
      if (const size_t c = text.rfind(comma, max_chars); c != std::string::npos && c + comma.size() <= max_chars &&
                                                         (cut == std::string::npos || c + comma.size() > cut))
        cut = c + comma.size();
    if (cut == std::string::npos || cut < max_chars / 2) cut = max_chars;
    while (cut > 0 && plot::inside_math(text, cut)) {
      const size_t open = text.rfind('$', cut - 1);
      if (open == std::string::npos) break;
      cut = open;
    }
    text.resize(utf8_prefix(text, cut).size());  // never inside a UTF-8 sequence
    while (!text.empty() && (text.back() == ',' || text.back() == ' ' || text.back() == ';')) text.pop_back();
    text += " \xE2\x80\xA6";  // the card's tooltip has the whole description
  }
  return text;
}

void set_card_text(StartCard* card, const ScenePreset& preset) {
  const bool zh = language() == Language::Zh;
  card->title = zh && !preset.title_zh.empty() ? preset.title_zh : preset_title(preset.name);
  card->description = preset_description(preset);
  // A Chinese character is about twice as wide as a Latin letter and takes three bytes: 150 bytes fill the same lines.
  card->summary = card->description.empty()
                      ? tr("(no description)")
                      : preset_summary(card->description, zh && !preset.description_zh.empty() ? 150 : 110);
}

std::vector<uint8_t> halve_rgba(const std::vector<uint8_t>& rgba, int w, int h, int* out_w, int* out_h) {
  const int hw = w / 2, hh = h / 2;
  std::vector<uint8_t> out(size_t(hw) * size_t(hh) * 4);
  for (int y = 0; y < hh; ++y)
    for (int x = 0; x < hw; ++x)
      for (int k = 0; k < 4; ++k) {
        auto at = [&](int yy, int xx) { return int(rgba[(size_t(yy) * size_t(w) + size_t(xx)) * 4 + size_t(k)]); };
        const int sum = at(2 * y, 2 * x) + at(2 * y, 2 * x + 1) + at(2 * y + 1, 2 * x) + at(2 * y + 1, 2 * x + 1);
        out[(size_t(y) * size_t(hw) + size_t(x)) * 4 + size_t(k)] = static_cast<uint8_t>((sum + 2) / 4);
      }
  *out_w = hw;
  *out_h = hh;
  return out;
}

namespace {

// Steps of the short real run a training preset's card shows (its loss already falling; the whole run is the
// lecturer's to start). About 1 s for the sort task and 4 s for a language model on one core, on the worker.
constexpr int kThumbnailTrainSteps = 60;

// The figures a thumbnail may show from `slot`: a Training panel's after a short real run (its untrained figures are
// empty axes), any other panel's current ones.
std::vector<plot::Figure> thumbnail_figures(PanelSlot& slot) {
  TrainSettings settings;
  int steps = 0;
  std::string error;
  if (!train_settings_of_panel(*slot.panel, &settings, &steps, &error)) return slot.panel->figures();
  Trainer trainer;
  if (!trainer.init(settings, &error)) return {};
  for (int i = 0; i < std::min(steps, kThumbnailTrainSteps); ++i)
    if (!trainer.step(&error)) break;
  return train_figures(make_snapshot(trainer), steps);
}

}  // namespace

PresetThumbnail render_preset_thumbnail(AppState& scratch, const ScenePreset& preset) {
  PresetThumbnail t;
  t.name = preset.name;
  // The figure the preset names ("stability.zloss"), else the first figure of its first open panel.
  const size_t dot = preset.thumbnail.find('.');
  const std::string want_panel = dot == std::string::npos ? "" : preset.thumbnail.substr(0, dot);
  const std::string want_figure = dot == std::string::npos ? "" : preset.thumbnail.substr(dot + 1);
  try {
    const SceneLoad load = load_scene_file(scratch, preset.path);
    if (!load.ok) {
      t.error = load.error;
      return t;
    }
    for (PanelSlot& slot : scratch.panels) {
      if (!slot.open || (!want_panel.empty() && slot.info.id != want_panel)) continue;
      slot.panel->update();
      slot.panel->wait_idle();
      const std::vector<plot::Figure> figures = thumbnail_figures(slot);
      const auto named =
          std::find_if(figures.begin(), figures.end(), [&](const plot::Figure& f) { return f.id == want_figure; });
      const plot::Figure* shown = named != figures.end() ? &*named : figures.empty() ? nullptr : &figures.front();
      if (!shown) continue;
      plot::ExportOptions options;
      options.theme = Theme::Print;
      options.scale = 1;
      const plot::RenderedPng png = plot::render_png(*shown, options);
      if (!png.error.empty()) continue;
      t.rgba = halve_rgba(png.rgba, png.width, png.height, &t.width, &t.height);
      t.figure = slot.info.id + "." + shown->id;
      for (const plot::Axes& ax : shown->grid)
        for (const plot::Item& item : ax.items)
          if (const auto* line = std::get_if<plot::LineItem>(&item))
            for (const double y : line->ys) t.line_points += std::isfinite(y) ? 1 : 0;
      return t;
    }
  } catch (const std::exception& e) {
    t.error = subst(tr("cannot compute the preset: {0}"), {e.what()});
  }
  return t;
}

// [SECTION] the start page model
StartPresets::~StartPresets() { stop(); }

void StartPresets::stop() {
  cancel_ = true;
  if (worker_.joinable()) worker_.join();
  cancel_ = false;
}

void StartPresets::refresh() {
  const std::string dir = presets_dir();
  if (listed_ && dir == dir_) {
    if (language_ != language()) {  // the interface language changed: the cards' text, not their thumbnails
      language_ = language();
      for (size_t i = 0; i < cards_.size() && i < presets_.size(); ++i) set_card_text(&cards_[i], presets_[i]);
    }
    return;
  }
  stop();
  listed_ = true;
  dir_ = dir;
  language_ = language();
  presets_ = list_presets();
  cards_.clear();
  for (const ScenePreset& p : presets_) {
    StartCard card;
    card.name = p.name;
    set_card_text(&card, p);
    cards_.push_back(std::move(card));
  }
  if (presets_.empty()) return;
  running_ = true;
  worker_ = std::thread([this, presets = presets_] {
    // One scratch state for every preset: a scene is the whole state, so each load resets what the last one set.
    AppState scratch = make_app_state();
    for (PanelSlot& slot : scratch.panels) slot.panel->set_background_priority(true);  // the UI thread comes first
    for (const ScenePreset& p : presets) {
      if (cancel_) break;
      PresetThumbnail t = render_preset_thumbnail(scratch, p);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        done_.push_back(std::move(t));
      }
      notify_result_ready();  // an idle window wakes to show the thumbnail
    }
    running_ = false;
  });
}

void StartPresets::take_thumbnails(const std::function<ImTextureID(int w, int h, const uint8_t* rgba)>& upload) {
  std::vector<PresetThumbnail> done;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done.swap(done_);
  }
  for (PresetThumbnail& t : done)
    for (StartCard& card : cards_) {
      if (card.name != t.name) continue;
      card.thumbnail_done = true;
      card.error = t.error;
      if (t.width > 0 && t.height > 0) {
        card.thumbnail = upload(t.width, t.height, t.rgba.data());
        card.thumb_w = t.width;
        card.thumb_h = t.height;
      }
    }
}

}  // namespace tw
