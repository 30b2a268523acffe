// Switching the Training panel's task starts a new run at once: the figures never show the old task's run (the
// issue: they stayed until Reset). Checked on the probe's attention map, whose size is the task's sequence length.
#include <gtest/gtest.h>

#include "views/panel.h"

namespace tw {
namespace {

int attention_rows(Panel& p) {
  for (const plot::Figure& f : p.figures())
    if (f.id == "attention" && !f.grid.empty() && !f.grid[0].items.empty())
      if (const auto* h = std::get_if<plot::HeatmapItem>(&f.grid[0].items[0])) return h->rows;
  return -1;
}

TEST(TrainTaskSwitch, TheFiguresFollowTheNewTaskWithoutReset) {
  auto p = make_panel("train");
  ASSERT_NE(p, nullptr);
  Controls& c = p->controls();
  c.find("task")->set("sort");
  c.find("steps")->set(20);
  p->update();
  p->wait_idle();
  const int sort_rows = attention_rows(*p);
  ASSERT_EQ(sort_rows, 12);  // the sort probe: 6 + 6 tokens
  c.find("task")->set("modadd");
  p->update();  // no Reset pressed
  p->wait_idle();
  const int rows = attention_rows(*p);
  EXPECT_GT(rows, 0);
  EXPECT_NE(rows, sort_rows) << "the figures still show the sort run";
}

}  // namespace
}  // namespace tw
