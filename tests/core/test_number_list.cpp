#include "core/number_list.h"

#include <gtest/gtest.h>

namespace tw {
namespace {

TEST(NumberList, ParsesSeparatorsAndRefusesBadInput) {
  std::vector<double> v;
  EXPECT_EQ(parse_number_list("[1, 2.5 -3e1]", &v, 2, 8), "");
  EXPECT_EQ(v, (std::vector<double>{1, 2.5, -30}));
  EXPECT_NE(parse_number_list("1, x", &v, 1, 8).find("cannot read"), std::string::npos);
  EXPECT_NE(parse_number_list("1", &v, 2, 8).find("at least 2"), std::string::npos);
  EXPECT_NE(parse_number_list("1,2,3", &v, 1, 2).find("at most 2"), std::string::npos);
  EXPECT_NE(parse_number_list("1, inf", &v, 1, 8).find("finite"), std::string::npos);
}

}  // namespace
}  // namespace tw
