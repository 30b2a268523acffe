// Panel explanations compiled in from views/text/<id>.txt (views/text/panel_text.cmake).
#include "views/text/panel_text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "views/panel.h"
#include "views/panel_test_util.h"

namespace tw {
namespace {

TEST(PanelText, EveryPanelHasOneExplanationAndEveryTextFileAPanel) {
  std::vector<std::string> ids = testing::registered_ids();
  ASSERT_FALSE(ids.empty());
  for (const std::string& id : ids) {
    const std::string text = panel_text(id);
    EXPECT_GT(text.size(), 100u) << id;
    // Wrapped lines were joined into one paragraph: no line breaks, no doubled or trailing spaces.
    EXPECT_EQ(text.find('\n'), std::string::npos) << id;
    EXPECT_EQ(text.find("  "), std::string::npos) << id;
    EXPECT_NE(text.back(), ' ') << id;
  }
  // views/text holds one file per registered panel, no more.
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(TW_SOURCE_DIR) / "views/text"))
    if (entry.path().extension() == ".txt") files.push_back(entry.path().stem().string());
  std::sort(ids.begin(), ids.end());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, ids);
  EXPECT_STREQ(panel_text("no-such-panel"), "");
}

TEST(PanelText, EqualsItsFileWithLinesJoined) {
  std::ifstream in(std::filesystem::path(TW_SOURCE_DIR) / "views/text/softmax.txt");
  ASSERT_TRUE(in);
  std::string joined, line;
  while (std::getline(in, line)) joined += (joined.empty() ? "" : " ") + line;
  EXPECT_EQ(panel_text("softmax"), joined);
  // UTF-8 arrives as written (the middle dot, Σ and τ were \x escapes in C++ source before).
  EXPECT_NE(joined.find("Var(q\u00B7k) = d_k"), std::string::npos);
  EXPECT_NE(joined.find("\u03A3_j exp(x_j / \u03C4)"), std::string::npos);
}

}  // namespace
}  // namespace tw
