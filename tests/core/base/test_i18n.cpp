#include "core/base/i18n.h"

#include <gtest/gtest.h>

namespace tw {
namespace {

TEST(Subst, ReplacesIndexedArgumentsInAnyOrder) {
  EXPECT_EQ(subst("{0} of {1} steps", {"3", "10"}), "3 of 10 steps");
  EXPECT_EQ(subst("第 {1} 步中的第 {0} 步", {"3", "10"}), "第 10 步中的第 3 步");
  EXPECT_EQ(subst("{0}{0}", {"ab"}), "abab");
}

TEST(Subst, KeepsLiteralBracesAndMissingArguments) {
  EXPECT_EQ(subst("{{0}} is {0}", {"x"}), "{0}} is x");  // "{{" is one literal brace; a lone "}" stays
  EXPECT_EQ(subst("{2} and {x}", {"a"}), "{2} and {x}");
  EXPECT_EQ(subst("e^{-m}", {}), "e^{-m}");  // math braces pass through untouched
}

}  // namespace
}  // namespace tw
