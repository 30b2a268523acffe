// GUI export names (views/plot/export_naming.h): what the slug keeps and drops, the stem of real figure kinds, and
// the no-overwrite rule (the first free "-N" suffix for every format at once).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "views/plot/export_naming.h"

namespace tw::plot {
namespace {

namespace fs = std::filesystem;

TEST(ExportNaming, SlugKeepsWordsDotsAndUnderscoresAndDropsParentheses) {
  EXPECT_EQ(title_slug("Saturation as d_k grows (64 keys, 200 draws)"), "saturation-as-d_k-grows");
  EXPECT_EQ(title_slug("layers.1.attn.probs"), "layers.1.attn.probs");
  // Typeset formulas name files by their words, not their TeX.
  EXPECT_EQ(title_slug("Saturation as $d_k$ grows"), "saturation-as-d_k-grows");
  EXPECT_EQ(title_slug("Wavelength $2\\pi/\\theta_k$ per pair"), "wavelength-2-pi-theta_k-per-pair");
  EXPECT_EQ(title_slug("Scale $\\frac{1}{\\sqrt{d_k}}$ vs $\\mathbf{W}_Q$"), "scale-1-sqrt-d_k-vs-w_q");
  EXPECT_EQ(title_slug("Gradient norm per layer (before clipping)"), "gradient-norm-per-layer");
  // Greek letters and math signs are spelled out; other symbols become word breaks.
  EXPECT_EQ(title_slug("Wavelength 2\xCF\x80/\xCE\xB8_k per pair"), "wavelength-2-pi-theta-_k-per-pair");
  EXPECT_EQ(title_slug("MHA \xE2\x86\x92 GQA by mean-pooling K/V heads: output error"),
            "mha-to-gqa-by-mean-pooling-k-v-heads-output");  // 48 bytes at most, cut at a word
  // A sentence-ending dot is not kept; nothing but punctuation leaves nothing.
  EXPECT_EQ(title_slug("Scatter."), "scatter");
  EXPECT_EQ(title_slug("\xE2\x80\x94 ?!"), "");
}

TEST(ExportNaming, SlugIsCutAtAWordBoundary) {
  const std::string slug = title_slug("one two three four five six seven eight nine ten eleven twelve", 20);
  EXPECT_LE(slug.size(), 20u);
  EXPECT_EQ(slug, "one-two-three-four");
}

TEST(ExportNaming, EverySlugIsAValidFileName) {
  for (const char* title :
       {"Step 3 (of 0\xE2\x80\x93"
        "7)",
        "cos(m\xC2\xB7\xCE\xB8_k) over positions \xC3\x97 pairs", "Slope m per head", "x / y .. z", "..", "a...b",
        "QK\xE1\xB5\x80/\xE2\x88\x9A"
        "d"}) {
    const std::string slug = title_slug(title);
    if (!slug.empty()) {
      EXPECT_TRUE(valid_figure_id(slug)) << title << " -> " << slug;
    }
    EXPECT_EQ(slug.find("--"), std::string::npos) << slug;
    EXPECT_NE(slug.front(), '-');
  }
}

TEST(ExportNaming, StemIsPanelIdAndWhatTheFigureShows) {
  Figure sweep("sweep", "Saturation as d_k grows (64 keys)");
  EXPECT_EQ(figure_file_stem("softmax", sweep), "softmax-sweep-saturation-as-d_k-grows");
  Figure step("step", "Attention probabilities  (layers.1.attn.probs)");
  step.subject = "layers.1.attn.probs";  // the panel names the subject: the title's words are not used
  EXPECT_EQ(figure_file_stem("forward", step), "forward-step-layers.1.attn.probs");
  Figure scatter("scatter", "Scatter");  // a title that only repeats the id adds nothing
  EXPECT_EQ(figure_file_stem("gallery", scatter), "gallery-scatter");
}

class ExportNamingFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tw_export_naming_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void touch(const std::string& name) { std::ofstream(dir_ / name) << "old"; }
  std::string read(const std::string& name) {
    std::ifstream in(dir_ / name);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  fs::path dir_;
};

TEST_F(ExportNamingFiles, ExistingFilesAreFoundPerFormat) {
  touch("a.png");
  touch("a.csv");
  EXPECT_EQ(existing_export_files(dir_.string(), "a", ExportFormat_Svg).size(), 0u);
  EXPECT_EQ(existing_export_files(dir_.string(), "a", ExportFormat_Png).size(), 1u);
  EXPECT_EQ(existing_export_files(dir_.string(), "a", ExportFormat_All).size(), 2u);
}

TEST_F(ExportNamingFiles, KeepBothTakesTheFirstSuffixFreeForEveryFormat) {
  EXPECT_EQ(free_export_stem(dir_.string(), "a", ExportFormat_All), "a");  // nothing there: the name itself
  touch("a.png");
  EXPECT_EQ(free_export_stem(dir_.string(), "a", ExportFormat_Svg), "a");  // only the SVG is written: free
  EXPECT_EQ(free_export_stem(dir_.string(), "a", ExportFormat_Png), "a-2");
  touch("a-2.svg");  // -2 is taken for SVG, so an export of PNG and SVG together moves on to -3
  EXPECT_EQ(free_export_stem(dir_.string(), "a", ExportFormat_Png | ExportFormat_Svg), "a-3");
}

TEST_F(ExportNamingFiles, KeepBothNeverTouchesTheExistingFile) {
  Figure fig("lines", "Lines");
  fig.axes().line("y", {0, 1, 2}, {0, 1, 4});
  touch("p-lines.csv");
  const std::string stem = free_export_stem(dir_.string(), "p-lines", ExportFormat_Csv);
  std::vector<std::string> written;
  ASSERT_EQ(export_figure_as(fig, dir_.string(), stem, ExportFormat_Csv, {}, &written), "");
  ASSERT_EQ(written.size(), 1u);
  EXPECT_EQ(fs::path(written[0]).filename(), "p-lines-2.csv");
  EXPECT_EQ(read("p-lines.csv"), "old");
  EXPECT_NE(read("p-lines-2.csv").find("y"), std::string::npos);
}

}  // namespace
}  // namespace tw::plot
