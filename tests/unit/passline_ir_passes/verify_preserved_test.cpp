// VerifyPreserved: a pass's claim to preserve an analysis or a pass is checked
// against a fresh computation; function results follow their functions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>
import passline;
import passline.instruments;
import passline.ir;
import passline.ir.passes;
import passline.pipelines;

namespace {

namespace ir = passline::ir;
using passline::AnalysisInfo;
using passline::PassContext;
using passline::PassInfo;

const char* const program =
    "def @leaf(%x: i64) -> i64 {\n  add(add(%x, 1), 2)\n}\n\n"
    "def @middle_one(%x: i64) -> i64 {\n  @leaf(%x)\n}\n\n"
    "#[export]\ndef @main(%x: i64) -> i64 {\n  @middle_one(neg(%x))\n}\n";

/// A function analysis: how many nodes the function's body has.
struct BodySize {
  static constexpr AnalysisInfo info{.name = "BodySize", .summary = "nodes in a body"};
  std::size_t operator()(const ir::Function& fn, const ir::Module&) const { return fn.body->size(); }
};

/// Asks for every function's BodySize, and CallGraph; records the sizes in
/// the order of the functions, in `seen`; changes nothing.
inline std::vector<std::vector<std::size_t>> seen;
struct Measure {
  static constexpr PassInfo info{.name = "Measure", .preserves = passline::preserves_all};
  ir::Module operator()(ir::Module module, PassContext& ctx) const {
    auto& analyses = ctx.analyses<ir::Module>();
    (void)analyses.get<ir::CallGraph>(module);
    std::vector<std::size_t> sizes;
    for (std::size_t i = 0; i < module.functions.size(); ++i) sizes.push_back(analyses.get<BodySize>(module, i));
    seen.push_back(sizes);
    return module;
  }
};

/// Reverses the order of the functions: every body and every call graph
/// edge stays (by name), so it truly keeps BodySize, whose results follow
/// their functions; CallGraph's positions change, so it does not keep that.
struct Reverse {
  static constexpr PassInfo info{.name = "Reverse", .preserves = passline::names<"BodySize">};
  ir::Module operator()(ir::Module module, PassContext&) const {
    std::ranges::reverse(module.functions);
    return module;
  }
};

/// Replaces @leaf's body by a longer one, claiming (falsely) to keep BodySize.
struct GrowLeaf {
  static constexpr PassInfo info{.name = "GrowLeaf", .preserves = passline::names<"BodySize", "InferType">};
  ir::Module operator()(ir::Module module, PassContext&) const {
    const ir::Module longer = ir::parse("def @leaf(%x: i64) -> i64 {\n  add(add(add(%x, 1), 2), 3)\n}\n", "leaf.ir");
    module.functions[static_cast<std::size_t>(module.find("leaf"))] = longer.functions[0];
    return module;
  }
};

/// Calls @leaf from @middle_one twice, claiming to keep CallGraph: the
/// edges stay the same, so the claim is true.
struct CallTwice {
  static constexpr PassInfo info{.name = "CallTwice", .preserves = passline::names<"CallGraph">};
  ir::Module operator()(ir::Module module, PassContext&) const {
    const ir::Module twice =
        ir::parse("def @leaf(%x: i64) -> i64 {\n  %x\n}\n\ndef @middle_one(%x: i64) -> i64 {\n  @leaf(@leaf(%x))\n}\n",
                  "twice.ir");
    module.functions[1] = twice.functions[1];
    return module;
  }
};

/// Drops the calls of @main, claiming (falsely) to keep CallGraph.
struct CutMain {
  static constexpr PassInfo info{.name = "CutMain", .preserves = passline::names<"CallGraph">};
  ir::Module operator()(ir::Module module, PassContext&) const {
    const ir::Module cut = ir::parse("#[export]\ndef @main(%x: i64) -> i64 {\n  %x\n}\n", "cut.ir");
    module.functions[2].body = cut.functions[0].body;
    return module;
  }
};

/// Adds an untyped expression, claiming to keep InferType: InferType run
/// again would type it, so the claim is false.
struct Untype {
  static constexpr PassInfo info{.name = "Untype", .preserves = passline::names<"InferType">};
  ir::Module operator()(ir::Module module, PassContext&) const {
    module.functions[0] = ir::parse("def @leaf(%x: i64) -> i64 {\n  add(%x, 2)\n}\n", "untyped.ir").functions[0];
    return module;
  }
};

PassContext verifying() {
  PassContext ctx;
  ctx.instruments = {std::make_shared<passline::VerifyPreserved<ir::Module>>(&passline::pipelines::registry())};
  return ctx;
}

std::string failure_of(auto pipeline) {
  PassContext ctx = verifying();
  try {
    (void)pipeline(ir::parse(program, "program.ir"), ctx);
  } catch (const passline::VerificationError& error) {
    return error.what();
  }
  return "no error";
}

TEST(VerifyPreserved, NamesAPassThatClaimsAFunctionAnalysisItBroke) {
  const std::string what = failure_of(passline::Sequential<Measure, GrowLeaf, Measure>{});
  EXPECT_NE(what.find("GrowLeaf"), std::string::npos) << what;
  EXPECT_NE(what.find("claims to preserve the analysis 'BodySize', but its result for 'leaf'"), std::string::npos)
      << what;
}

TEST(VerifyPreserved, NamesAPassThatClaimsAModuleAnalysisItBroke) {
  const std::string what = failure_of(passline::Sequential<Measure, CutMain, Measure>{});
  EXPECT_NE(what.find("CutMain"), std::string::npos) << what;
  EXPECT_NE(what.find("claims to preserve the analysis 'CallGraph'"), std::string::npos) << what;
}

TEST(VerifyPreserved, NamesAPassThatClaimsAPassItUndid) {
  const std::string what = failure_of(passline::Sequential<ir::InferType, Untype, ir::FoldConstant>{});
  EXPECT_NE(what.find("Untype"), std::string::npos) << what;
  EXPECT_NE(what.find("claims to preserve 'InferType', but 'InferType' run again changes the IR"), std::string::npos)
      << what;
}

TEST(VerifyPreserved, TrueClaimsPass) {
  EXPECT_EQ(failure_of(passline::Sequential<Measure, CallTwice, Measure>{}), "no error");
  EXPECT_EQ(failure_of(passline::Sequential<Measure, Reverse, Measure>{}), "no error");
  PassContext ctx = verifying();
  ctx.opt_level = 3;
  const ir::Module out = passline::pipelines::registry().create("O3")(ir::parse(program, "program.ir"), ctx);
  EXPECT_EQ(out.functions.size(), 1u);
}

TEST(AnalysisManager, FunctionResultsFollowTheirFunctionsWhenAPassMovesThem) {
  seen.clear();
  PassContext ctx;
  (void)passline::Sequential<Measure, Reverse, Measure>{}(ir::parse(program, "program.ir"), ctx);
  ASSERT_EQ(seen.size(), 2u);
  std::vector<std::size_t> reversed = seen[0];
  std::ranges::reverse(reversed);
  EXPECT_EQ(seen[1], reversed);
  EXPECT_NE(seen[0], seen[1]);  // the bodies differ in size, so the test tells places apart
}

TEST(FunctionPass, AFunctionPassThatKeepsTheModuleSeesItWholeAsItWasBefore) {
  const ir::Module input = ir::parse(program, "program.ir");
  std::vector<std::string> texts;
  std::mutex mutex;  // functions may run on several threads
  const auto look = passline::function_pass<ir::Module>(
      PassInfo{.name = "Look"}, [&](ir::Function fn, std::shared_ptr<const ir::Module> before, PassContext&) {
        const std::lock_guard lock(mutex);
        texts.push_back(ir::print(*before));
        return fn;
      });
  (void)look(input);
  ASSERT_EQ(texts.size(), 3u);
  for (const std::string& text : texts) EXPECT_EQ(text, ir::print(input));
}

TEST(FunctionPass, AResultTakesItsInputsPlaceWithItsNameAndAttributes) {
  const auto rename = passline::function_pass<ir::Module>(
      PassInfo{.name = "Rename"}, [](ir::Function fn, const ir::Module&, PassContext&) {
        fn.name = "other";
        fn.exported = !fn.exported;
        return fn;
      });
  const ir::Module out = rename(ir::parse(program, "program.ir"));
  ASSERT_EQ(out.functions.size(), 3u);
  EXPECT_EQ(out.functions[0].name, "leaf");
  EXPECT_EQ(out.functions[2].name, "main");
  EXPECT_FALSE(out.functions[0].exported);
  EXPECT_TRUE(out.functions[2].exported);
  ir::verify(out);
}

/// Records the passes it sees begin, in order.
struct PassLog final : passline::Instrument {
  void before_pass(const PassInfo& info, passline::IRView, const passline::PassPlace&) override {
    seen.emplace_back(info.name);
  }
  std::vector<std::string> seen;
};

/// A function pass that optimizes the whole module it is shown with O2 and
/// keeps its own function of the result: a run begun on each of several
/// threads at once, under the caller's context. The output, and what an
/// instrument saw.
std::pair<std::string, std::vector<std::string>> optimize_each_function(std::int64_t threads) {
  std::string text;
  for (int i = 0; i < 8; ++i) {
    text += "def @f" + std::to_string(i) + "(%x: i64) -> i64 {\n  let %y = mul(%x, add(2, " + std::to_string(i) +
            "));\n  @g(%y)\n}\n\n";
  }
  text += "def @g(%x: i64) -> i64 {\n  add(%x, 1)\n}\n";
  const passline::Pass<ir::Module> o2 = passline::pipelines::registry().create("O2");
  const auto each = passline::function_pass<ir::Module>(
      PassInfo{.name = "OptimizeEach"}, [&](ir::Function fn, std::shared_ptr<const ir::Module> before, PassContext&) {
        const ir::Module optimized = o2(*before);
        return optimized.functions[static_cast<std::size_t>(optimized.find(fn.name))];
      });
  PassContext ctx;
  ctx.config.set(passline::config::threads, threads);
  auto log = std::make_shared<PassLog>();
  ctx.instruments = {log, std::make_shared<passline::TimePasses>()};
  const ir::Module out = passline::sequential<ir::Module>({o2, each, o2})(ir::parse(text, "each.ir"), ctx);
  return {ir::print(out), log->seen};
}

TEST(Parallel, AFunctionPassThatRunsAPipelineGivesTheOneThreadResultOnSeveralThreads) {
  const auto one = optimize_each_function(1);
  // Instruments watch the pipeline given, not the runs a function pass's calls begin.
  EXPECT_EQ(std::ranges::count(one.second, "OptimizeEach"), 1);
  EXPECT_EQ(std::ranges::count(one.second, "FoldConstant"), 2);
  for (int run = 0; run < 5; ++run) EXPECT_EQ(optimize_each_function(4), one);
}

}  // namespace
