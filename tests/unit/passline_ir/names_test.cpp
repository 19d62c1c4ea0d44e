// Counted names: how a name splits into a prefix and a counter, and the
// index the parser finds such names in.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
import passline.ir;

namespace {

namespace ir = passline::ir;
using ir::detail::counted;
using ir::detail::CountedNames;

constexpr bool splits(std::string_view name, std::string_view prefix, std::uint32_t counter) {
  const auto c = counted(name);
  return c && c->prefix == prefix && c->counter == counter;
}
static_assert(splits("v12", "v", 12) && splits("0", "", 0) && splits("x_7", "x_", 7) && splits("a1b2", "a1b", 2));
static_assert(splits("v999999999", "v", 999999999));
// A leading zero is a name of its own (%v07 is not %v7), and ten digits may
// not fit: those names are kept by their spelling.
static_assert(!counted("v07") && !counted("00") && !counted("v") && !counted("v1234567890"));

TEST(CountedNames, SplitsATrailingCounter) {
  EXPECT_TRUE(splits("tmp3", "tmp", 3));
  EXPECT_TRUE(splits("v0", "v", 0));
  EXPECT_FALSE(counted("v0123").has_value());
  EXPECT_FALSE(counted("x_").has_value());
}

TEST(CountedNames, FindsWhatWasSetByPrefixAndCounter) {
  CountedNames names;
  std::uint32_t next = 0;
  for (std::string_view prefix : {"v", "", "t", "v_"}) {
    for (std::uint32_t counter : {0u, 1u, 15u, 16u, 17u, 1000u, 999999999u}) names.at({prefix, counter}) = next++;
  }
  next = 0;
  for (std::string_view prefix : {"v", "", "t", "v_"}) {
    for (std::uint32_t counter : {0u, 1u, 15u, 16u, 17u, 1000u, 999999999u}) {
      EXPECT_EQ(names.find({prefix, counter}), next++) << prefix << counter;
    }
  }
  // Neighbours in a block that exists, other prefixes, and blocks never made.
  EXPECT_EQ(names.find({"v", 2}), CountedNames::none);
  EXPECT_EQ(names.find({"w", 1}), CountedNames::none);
  EXPECT_EQ(names.find({"v", 100}), CountedNames::none);
  EXPECT_EQ(names.at({"v", 2}), CountedNames::none);  // made by asking, still unset
}

TEST(CountedNames, ClearForgetsEveryName) {
  CountedNames names;
  names.at({"v", 5}) = 1;
  names.clear();
  EXPECT_EQ(names.find({"v", 5}), CountedNames::none);
  names.at({"w", 5}) = 2;
  EXPECT_EQ(names.find({"w", 5}), 2u);
  EXPECT_EQ(names.find({"v", 5}), CountedNames::none);
  names.release();
  EXPECT_EQ(names.find({"w", 5}), CountedNames::none);
}

// The parser keeps counted names by counter and the others by spelling:
// names that differ only by a leading zero or by the prefix are different
// variables, and scopes hide and show them alike.
TEST(CountedNames, NamesThatLookAlikeAreDifferentVariables) {
  const std::string text =
      "def @f(%v7: i64, %v07: i64, %7: i64, %x7: i64, %x_7: i64, %v0000000007: i64) -> i64 {\n"
      "  let %s: i64 = add(%v7, mul(%v07, %7));\n"
      "  let %t: i64 = sub(%x7, add(%x_7, %v0000000007));\n"
      "  add(%s, %t)\n"
      "}\n";
  const ir::Module m = ir::parse(text);
  EXPECT_EQ(ir::print(m), text);
  const ir::Body& body = *m.functions[0].body;
  // Each parameter is used once, by the operand that names it.
  const ir::ExprId s_value = body[body.root()].b;  // add(%v7, mul(%v07, %7))
  EXPECT_EQ(body[s_value].a, body.params()[0]);
  EXPECT_EQ(body[body[s_value].b].a, body.params()[1]);
  EXPECT_EQ(body[body[s_value].b].b, body.params()[2]);
}

TEST(CountedNames, ACountedNameIsInViewOnlyInItsScope) {
  const ir::Module m = ir::parse(
      "def @f(%v1: i64) -> i64 {\n"
      "  let %v2 = fn(%v1: i64) -> i64 { mul(%v1, 2) };\n"
      "  let %v1 = add(%v1, 1);\n"
      "  sub(%v1, %v2(%v1))\n"
      "}\n");
  const std::string printed = ir::print(m);
  EXPECT_NE(printed.find("mul(%v1_1, 2)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("let %v1_2 = add(%v1, 1);\n  sub(%v1_2, %v2(%v1_2))"), std::string::npos) << printed;
  EXPECT_TRUE(ir::structurally_equal(m, ir::parse(printed)));
  for (const char* unknown : {"def @f(%v1: i64) -> i64 { let %v2 = fn(%v3: i64) -> i64 { %v3 }; %v3 }",
                              "def @f(%v1: i64) -> i64 { %v01 }", "def @f(%v1: i64) -> i64 { %v17 }"}) {
    EXPECT_THROW((void)ir::parse(unknown), ir::IRError) << unknown;
  }
}

}  // namespace
