// [SECTION] index
//   listing : list_directory, resolve_typed_path (no ImGui)
//   browser : navigation and selection (no ImGui)
//   draw    : the widget, its keyboard, and the Browse... button's modal
#include "views/file_browser.h"

#include <imgui.h>
#include <imgui_internal.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "core/base/i18n.h"
#include "core/io/user_dirs.h"
#include "views/widgets.h"

namespace tw {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string home_dir() {
  const char* home = std::getenv("HOME");
  return home && *home && fs::path(home).is_absolute() ? fs::path(home).lexically_normal().string() : "/";
}

bool is_dir(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

}  // namespace

// [SECTION] listing
DirListing list_directory(const std::string& dir, const FileBrowserOptions& options) {
  DirListing out;
  std::error_code ec;
  fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  if (ec) {
    out.error = subst(tr("Cannot read folder {0}: {1}"), {dir, ec.message()});
    return out;
  }
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const std::string name = it->path().filename().string();
    if (!options.show_hidden && !name.empty() && name[0] == '.') continue;
    std::error_code type_ec;
    const bool folder = it->is_directory(type_ec);  // follows symbolic links, as a file manager shows them
    if (!folder) {
      if (options.folders_only) continue;
      if (!options.extensions.empty()) {
        const std::string ext = lower(it->path().extension().string());
        if (std::none_of(options.extensions.begin(), options.extensions.end(),
                         [&](const std::string& e) { return lower(e) == ext; }))
          continue;
      }
    }
    out.entries.push_back({name, folder});
  }
  if (ec) {
    out.entries.clear();
    out.error = subst(tr("Cannot read folder {0}: {1}"), {dir, ec.message()});
    return out;
  }
  std::sort(out.entries.begin(), out.entries.end(), [](const DirEntry& a, const DirEntry& b) {
    if (a.is_dir != b.is_dir) return a.is_dir;
    const std::string la = lower(a.name), lb = lower(b.name);
    return la != lb ? la < lb : a.name < b.name;
  });
  return out;
}

std::string resolve_typed_path(const std::string& typed_text, const std::string& base) {
  // A path pasted from a terminal or a document often brings a space or line break with it.
  const size_t first = typed_text.find_first_not_of(" \t\r\n");
  const std::string typed =
      first == std::string::npos ? "" : typed_text.substr(first, typed_text.find_last_not_of(" \t\r\n") - first + 1);
  if (typed.empty()) return base;
  fs::path p;
  if (typed == "~")
    p = home_dir();
  else if (typed.rfind("~/", 0) == 0)
    p = fs::path(home_dir()) / typed.substr(2);
  else if (fs::path(typed).is_absolute())
    p = typed;
  else
    p = fs::path(base) / typed;
  std::string s = p.lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// [SECTION] browser
FileBrowser::FileBrowser(FileBrowserOptions options) : options_(std::move(options)) {}

namespace {
std::vector<std::string>& places_store() {
  static std::vector<std::string> places;  // UI thread only
  return places;
}
}  // namespace

const std::vector<std::string>& FileBrowser::recent_places() { return places_store(); }

void FileBrowser::remember_place(const std::string& dir) {
  std::vector<std::string>& places = places_store();
  places.erase(std::remove(places.begin(), places.end(), dir), places.end());
  places.insert(places.begin(), dir);
  if (places.size() > 8) places.resize(8);
}

std::string FileBrowser::join(const std::string& name) const { return (fs::path(dir_) / name).string(); }

void FileBrowser::refresh() {
  listing_ = list_directory(dir_, options_);
  selected_ = -1;
}

bool FileBrowser::go_to(const std::string& dir) {
  const std::string target = resolve_typed_path(dir, dir_.empty() ? home_dir() : dir_);
  DirListing listing = list_directory(target, options_);
  if (!listing.error.empty()) {
    error_ = listing.error;  // the folder shown and its list stay
    return false;
  }
  const std::string file = options_.folders_only || is_dir(path_) ? "" : fs::path(path_).filename().string();
  dir_ = target;
  listing_ = std::move(listing);
  selected_ = -1;
  error_.clear();
  path_ = file.empty() ? dir_ : join(file);
  path_changed_ = true;
  refocus_ = true;
  return true;
}

void FileBrowser::open(const std::string& path) {
  error_.clear();
  const std::string p = resolve_typed_path(path.empty() ? user_work_dir() : path, home_dir());
  std::string start = is_dir(p) ? p : fs::path(p).parent_path().string();
  while (!start.empty() && start != "/" && !is_dir(start)) start = fs::path(start).parent_path().string();
  if (start.empty() || !is_dir(start)) start = home_dir();
  dir_.clear();
  path_ = p;
  if (!go_to(start)) {  // unreadable: show home, keep the error visible
    const std::string why = error_;
    go_to(home_dir());
    error_ = why;
  }
  path_ = p;  // a folder that does not exist yet (a new checkpoint) or a new file name stays in the box
  path_changed_ = true;
}

void FileBrowser::up() {
  const fs::path parent = fs::path(dir_).parent_path();
  if (!parent.empty() && parent.string() != dir_) go_to(parent.string());
}

void FileBrowser::home() { go_to(home_dir()); }

void FileBrowser::set_show_hidden(bool show) {
  options_.show_hidden = show;
  refresh();
}

void FileBrowser::select(int index) {
  if (listing_.entries.empty()) return;
  selected_ = std::clamp(index, 0, static_cast<int>(listing_.entries.size()) - 1);
  path_ = join(listing_.entries[selected_].name);
  path_changed_ = true;
  scroll_to_selection_ = true;
}

bool FileBrowser::activate(int index, bool enter_folder) {
  if (index < 0 || index >= static_cast<int>(listing_.entries.size())) return false;
  const DirEntry entry = listing_.entries[index];
  if (entry.is_dir && (enter_folder || !options_.folders_only)) {
    go_to(join(entry.name));
    return false;
  }
  path_ = join(entry.name);
  path_changed_ = true;
  remember_place(entry.is_dir ? path_ : dir_);
  return true;
}

bool FileBrowser::submit_typed() {
  const std::string p = resolve_typed_path(path_, dir_);
  if (p.empty()) return false;
  if (is_dir(p) && !options_.folders_only) {
    go_to(p);
    return false;
  }
  path_ = p;
  path_changed_ = true;
  remember_place(is_dir(p) ? p : fs::path(p).parent_path().string());
  return true;
}

// [SECTION] draw
namespace {

bool key_pressed(ImGuiKey key) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(key), true); }

