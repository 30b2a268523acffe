// The one file browser (views/file_browser): listing order and filters, typed paths, navigation that keeps the
// previous folder on an error, and the keyboard path (Up/Down select, Enter chooses) driven headless through ImGui.
#include "views/file_browser.h"

#include <gtest/gtest.h>
#include <imgui.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "scratch_dir.h"

namespace tw {
namespace {

namespace fs = std::filesystem;
using tw::testing::ScratchDir;

void touch(const std::string& path) { std::ofstream(path) << "{}"; }

// b/ A/ .hidden/ then z.json, a.JSON, notes.txt, .secret.json
struct Tree {
  ScratchDir root{"tw-file-browser"};
  Tree() {
    fs::create_directory(root / "b");
    fs::create_directory(root / "A");
    fs::create_directory(root / ".hidden");
    touch(root / "z.json");
    touch(root / "a.JSON");
    touch(root / "notes.txt");
    touch(root / ".secret.json");
    touch(root / "b/inner.json");
  }
};

std::vector<std::string> names(const DirListing& l) {
  std::vector<std::string> out;
  for (const DirEntry& e : l.entries) out.push_back(e.is_dir ? e.name + "/" : e.name);
  return out;
}

TEST(FileBrowserListing, FoldersFirstThenFilesEachCaseInsensitive) {
  Tree t;
  const DirListing all = list_directory(t.root.path(), {});
  EXPECT_TRUE(all.error.empty());
  EXPECT_EQ(names(all), (std::vector<std::string>{"A/", "b/", "a.JSON", "notes.txt", "z.json"}));
}

TEST(FileBrowserListing, ExtensionFilterIgnoresCaseAndKeepsFolders) {
  Tree t;
  const DirListing json = list_directory(t.root.path(), {.folders_only = false, .extensions = {".json"}});
  EXPECT_EQ(names(json), (std::vector<std::string>{"A/", "b/", "a.JSON", "z.json"}));
}

TEST(FileBrowserListing, HiddenNamesOnlyWhenAsked) {
  Tree t;
  const DirListing hidden =
      list_directory(t.root.path(), {.folders_only = false, .extensions = {".json"}, .show_hidden = true});
  EXPECT_EQ(names(hidden), (std::vector<std::string>{".hidden/", "A/", "b/", ".secret.json", "a.JSON", "z.json"}));
}

TEST(FileBrowserListing, FoldersOnlyListsNoFile) {
  Tree t;
  EXPECT_EQ(names(list_directory(t.root.path(), {.folders_only = true, .extensions = {}})),
            (std::vector<std::string>{"A/", "b/"}));
}

TEST(FileBrowserListing, AMissingFolderOrAFileIsOneLineNamingIt) {
  Tree t;
  for (const std::string& bad : {t.root / "nope", t.root / "notes.txt"}) {
    const DirListing l = list_directory(bad, {});
    EXPECT_TRUE(l.entries.empty());
    EXPECT_NE(l.error.find(bad), std::string::npos) << l.error;
    EXPECT_EQ(l.error.find('\n'), std::string::npos) << l.error;
  }
}

TEST(FileBrowserPaths, TypedPathsAreAbsoluteAndNeverTheWorkingDirectory) {
  Tree t;
  const char* old_home = std::getenv("HOME");
  const std::string saved = old_home ? old_home : "";
  ::setenv("HOME", t.root.path().c_str(), 1);
  EXPECT_EQ(resolve_typed_path("~", "/usr"), t.root.path());
  EXPECT_EQ(resolve_typed_path("~/b/", "/usr"), t.root / "b");
  EXPECT_EQ(resolve_typed_path("x/../share/", "/usr"), "/usr/share");
  EXPECT_EQ(resolve_typed_path("/etc//", "/usr"), "/etc");
  EXPECT_EQ(resolve_typed_path("/", "/usr"), "/");
  EXPECT_EQ(resolve_typed_path("", "/usr"), "/usr");
  // Pasted with a space or a line break around it (seen replaying issue 27's file dialogs): the same path.
  EXPECT_EQ(resolve_typed_path(" /etc/hosts \n", "/usr"), "/etc/hosts");
  EXPECT_EQ(resolve_typed_path("\tshare ", "/usr"), "/usr/share");
  EXPECT_EQ(resolve_typed_path("  ", "/usr"), "/usr");
  if (old_home)
    ::setenv("HOME", saved.c_str(), 1);
  else
    ::unsetenv("HOME");
}

TEST(FileBrowserNavigation, OpensAtAFilesFolderWithItsNameInTheBox) {
  Tree t;
  FileBrowser b({.folders_only = false, .extensions = {".json"}});
  b.open(t.root / "b/new-scene.json");  // a new name in an existing folder (Save)
  EXPECT_EQ(b.dir(), t.root / "b");
  EXPECT_EQ(b.path(), t.root / "b/new-scene.json");
  EXPECT_EQ(names(b.listing()), (std::vector<std::string>{"inner.json"}));
  b.up();
  EXPECT_EQ(b.dir(), t.root.path());
  EXPECT_EQ(b.path(), t.root / "new-scene.json") << "the typed name follows the folder";
  b.open(t.root / "missing/deeper/scene.json");  // the nearest folder that exists
  EXPECT_EQ(b.dir(), t.root.path());
}

TEST(FileBrowserNavigation, AFolderThatCannotBeReadKeepsThePreviousOne) {
  Tree t;
  FileBrowser b;
  b.open(t.root.path());
  const size_t before = b.listing().entries.size();
  EXPECT_FALSE(b.go_to(t.root / "notes.txt"));
  EXPECT_EQ(b.dir(), t.root.path());
  EXPECT_EQ(b.listing().entries.size(), before);
  EXPECT_NE(b.error().find("notes.txt"), std::string::npos) << b.error();
  EXPECT_TRUE(b.go_to("b"));  // relative to the folder shown
  EXPECT_EQ(b.dir(), t.root / "b");
  EXPECT_TRUE(b.error().empty());
}

TEST(FileBrowserNavigation, FilesModeEntersFoldersAndChoosesFiles) {
  Tree t;
  FileBrowser b({.folders_only = false, .extensions = {".json"}});
  b.open(t.root.path());
  b.select(-5);  // clamped
  EXPECT_EQ(b.selected(), 0);
  b.select(99);
  EXPECT_EQ(b.selected(), 3);
  EXPECT_EQ(b.path(), t.root / "z.json");
  EXPECT_FALSE(b.activate(1));  // b/
  EXPECT_EQ(b.dir(), t.root / "b");
  EXPECT_TRUE(b.activate(0));  // inner.json
  EXPECT_EQ(b.path(), t.root / "b/inner.json");
  ASSERT_FALSE(FileBrowser::recent_places().empty());
  EXPECT_EQ(FileBrowser::recent_places().front(), t.root / "b");
  b.set_path("..");
  EXPECT_FALSE(b.submit_typed()) << "a typed folder is entered";
  EXPECT_EQ(b.dir(), t.root.path());
}

TEST(FileBrowserNavigation, FoldersModeChoosesTheFolder) {
  Tree t;
  FileBrowser b({.folders_only = true, .extensions = {}});
  b.open(t.root.path());
  b.select(1);
  EXPECT_TRUE(b.activate(1));
  EXPECT_EQ(b.path(), t.root / "b");
  EXPECT_EQ(b.dir(), t.root.path()) << "choosing does not enter";
  EXPECT_FALSE(b.activate(1, /*enter_folder=*/true));
  EXPECT_EQ(b.dir(), t.root / "b");
  b.set_path(t.root / "A");
  EXPECT_TRUE(b.submit_typed());
  EXPECT_EQ(b.path(), t.root / "A");
}

// The keyboard path through real ImGui frames: the path box has the keyboard, Down selects (the box shows the
// selection), Enter chooses it.
class FileBrowserKeys : public ::testing::Test {
 protected:
  enum { kDown = 1, kUp, kEnter };
  void SetUp() override {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(1600, 1000);
    io.DeltaTime = 1.0f / 60.0f;
    for (int k = 0; k < ImGuiKey_COUNT; ++k) io.KeyMap[k] = 100 + k;  // keyboard navigation needs every key mapped
    io.KeyMap[ImGuiKey_DownArrow] = kDown;
    io.KeyMap[ImGuiKey_UpArrow] = kUp;
    io.KeyMap[ImGuiKey_Enter] = kEnter;
    io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;  // as the app
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  }
  void TearDown() override { ImGui::DestroyContext(); }
  // One frame with `key` held (0: none); returns what draw() returned.
  static bool frame(FileBrowser& b, int key) {
    ImGuiIO& io = ImGui::GetIO();
    for (int k : {kDown, kUp, kEnter}) io.KeysDown[k] = (k == key);
    ImGui::NewFrame();
    ImGui::Begin("browser");
    const bool chosen = b.draw("Choose");
    ImGui::End();
    ImGui::Render();
    return chosen;
  }
};

TEST_F(FileBrowserKeys, DownTwiceThenEnterChoosesTheSecondFolder) {
  Tree t;
  FileBrowser b({.folders_only = true, .extensions = {}});
  b.open(t.root.path());
  EXPECT_FALSE(frame(b, 0));
  EXPECT_FALSE(frame(b, 0));
  EXPECT_FALSE(frame(b, kDown));
  EXPECT_FALSE(frame(b, 0));
  EXPECT_FALSE(frame(b, kDown));
  EXPECT_FALSE(frame(b, 0));
  EXPECT_EQ(b.selected(), 1);
  bool chosen = frame(b, kEnter);
  chosen = frame(b, 0) || chosen;
  EXPECT_TRUE(chosen);
  EXPECT_EQ(b.path(), t.root / "b");
}

TEST_F(FileBrowserKeys, EnterOnAFolderInFilesModeEntersIt) {
  Tree t;
  FileBrowser b({.folders_only = false, .extensions = {".json"}});
  b.open(t.root.path());
  frame(b, 0);
  frame(b, 0);
  frame(b, kDown);
  frame(b, 0);
  EXPECT_EQ(b.path(), t.root / "A");
  frame(b, kEnter);
  frame(b, 0);
  EXPECT_EQ(b.dir(), t.root / "A");
  frame(b, kUp);  // an empty folder: nothing to select, nothing breaks
  EXPECT_EQ(b.selected(), -1);
  frame(b, 0);
  b.up();  // the keyboard stays in the path box after Enter and after moving
  frame(b, 0);
  frame(b, kDown);
  frame(b, 0);
  frame(b, kDown);
  frame(b, 0);
  EXPECT_EQ(b.selected(), 1);
  EXPECT_EQ(b.path(), t.root / "b");
}

TEST_F(FileBrowserKeys, TheFirstDownAfterEnterSelects) {
  Tree t;
  FileBrowser b({.folders_only = false, .extensions = {".json"}});
  b.open(t.root.path());
  frame(b, 0);
  frame(b, 0);
  b.set_path(t.root / "b");
  frame(b, kEnter);
  ASSERT_EQ(b.dir(), t.root / "b");
  frame(b, kDown);  // in the very next frame, as a slow frame delivers queued keys
  frame(b, 0);
  EXPECT_EQ(b.selected(), 0);
  EXPECT_EQ(b.path(), t.root / "b/inner.json");
}

}  // namespace
}  // namespace tw
