// Issue 45: a lesson file is validated completely when it loads, against the scene-key table the panels use: values
// of the wrong type or out of range, "also" preconditions that could never hold, ids with '.', texts too long or
// nested too deeply for the layout — each refused in one line naming the file, the step and the field.
#include <gtest/gtest.h>

#include <string>

#include "app/app_state.h"
#include "app/lesson_scene.h"
#include "core/lessons/lesson.h"
#include "views/plot/math.h"

namespace tw {
namespace {

std::string lesson_with(const std::string& step) {
  return R"({"format":1,"id":"mine","number":7,"title":{"en":"A","zh":"A"},"summary":{"en":"B","zh":"B"},"steps":[)" +
         step + "]}";
}

std::string step_with(const std::string& values, const std::string& text = "x", const std::string& id = "s") {
  return R"({"id":")" + id + R"(","title":{"en":"T","zh":"T"},"text":{"en":")" + text +
         R"(","zh":"x"},"scene":{"open":["softmax"],"values":)" + values + "}}";
}

class LessonValidation : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { state_ = new AppState(make_app_state()); }
  static void TearDownTestSuite() { delete state_; }
  std::string first_error(const std::string& text) {
    const LessonLoad l = parse_lesson(text, "/d/mine.json", lesson_names(*state_));
    EXPECT_FALSE(l.ok) << text.substr(0, 200);
    return l.errors.empty() ? "" : l.errors.front();
  }
  static AppState* state_;
};
AppState* LessonValidation::state_ = nullptr;

TEST_F(LessonValidation, SceneValuesAreCheckedAgainstTheControlsTable) {
  EXPECT_TRUE(parse_lesson(lesson_with(step_with(R"({"softmax.d_k":64})")), "mine.json", lesson_names(*state_)).ok);
  EXPECT_EQ(first_error(lesson_with(step_with(R"({"softmax.d_k":"big"})"))),
            "mine.json: step 1 (s): scene.values: softmax.d_k: expected an integer, got \"big\"");
  const std::string range = first_error(lesson_with(step_with(R"({"softmax.d_k":-5})")));
  EXPECT_EQ(range.rfind("mine.json: step 1 (s): scene.values: softmax.d_k: -5 is out of range", 0), 0u) << range;
}

TEST_F(LessonValidation, AnAlsoValueOfTheWrongTypeIsRefused) {
  const std::string step =
      R"({"id":"s","title":{"en":"T","zh":"T"},"text":{"en":"x","zh":"x"},"scene":{"open":["softmax"]},)"
      R"("exercise":{"question":{"en":"q","zh":"q"},"check":{"kind":"state","quantity":"softmax.scaled_top_prob",)"
      R"("op":">=","value":0.5,"also":[{"key":"softmax.d_k","equals":"sixty-four"}]},)"
      R"("solution":{"values":{"softmax.d_k":4},"text":{"en":"a","zh":"a"}}}})";
  EXPECT_EQ(first_error(lesson_with(step)),
            "mine.json: step 1 (s): exercise.check.also: softmax.d_k: expected an integer, got \"sixty-four\"");
}

TEST_F(LessonValidation, IdsWithADotAreRefusedAsTheFormatSays) {
  EXPECT_EQ(first_error(lesson_with(step_with(R"({})", "x", "a.b"))),
            "mine.json: step 1: id: expected an ASCII id (letters, digits, - and _)");
  EXPECT_FALSE(lesson_id_ok("a.b"));
  EXPECT_FALSE(lesson_id_ok(".hidden"));
  EXPECT_TRUE(lesson_id_ok("high-dimensional_1"));
}

TEST_F(LessonValidation, TextsTooLongOrNestedTooDeeplyAreRefusedNamingTheField) {
  const std::string deep = "$" + std::string(20000, '{') + "x" + std::string(20000, '}') + "$";
  EXPECT_EQ(first_error(lesson_with(step_with("{}", deep))),
            "mine.json: step 1 (s): text.en: braces nested deeper than 32 levels (at byte 33); formulas need far "
            "fewer");
  const std::string run(kLessonMaxTextBytes + 1, 'w');
  EXPECT_EQ(first_error(lesson_with(step_with("{}", run))),
            "mine.json: step 1 (s): text.en: 65537 bytes long; a lesson text may be at most 65536 bytes");
  // Escaped braces are literal and count for nothing; 32 levels are fine.
  const std::string ok = "$" + std::string(32, '{') + "x" + std::string(32, '}') + "$ \\\\{";
  EXPECT_TRUE(parse_lesson(lesson_with(step_with("{}", ok)), "mine.json", lesson_names(*state_)).ok);
}

TEST_F(LessonValidation, AMissingFileIsNamedOnce) {
  const LessonLoad l = load_lesson_file("1:0", lesson_names(*state_));
  EXPECT_FALSE(l.ok);
  EXPECT_EQ(l.error.find("1:0: 1:0"), std::string::npos) << l.error;
  EXPECT_EQ(l.error.rfind("1:0: cannot open", 0), 0u) << l.error;
}

// The math layout stops nesting at its limit and names it, whatever reaches it (a lesson refuses such a text before;
// a label or tooltip does not).
TEST(MathNesting, DeepNestingIsBoundedAndNamed) {
  for (const std::string& body : {std::string(100000, '{') + "x" + std::string(100000, '}'),
                                  [] {
                                    std::string s;
                                    for (int i = 0; i < 20000; ++i) s += "\\sqrt";
                                    return s + "x";
                                  }(),
                                  [] {
                                    std::string s;
                                    for (int i = 0; i < 20000; ++i) s += "\\frac{1}";
                                    return s + "{x}";
                                  }(),
                                  std::string(50000, '^') + "x"}) {
    const plot::MathLayout m = plot::layout_math_uncached("$" + body + "$", 14.0f);
    ASSERT_FALSE(m.unsupported.empty());
    EXPECT_EQ(m.unsupported.back().rfind("nested deeper than 48 levels at character ", 0), 0u) << m.unsupported.back();
    EXPECT_TRUE(std::isfinite(m.width));
  }
  // 40 levels of braces are laid out in full, with no warning.
  const plot::MathLayout ok =
      plot::layout_math_uncached("$" + std::string(40, '{') + "x" + std::string(40, '}') + "$", 14.0f);
  EXPECT_TRUE(ok.unsupported.empty());
  ASSERT_EQ(ok.runs.size(), 1u);
  EXPECT_EQ(ok.runs[0].text, "x");
}

}  // namespace
}  // namespace tw