// Puts the browser's path into the path box while the box is being edited (ImGui keeps its own copy then).
int sync_path_box(ImGuiInputTextCallbackData* data) {
  auto* sync = static_cast<std::pair<const std::string*, bool*>*>(data->UserData);
  if (*sync->second) {
    data->DeleteChars(0, data->BufTextLen);
    data->InsertChars(0, sync->first->c_str());
    *sync->second = false;
  }
  return 0;
}

}  // namespace

// Places: home, the workbench's own folder, folders chosen in this run.
void FileBrowser::draw_places(float height) {
  const float em = ImGui::GetFontSize();
  ImGui::BeginChild("##places", ImVec2(em * 11.0f, height), true);
  auto place = [&](const std::string& label, const std::string& dir) {
    if (!is_dir(dir)) return;
    ImGui::PushID(dir.c_str());
    if (ImGui::Selectable(label.c_str(), dir == dir_)) {
      go_to(dir);
      refocus_ = true;
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", dir.c_str());
    ImGui::PopID();
  };
  place(tr("Home"), home_dir());
  place("transformer-workbench", user_work_dir());
  if (!recent_places().empty()) ImGui::TextDisabled("%s", tr("Recent"));
  for (const std::string& dir : recent_places()) place(fs::path(dir).filename().string(), dir);
  ImGui::EndChild();
}

// The folder's entries: a click selects, a double click opens a folder or chooses a file.
bool FileBrowser::draw_entries(float height) {
  const float em = ImGui::GetFontSize();
  ImGui::BeginChild("##entries", ImVec2(em * 24.0f, height), true);
  const float line = ImGui::GetTextLineHeightWithSpacing();
  if (scroll_to_selection_ && selected_ >= 0) {
    const float y = selected_ * line;
    if (y < ImGui::GetScrollY()) ImGui::SetScrollY(y);
    if (y + line > ImGui::GetScrollY() + ImGui::GetWindowHeight() - line)
      ImGui::SetScrollY(y + 2 * line - ImGui::GetWindowHeight());
  }
  scroll_to_selection_ = false;
  int clicked = -1, double_clicked = -1;
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(listing_.entries.size()), line);
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const DirEntry& e = listing_.entries[i];
      ImGui::PushID(i);
      const std::string label = e.is_dir ? e.name + "/" : e.name;
      if (ImGui::Selectable(label.c_str(), i == selected_, ImGuiSelectableFlags_AllowDoubleClick)) {
        clicked = i;
        if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) double_clicked = i;
      }
      ImGui::PopID();
    }
  }
  if (listing_.entries.empty() && listing_.error.empty())
    ImGui::TextDisabled("%s", options_.folders_only ? tr("(no folders here)") : tr("(no matching files here)"));
  ImGui::EndChild();
  if (clicked >= 0) {
    select(clicked);
    refocus_ = true;
  }
  return double_clicked >= 0 && activate(double_clicked);
}

