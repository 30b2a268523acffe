#include "core/enum_names.h"

#include <gtest/gtest.h>

#include <string>

namespace tw {
namespace {

enum class Fruit { Apple, Pear, Plum };
constexpr const char* kFruitNames[] = {"apple", "pear", "plum"};
static_assert(names_every(kFruitNames, Fruit::Plum));
static_assert(!names_every(kFruitNames, Fruit::Pear));  // a table one name too long is caught as well

TEST(EnumNames, NamesInRangeAndFallbackOutside) {
  EXPECT_STREQ(enum_name(kFruitNames, Fruit::Apple), "apple");
  EXPECT_STREQ(enum_name(kFruitNames, Fruit::Plum), "plum");
  EXPECT_STREQ(enum_name(kFruitNames, static_cast<Fruit>(3)), "?");
  EXPECT_STREQ(enum_name(kFruitNames, static_cast<Fruit>(-1)), "?");
  EXPECT_STREQ(enum_name(kFruitNames, static_cast<Fruit>(7), "apple"), "apple");
}

TEST(EnumNames, ParsesExactNamesOnly) {
  Fruit f = Fruit::Apple;
  EXPECT_TRUE(enum_from_name(kFruitNames, "plum", &f));
  EXPECT_EQ(f, Fruit::Plum);
  EXPECT_TRUE(enum_from_name(kFruitNames, std::string("pear"), &f));
  EXPECT_EQ(f, Fruit::Pear);
  EXPECT_FALSE(enum_from_name(kFruitNames, "Plum", &f));
  EXPECT_FALSE(enum_from_name(kFruitNames, "", &f));
  EXPECT_EQ(f, Fruit::Pear);  // untouched by a failed parse
}

}  // namespace
}  // namespace tw
