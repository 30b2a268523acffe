#include "views/controls.h"

#include <gtest/gtest.h>

#include "core/model/config.h"

namespace tw {

struct DemoState {
  bool flag = true;
  int n = 8;
  float t = 1.0f;
  int mode = 1;
  std::string text = "hello";
  std::vector<int> lengths = {3, 5};
};

class ControlsTest : public ::testing::Test {
 protected:
  DemoState s;
  Controls c{"demo"};
  void SetUp() override {
    c.add_bool("flag", &s.flag, "Flag", "A flag.");
    c.add_int("n", &s.n, 2, 256, "n", "Keys.", true);
    c.add_float("t", &s.t, 0.05f, 5.0f, "T", "Temperature.");
    c.add_enum("mode", &s.mode, {"none", "sqrt", "linear"}, "Scale", "Scale mode.");
    c.add_text("text", &s.text, 16, "Text", "Input text.");
    c.add_int_list("lengths", &s.lengths, 1, 64, 4, "Lengths", "Document lengths.");
  }
};

TEST_F(ControlsTest, DefaultsAreCapturedAtBindTime) {
  EXPECT_EQ(c.find("n")->default_value, 8);
  EXPECT_EQ(c.find("mode")->default_value, "sqrt");  // enums travel by option name
  s.n = 100;
  c.reset_to_defaults();
  EXPECT_EQ(s.n, 8);
}

// A refused value is quoted in the message even when it holds invalid UTF-8 (nlohmann's dump() throws on it: an
// `--set demo.lengths=1,2,<0xFF>` once ended export with "internal error").
TEST_F(ControlsTest, RefusedValueWithInvalidUtf8IsQuotedNotThrown) {
  EXPECT_EQ(*c.find("lengths")->check("1,2,\xFF", "demo.lengths"),
            "demo.lengths: expected an array of integers, got \"1,2,\xEF\xBF\xBD\"");
  EXPECT_EQ(c.find("n")->check(std::string(200, 'x'), "demo.n")->size(),
            std::string("demo.n: expected an integer, got ").size() + 80);  // cut to 77 bytes and "..."
}

TEST_F(ControlsTest, CheckNamesTheKeyAndTheProblem) {
  EXPECT_EQ(*c.find("n")->check(300, "demo.n"), "demo.n: 300 is out of range 2..256");
  // Large whole numbers as integers, not 1.04858e+06.
  EXPECT_EQ(*c.find("n")->check(1048577, "demo.n"), "demo.n: 1048577 is out of range 2..256");
  EXPECT_EQ(*c.find("n")->check(2.5, "demo.n"), "demo.n: expected an integer, got 2.5");
  EXPECT_EQ(*c.find("flag")->check("yes", "demo.flag"), "demo.flag: expected true or false, got \"yes\"");
  EXPECT_EQ(*c.find("mode")->check("cube", "demo.mode"), "demo.mode: \"cube\" is not one of: none|sqrt|linear");
  EXPECT_EQ(*c.find("text")->check(std::string(17, 'a'), "demo.text"), "demo.text: text longer than 16 bytes");
  EXPECT_EQ(*c.find("lengths")->check(std::vector<int>{1, 2, 3, 4, 5}, "demo.lengths"),
            "demo.lengths: more than 4 entries");
  EXPECT_EQ(*c.find("lengths")->check(std::vector<int>{1, 0}, "demo.lengths"), "demo.lengths: 0 is out of range 1..64");
  EXPECT_FALSE(c.find("t")->check(0.05, "demo.t").has_value());
  EXPECT_TRUE(c.find("t")->check(nlohmann::json(std::nan("")), "demo.t").has_value());
}

TEST_F(ControlsTest, TextMustBeValidUtf8) {
  const Control& text = *c.find("text");
  EXPECT_FALSE(text.check("\u221A\u03B8 ok", "demo.text").has_value());
  EXPECT_EQ(*text.check(std::string("a\xff"), "demo.text"),
            "demo.text is not valid UTF-8: byte 0xFF at offset 1 does not start a character (save it as UTF-8)");
  EXPECT_TRUE(text.check(std::string("\xe2\x88"), "demo.text").has_value());      // truncated sequence
  EXPECT_TRUE(text.check(std::string("\xc0\xaf"), "demo.text").has_value());      // overlong '/'
  EXPECT_TRUE(text.check(std::string("\xed\xa0\x80"), "demo.text").has_value());  // UTF-16 surrogate
}

TEST_F(ControlsTest, SetAndGetRoundTripThroughJson) {
  c.find("mode")->set("linear");
  EXPECT_EQ(s.mode, 2);
  c.find("lengths")->set(std::vector<int>{7});
  EXPECT_EQ(s.lengths, std::vector<int>{7});
  const nlohmann::json j = c.to_json();
  EXPECT_EQ(j["mode"], "linear");
  EXPECT_EQ(j["n"], 8);
  EXPECT_EQ(c.find("n")->range_text(), "2..256 (log)");
}

// An enum class field is bound directly: option i is the value static_cast<E>(i).
TEST(Controls, EnumClassFieldsBindByOptionName) {
  enum class Shape { Circle, Square, Star };
  Shape shape = Shape::Square;
  Controls controls{"demo"};
  Control& c = controls.add_enum("shape", &shape, {"circle", "square", "star"}, "shape", "A shape.");
  EXPECT_EQ(c.default_value, "square");
  EXPECT_FALSE(c.check("star", "demo.shape").has_value());
  c.set("star");
  EXPECT_EQ(shape, Shape::Star);
  EXPECT_EQ(c.get(), "star");
  ASSERT_TRUE(c.check("hexagon", "demo.shape").has_value());
  EXPECT_NE(c.check("hexagon", "demo.shape")->find("demo.shape"), std::string::npos);
  controls.reset_to_defaults();
  EXPECT_EQ(shape, Shape::Square);
}

// Bound with its last enumerator, an enum control offers core's names for it (to_string), in the enum's order.
TEST(Controls, EnumWithCoreNamesOffersThem) {
  PositionType positions = PositionType::RoPE;
  Controls controls{"demo"};
  Control& c = controls.add_enum("positions", &positions, PositionType::ALiBi, "positions", "How order is known.");
  EXPECT_EQ(c.options, (std::vector<std::string>{"none", "learned", "sinusoidal", "rope", "alibi"}));
  EXPECT_EQ(c.default_value, "rope");
  c.set("learned");
  EXPECT_EQ(positions, PositionType::Learned);
}

}  // namespace tw
