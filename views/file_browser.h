#pragma once
// One small file browser for every path the GUI asks for (open/save scene, model folder, checkpoint, export
// folder): a folder list with Up and Home, recent places, a typed path (still accepted; relative paths and "~" are
// resolved against the folder shown, never the working directory), a filter by extension, folders-only mode and
// hidden files on request. Debian's Dear ImGui has no file dialog, so this is drawn with plain ImGui widgets.
//
// Keyboard: Up/Down select in the list (the path box follows), Enter chooses (a folder in files mode is entered),
// Alt+Up goes to the parent folder, Alt+Down enters the selected folder, Alt+Home goes home.

#include <string>
#include <vector>

namespace tw {

struct FileBrowserOptions {
  bool folders_only = false;            // model folders, checkpoint and export folders
  std::vector<std::string> extensions;  // files shown in files mode, e.g. {".json"}; empty: every file
  bool show_hidden = false;             // names starting with '.'
};

struct DirEntry {
  std::string name;
  bool is_dir = false;
};

struct DirListing {
  std::vector<DirEntry> entries;  // folders first, then files; each group sorted case-insensitively
  std::string error;              // one line naming the folder when it cannot be read; entries empty then
};

// The folder's entries under `options` (hidden names only when asked; files only in files mode and matching an
// extension, compared case-insensitively).
DirListing list_directory(const std::string& dir, const FileBrowserOptions& options);
// `typed` as an absolute, normalized path: "~" and "~/x" are under $HOME, a relative path is taken relative to
// `base` (the folder shown), a trailing separator is dropped (except for "/"); spaces and line breaks around it (a
// pasted path) are ignored.
std::string resolve_typed_path(const std::string& typed, const std::string& base);

class FileBrowser {
 public:
  explicit FileBrowser(FileBrowserOptions options = {});

  // Starts at `path`: the folder itself, or the folder of a file (the path box keeps the file's name); the nearest
  // existing ancestor when it does not exist; the home folder when none does.
  void open(const std::string& path);
  // Shows `dir`. When it cannot be read, the previous folder stays and error() says why; returns whether it moved.
  bool go_to(const std::string& dir);
  void up();
  void home();
  // Up/Down in the list (clamped); the path box follows the selection.
  void select(int index);
  // What Enter or a double-click on the selection does: enters a folder (files mode, or `enter_folder`), else
  // chooses it. Returns true when a path was chosen (then path() is it).
  bool activate(int index, bool enter_folder = false);
  // What Enter in the path box does: a folder is entered in files mode, anything else is chosen (the caller checks
  // it: a scene that does not load, a folder without config.json). Returns true when chosen.
  bool submit_typed();
  void set_show_hidden(bool show);

  // The widget (path box, places, list, filter line) followed by `action` (Open / Save / Choose); true in the
  // frame the user chose a path (Enter, double-click or the button), which path() then holds.
  bool draw(const char* action);

  const std::string& dir() const { return dir_; }
  const std::string& path() const { return path_; }  // the path box: what the action uses
  void set_path(const std::string& path) {
    path_ = path;
    path_changed_ = true;
  }
  const std::string& error() const { return error_; }
  const DirListing& listing() const { return listing_; }
  int selected() const { return selected_; }
  const FileBrowserOptions& options() const { return options_; }

  // Folders a path was chosen in during this run, newest first (at most 8), shared by every browser.
  static const std::vector<std::string>& recent_places();
  static void remember_place(const std::string& dir);

 private:
  void refresh();
  std::string join(const std::string& name) const;
  // The parts draw() shows, top to bottom; each returns true when a path was chosen.
  void draw_places(float height);
  bool draw_entries(float height);
  void draw_listing_note() const;
  bool keyboard(bool box_has_keys);

  FileBrowserOptions options_;
  std::string dir_;
  std::string path_;
  std::string error_;
  DirListing listing_;
  int selected_ = -1;
  bool path_changed_ = false;  // the path box must show path_ although it is being edited
  bool scroll_to_selection_ = false;
  bool refocus_ = false;  // give the path box the keyboard again after a click in the lists
};

// A "Browse..." button beside a path field; it opens a modal with `browser` (started at *path) and writes the
// chosen path back. Returns true in the frame *path changed. `id` keeps the popups of several rows apart.
bool browse_button(const char* id, FileBrowser& browser, std::string* path);

}  // namespace tw
