#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>
import passline;

namespace {

struct FoldConstant {
  static constexpr passline::PassInfo info{
      .name = "FoldConstant",
      .opt_level = 2,
      .required = passline::needs<"InferType">,
      .summary = "folds constants",
  };
};

// PassInfo is usable at compile time: the checks of static pipelines read it.
static_assert(FoldConstant::info.name == "FoldConstant");
static_assert(FoldConstant::info.opt_level == 2);
static_assert(FoldConstant::info.required.size() == 1);
static_assert(FoldConstant::info.requires_pass("InferType"));
static_assert(!FoldConstant::info.requires_pass("Inline"));
static_assert(passline::PassInfo{.name = "X"}.required.empty());

// A PassInfo described at run time (a pass registered from a plugin, from
// Python) answers from names held elsewhere, as a static one does.
TEST(PassInfo, AnswersFromNamesHeldAtRunTime) {
  const std::vector<std::string> storage{"Infer" + std::string("Type"), "ToANormalForm"};
  const std::vector<std::string_view> required(storage.begin(), storage.end());
  const passline::PassInfo info{.name = storage[1], .required = required, .preserves = required};
  EXPECT_TRUE(info.requires_pass("InferType"));
  EXPECT_FALSE(info.requires_pass("Inline"));
  EXPECT_TRUE(info.keeps("ToANormalForm"));
  EXPECT_FALSE(info.keeps("CallGraph"));
  EXPECT_FALSE(info.preserves_everything());
  const passline::PassInfo printer{.name = "PrintIR", .preserves = passline::preserves_all};
  EXPECT_TRUE(printer.keeps("CallGraph"));
  EXPECT_TRUE(printer.preserves_everything());
}

// `needs` and `names` spell one list of names alike: the same static array,
// so a PassInfo's lists cost no storage of their own.
TEST(PassInfo, NeedsAndNamesShareOneArrayPerList) {
  EXPECT_EQ((passline::needs<"A", "B">.data()), (passline::names<"A", "B">.data()));
  EXPECT_NE((passline::needs<"A", "B">.data()), (passline::needs<"B", "A">.data()));
  EXPECT_EQ((passline::needs<"A", "B">.size()), 2u);
}

}  // namespace