// What is listed, and why a folder could not be shown.
void FileBrowser::draw_listing_note() const {
  if (options_.folders_only) {
    ImGui::TextDisabled("%s", tr("Folders only"));
  } else if (!options_.extensions.empty()) {
    std::string exts;
    for (const std::string& e : options_.extensions) exts += (exts.empty() ? "" : ", ") + e;
    ImGui::TextDisabled("%s", subst(tr("Showing folders and {0} files"), {exts}).c_str());
  }
  ImGui::SameLine();
  ImGui::TextDisabled("%s", tr("(Up/Down select, Enter opens, Alt+Up: parent folder)"));
  if (!error_.empty()) role_text(plot::UiRole::Bad, error_.c_str());
}

// Keys while the path box has the keyboard: Up/Down select, Alt+Up the parent, Alt+Down opens, Alt+Home home.
bool FileBrowser::keyboard(bool box_has_keys) {
  if (!box_has_keys) return false;
  const ImGuiIO& io = ImGui::GetIO();
  if (io.KeyAlt && key_pressed(ImGuiKey_UpArrow)) {
    up();
  } else if (io.KeyAlt && key_pressed(ImGuiKey_DownArrow)) {
    return activate(selected_, true);
  } else if (io.KeyAlt && key_pressed(ImGuiKey_Home)) {
    home();
  } else if (!io.KeyAlt && key_pressed(ImGuiKey_UpArrow)) {
    select(selected_ < 0 ? 0 : selected_ - 1);
  } else if (!io.KeyAlt && key_pressed(ImGuiKey_DownArrow)) {
    select(selected_ + 1);
  }
  return false;
}

bool FileBrowser::draw(const char* action) {
  const float em = ImGui::GetFontSize();
  bool chosen = false;
  ImGui::PushID(this);

  // The path box keeps the keyboard: typing, arrows for the list, Enter to choose.
  ImGui::SetNextItemWidth(em * 34.0f);
  // The box takes the keyboard a frame after it is asked to: keys that arrive meanwhile (a slow frame queues them)
  // belong to it already.
  const bool focusing = ImGui::IsWindowAppearing() || refocus_;
  if (focusing) ImGui::SetKeyboardFocusHere();
  refocus_ = false;
  std::string box = path_;
  std::pair<const std::string*, bool*> sync{&path_, &path_changed_};
  const bool enter = ImGui::InputText(
      "##path", &box, ImGuiInputTextFlags_EnterReturnsTrue | ImGuiInputTextFlags_CallbackAlways, sync_path_box, &sync);
  const bool box_active = ImGui::IsItemActive();
  if (box_active) {
    // Up/Down select in the list instead of moving the keyboard navigation away from the box.
    ImGui::GetCurrentContext()->ActiveIdUsingNavDirMask |= (1 << ImGuiDir_Up) | (1 << ImGuiDir_Down);
  } else {
    path_changed_ = false;  // the box shows path_ directly when it is not being edited
  }
  if (box != path_ && !path_changed_) path_ = box;
  if (enter) {
    chosen = submit_typed();
    refocus_ = true;  // ImGui lets go of a single-line box on Enter; the keyboard stays in the browser
  }
  ImGui::SameLine();
  if (ImGui::Button(action)) chosen = submit_typed();

  if (ImGui::Button(tr("Up"))) up();
  ImGui::SameLine();
  if (ImGui::Button(tr("Home"))) home();
  ImGui::SameLine();
  bool hidden = options_.show_hidden;
  if (ImGui::Checkbox(tr("Hidden files"), &hidden)) set_show_hidden(hidden);
  ImGui::SameLine();
  ImGui::TextDisabled("%s", dir_.c_str());

  // Twelve lines, fewer on a short screen (a projector at 200%: a quarter of its height), so the dialog around the
  // browser keeps its own list and its buttons on screen.
  const float line_h = ImGui::GetTextLineHeightWithSpacing();
  const float height = std::clamp(ImGui::GetMainViewport()->Size.y * 0.25f, line_h * 4.0f, line_h * 12.0f);
  draw_places(height);
  ImGui::SameLine();
  chosen = draw_entries(height) || chosen;
  draw_listing_note();
  chosen = keyboard(box_active || focusing || enter) || chosen;
  ImGui::PopID();
  return chosen;
}

bool browse_button(const char* id, FileBrowser& browser, std::string* path) {
  ImGui::PushID(id);
  const std::string title =
      std::string(browser.options().folders_only ? tr("Choose a folder") : tr("Choose a file")) + "###browse";
  if (ImGui::Button(tr("Browse..."))) {
    browser.open(*path);
    ImGui::OpenPopup(title.c_str());
  }
  bool changed = false;
  if (ImGui::BeginPopupModal(title.c_str(), nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    if (browser.draw(tr("Choose"))) {
      *path = browser.path();
      changed = true;
      ImGui::CloseCurrentPopup();
    }
    if (ImGui::Button(tr("Cancel")) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false))
      ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
  }
  ImGui::PopID();
  return changed;
}

}  // namespace tw
