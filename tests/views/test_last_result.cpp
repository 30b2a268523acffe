// LastResult (views/last_result.h): the part a drag does not change is computed once; a partial (cancelled) value
// is never kept; another key computes again.
#include "views/last_result.h"

#include <gtest/gtest.h>

#include <vector>

namespace tw {
namespace {

TEST(LastResult, ReusesTheValueForTheSameKeyOnly) {
  LastResult<int, std::vector<int>> memo;
  int runs = 0;
  auto compute = [&] {
    ++runs;
    return std::vector<int>{1, 2, 3};
  };
  auto whole = [](const std::vector<int>& v) { return v.size() == 3; };
  EXPECT_FALSE(memo.holds(7));
  const auto a = memo.get(7, compute, whole);
  EXPECT_TRUE(memo.holds(7));
  const auto b = memo.get(7, compute, whole);
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(a.get(), b.get()) << "the kept value itself";
  memo.get(8, compute, whole);
  EXPECT_EQ(runs, 2);
  EXPECT_FALSE(memo.holds(7)) << "only the last key is kept";
  EXPECT_TRUE(memo.holds(8));
}

TEST(LastResult, APartialValueIsReturnedButNotKept) {
  LastResult<int, std::vector<int>> memo;
  const auto partial = memo.get(
      1, [] { return std::vector<int>{1}; }, [](const std::vector<int>& v) { return v.size() == 3; });
  EXPECT_EQ(partial->size(), 1u);
  EXPECT_FALSE(memo.holds(1));
  const auto whole = memo.get(
      1,
      [] {
        return std::vector<int>{1, 2, 3};
      },
      [](const std::vector<int>& v) { return v.size() == 3; });
  EXPECT_EQ(whole->size(), 3u);
  EXPECT_TRUE(memo.holds(1));
}

}  // namespace
}  // namespace tw
