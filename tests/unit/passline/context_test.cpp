#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>
import passline;

namespace {

using passline::PassContext;
using passline::PassInfo;

constexpr PassInfo level3{.name = "Expensive", .opt_level = 3};
constexpr PassInfo level1{.name = "Cheap", .opt_level = 1};

TEST(PassContext, DefaultOptLevelIsTwo) { EXPECT_EQ(PassContext{}.opt_level, 2); }

TEST(PassContext, GatesByOptLevel) {
  PassContext ctx{.opt_level = 2};
  EXPECT_TRUE(ctx.pass_enabled(level1));
  EXPECT_FALSE(ctx.pass_enabled(level3));
}

TEST(PassContext, RequiredRunsAboveOptLevel) {
  PassContext ctx{.opt_level = 0, .required = {"Expensive"}};
  EXPECT_TRUE(ctx.pass_enabled(level3));
}

TEST(PassContext, DisabledWinsOverRequired) {
  PassContext ctx{.opt_level = 3, .required = {"Cheap"}, .disabled = {"Cheap"}};
  EXPECT_FALSE(ctx.pass_enabled(level1));
}

TEST(PassContext, ScopesNestAndRestore) {
  PassContext outer{.opt_level = 1};
  PassContext inner{.opt_level = 3};
  EXPECT_EQ(&PassContext::current(), &PassContext::current());
  {
    auto outer_scope = outer.enter();
    EXPECT_EQ(&PassContext::current(), &outer);
    {
      auto inner_scope = inner.enter();
      EXPECT_EQ(&PassContext::current(), &inner);
    }
    EXPECT_EQ(&PassContext::current(), &outer);
  }
  EXPECT_NE(&PassContext::current(), &outer);
  EXPECT_EQ(PassContext::current().opt_level, 2);
}

TEST(PassContext, ScopeRestoresAfterException) {
  PassContext ctx{.opt_level = 0};
  PassContext* before = &PassContext::current();
  try {
    auto scope = ctx.enter();
    throw std::runtime_error("pass failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(&PassContext::current(), before);
}

TEST(PassContext, ScopeIsPerThread) {
  PassContext ctx{.opt_level = 0};
  auto scope = ctx.enter();
  int seen_on_other_thread = -1;
  std::thread([&] { seen_on_other_thread = PassContext::current().opt_level; }).join();
  EXPECT_EQ(seen_on_other_thread, 2);
  EXPECT_EQ(PassContext::current().opt_level, 0);
}

}  // namespace
