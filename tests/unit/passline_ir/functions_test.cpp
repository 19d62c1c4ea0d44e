// Modules: structural hashing and equality, the identity test, and sharing.
#include <gtest/gtest.h>

#include <cstddef>
#include <concepts>
#include <cstdint>
#include <optional>

import passline;
import passline.ir;

namespace {

namespace ir = passline::ir;

TEST(Functions, EqualUpToVariableNames) {
  const ir::Module a = ir::parse("def @f(%x: i64) { let %y = add(%x, 1); %y }");
  const ir::Module b = ir::parse("def @f(%p: i64) { let %q = add(%p, 1); %q }");
  EXPECT_TRUE(ir::structurally_equal(a, b));
  EXPECT_EQ(ir::fingerprint(a), ir::fingerprint(b));
  EXPECT_FALSE(ir::identical(a, b));  // equal, but not the same bodies
}

TEST(Functions, DifferencesShowInHashAndEquality) {
  const ir::Module base = ir::parse("def @f(%x: i64, %y: i64) { sub(%x, %y) }");
  for (const char* other : {"def @f(%x: i64, %y: i64) { sub(%y, %x) }", "def @f(%x: i64, %y: i64) { add(%x, %y) }",
                            "def @g(%x: i64, %y: i64) { sub(%x, %y) }", "#[export]\ndef @f(%x: i64, %y: i64) { sub(%x, %y) }",
                            "def @f(%x: i64, %y: f64) { sub(%x, %y) }", "def @f(%x: i64, %y: i64) -> i64 { sub(%x, %y) }"}) {
    const ir::Module m = ir::parse(other);
    EXPECT_FALSE(ir::structurally_equal(base, m)) << other;
    EXPECT_NE(ir::fingerprint(base), ir::fingerprint(m)) << other;
  }
}

// Every kind of node, a let in operand position, a nested function and names
// used twice, printed and walked.
constexpr const char* every_kind = R"(def @g(%x: i64) -> i64 { %x }
#[export]
def @f(%x: i64, %y: f64, %c: bool) -> (i64, f64) {
  let %h = fn(%x: i64) -> i64 { let %x_1 = mul(%x, 2); add(%x_1, %x) };
  let %t = (%h(%x), %y);
  let %u = if %c { @g(%t.0) } else { (let %x = 3; neg(%x)) };
  let %e = select(lt(%x, 0), false, %c);
  (%u, 2.5)
})";

TEST(Functions, APrintFingerprintsWhatItPrintsAsTheWalkDoes) {
  const ir::Module printed = ir::parse(every_kind);
  const ir::Module walked = ir::parse(every_kind);
  EXPECT_FALSE(ir::cached_fingerprint(printed));  // parsing computes none
  (void)ir::print(printed);
  ASSERT_TRUE(ir::cached_fingerprint(printed));
  EXPECT_FALSE(ir::cached_fingerprint(walked));
  for (std::size_t i = 0; i < printed.functions.size(); ++i) {
    EXPECT_EQ(printed.functions[i].body->cached_fingerprint(), walked.functions[i].body->fingerprint())
        << printed.functions[i].name;
  }
  EXPECT_EQ(ir::cached_fingerprint(printed), ir::fingerprint(walked));
  EXPECT_EQ(passline::IRTraits<ir::Module>::cached_fingerprint(printed), ir::fingerprint(walked));
}

TEST(Functions, APrintKeepsAFingerprintAlreadyComputed) {
  const ir::Module m = ir::parse(every_kind);
  const std::uint64_t walked = ir::fingerprint(m);
  (void)ir::print(m);
  EXPECT_EQ(ir::cached_fingerprint(m), walked);
}

TEST(Functions, CopiesShareBodies) {
  const ir::Module m = ir::parse("def @f(%x: i64) { %x }\ndef @g(%x: i64) { %x }");
  ir::Module copy = m;
  EXPECT_TRUE(ir::identical(m, copy));
  EXPECT_EQ(copy.functions[0].body, m.functions[0].body);
  copy.functions[1] = ir::parse("def @g(%x: i64) { neg(%x) }").functions[0];
  EXPECT_FALSE(ir::identical(m, copy));
  EXPECT_EQ(copy.functions[0].body, m.functions[0].body);  // the unchanged function is still shared
}

TEST(Functions, LibraryTraitsSeeTheModule) {
  const ir::Module m = ir::parse("#[noopt]\ndef @f(%x: i64) { %x }");
  using Traits = passline::IRTraits<ir::Module>;
  EXPECT_EQ(Traits::function_count(m), 1u);
  EXPECT_TRUE(Traits::skips_optimization(Traits::function(m, 0)));
  EXPECT_EQ(Traits::print(m), ir::print(m));
  EXPECT_EQ(Traits::fingerprint(m), ir::fingerprint(m));
  static_assert(passline::Fingerprintable<ir::Module>);
  static_assert(requires(const ir::Module& a) {
    { Traits::identical(a, a) } -> std::convertible_to<bool>;
    { Traits::cached_fingerprint(a) } -> std::convertible_to<std::optional<std::uint64_t>>;
  });
}

}  // namespace
