// The input queue hands each frame the events that can be told apart in one frame (app/input_queue.h).
#include "app/input_queue.h"

#include <gtest/gtest.h>

namespace tw {
namespace {

InputEvent key(int code, bool down) { return {.kind = InputEvent::Kind::Key, .code = code, .down = down}; }
InputEvent button(int b, bool down) { return {.kind = InputEvent::Kind::MouseButton, .code = b, .down = down}; }
InputEvent wheel(float dy) { return {.kind = InputEvent::Kind::Wheel, .wheel_y = dy}; }

TEST(InputQueue, PressAndReleaseInOneFrameLandInTwoFrames) {
  InputQueue q;
  q.push(key('T', true));
  q.push(key('T', false));
  const auto first = q.take_frame();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_TRUE(first[0].down);
  const auto second = q.take_frame();
  ASSERT_EQ(second.size(), 1u);
  EXPECT_FALSE(second[0].down);
  EXPECT_TRUE(q.empty());
  EXPECT_TRUE(q.take_frame().empty());
}

TEST(InputQueue, ADoubleClickIsFourFrames) {
  InputQueue q;
  for (int i = 0; i < 2; ++i) {
    q.push(button(0, true));
    q.push(button(0, false));
  }
  int frames = 0, presses = 0;
  while (!q.empty()) {
    const auto f = q.take_frame();
    ASSERT_EQ(f.size(), 1u);
    presses += f[0].down;
    ++frames;
  }
  EXPECT_EQ(frames, 4);
  EXPECT_EQ(presses, 2);
}

TEST(InputQueue, DifferentKeysShareAFrameAndOrderIsKept) {
  InputQueue q;
  q.push(key(341, true));  // left Ctrl
  q.push(key('T', true));
  q.push({.kind = InputEvent::Kind::Char, .code = 't'});
  q.push(key('T', false));
  q.push(key(341, false));
  const auto first = q.take_frame();
  ASSERT_EQ(first.size(), 3u);
  EXPECT_EQ(first[0].code, 341);
  EXPECT_EQ(first[1].code, 'T');
  EXPECT_EQ(first[2].kind, InputEvent::Kind::Char);
  const auto second = q.take_frame();
  ASSERT_EQ(second.size(), 2u);
  EXPECT_EQ(second[0].code, 'T');
  EXPECT_FALSE(second[0].down);
  EXPECT_EQ(second[1].code, 341);
}

// xdotool's "key ctrl+t" (and a quick hand) lets Ctrl go before T: T's press still sees Ctrl held.
TEST(InputQueue, AKeyPressSeesTheModifiersReleasedAfterIt) {
  InputQueue q;
  q.push({.kind = InputEvent::Kind::Key, .code = 341, .down = true, .modifier = true});
  q.push(key('T', true));
  q.push({.kind = InputEvent::Kind::Key, .code = 341, .down = false, .modifier = true});
  q.push(key('T', false));
  const auto first = q.take_frame();
  ASSERT_EQ(first.size(), 2u);  // Ctrl down, T down
  EXPECT_EQ(first[1].code, 'T');
  const auto second = q.take_frame();
  ASSERT_EQ(second.size(), 2u);  // Ctrl up, T up
  EXPECT_EQ(second[0].code, 341);
  EXPECT_FALSE(second[0].down);
  EXPECT_TRUE(q.empty());
}

TEST(InputQueue, WheelStepsSeeTheModifiersAsTheyWere) {
  InputQueue q;
  q.push(key(341, true));
  q.push(wheel(1));
  q.push(wheel(1));
  q.push(key(341, false));  // released after the steps: the steps were Ctrl+wheel
  q.push(wheel(-1));        // a plain wheel step after the release
  const auto first = q.take_frame();
  ASSERT_EQ(first.size(), 3u);
  EXPECT_EQ(first[2].kind, InputEvent::Kind::Wheel);
  const auto second = q.take_frame();
  ASSERT_EQ(second.size(), 2u);
  EXPECT_EQ(second[0].code, 341);
  EXPECT_FALSE(second[0].down);
  EXPECT_FLOAT_EQ(second[1].wheel_y, -1.0f);
}

}  // namespace
}  // namespace tw
