// A pass that throws: the caller's IR is untouched, and the error names the
// pass and the pipeline path to it, with the original exception nested.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>
import passline;
import passline.testing;

namespace {

using passline::Pass;
using passline::PassContext;
using passline::PassError;
using passline::PassInfo;
using passline::testing::Step;
using passline::testing::Trace;
using Names = std::vector<std::string>;

Pass<Trace> failing(std::string name) {
  return Pass<Trace>(PassInfo{.name = name}, [](Trace t, PassContext&) -> Trace {
    t.ran.push_back("half-done");
    throw std::runtime_error("division by zero");
  });
}

TEST(Errors, ThrowingPassLeavesTheCallersIRUntouched) {
  const Trace input{{"parsed"}};
  Trace ir = input;
  const Pass<Trace> pipeline = passline::sequential<Trace>({Step<"A">{}, failing("Fold"), Step<"B">{}});
  PassContext ctx;
  EXPECT_THROW(ir = pipeline(ir, ctx), PassError);
  EXPECT_EQ(ir, input);
}

TEST(Errors, ErrorNamesThePassAndItsPipelinePath) {
  const Pass<Trace> inner = passline::sequential<Trace>({Step<"A">{}, failing("Fold")}, {.name = "Simplify"});
  const Pass<Trace> outer = passline::sequential<Trace>({Step<"B">{}, inner}, {.name = "O2"});
  PassContext ctx;
  try {
    (void)outer(Trace{}, ctx);
    FAIL();
  } catch (const PassError& error) {
    EXPECT_STREQ(error.what(), "pass 'Fold' failed (in O2/Simplify/Fold): division by zero");
    EXPECT_EQ(error.pass(), "Fold");
    EXPECT_EQ(error.path(), "O2/Simplify/Fold");
    try {
      std::rethrow_if_nested(error);
      FAIL() << "no nested exception";
    } catch (const std::runtime_error& cause) {
      EXPECT_STREQ(cause.what(), "division by zero");
    }
  }
}

// A pass that throws one of the library's own errors (here a config key it
// reads with the wrong type) is still named: only a PassError from further in,
// a RequirementError and an instrument's exception pass on as they are.
TEST(Errors, APassThatThrowsALibraryErrorIsNamed) {
  const Pass<Trace> reads_config = passline::module_pass<Trace>(
      PassInfo{.name = "ReadsConfig"}, [](Trace, PassContext&) -> Trace { throw passline::ConfigError("no such key"); });
  const Pass<Trace> pipeline = passline::sequential<Trace>({Step<"A">{}, reads_config}, {.name = "Seq"});
  PassContext ctx;
  try {
    (void)pipeline(Trace{}, ctx);
    FAIL();
  } catch (const PassError& error) {
    EXPECT_STREQ(error.what(), "pass 'ReadsConfig' failed (in Seq/ReadsConfig): no such key");
    EXPECT_THROW(std::rethrow_if_nested(error), passline::ConfigError);
  }
}

struct Boom {
  static constexpr PassInfo info{.name = "Boom"};
  Trace operator()(Trace, PassContext&) const { throw std::logic_error("broken invariant"); }
};

TEST(Errors, FailureInsideAStaticPipelineNamesItsPass) {
  const Pass<Trace> pipeline = passline::sequential<Trace>({passline::Sequential<Step<"A">, Boom>{}}, {.name = "O1"});
  PassContext ctx;
  try {
    (void)pipeline(Trace{}, ctx);
    FAIL();
  } catch (const PassError& error) {
    EXPECT_STREQ(error.what(), "pass 'Boom' failed (in O1/Sequential/Boom): broken invariant");
  }
}

TEST(Errors, AStaticPipelineRegisteredByNameStandsUnderThatName) {
  passline::Registry<Trace> registry;
  registry.add<Step<"A">>().add<passline::Sequential<Step<"A">, Boom>>("Strict");
  for (const char* text : {"Strict", "A,seq(Strict)"}) {
    const Pass<Trace> pipeline = passline::parse_pipeline(text, registry);
    PassContext ctx;
    try {
      (void)pipeline(Trace{}, ctx);
      FAIL() << text;
    } catch (const PassError& error) {
      // The list of the text is no pipeline of its own; a seq(...) is.
      const std::string path = std::string(text) == "Strict" ? "Strict/Boom" : "Sequential/Strict/Boom";
      EXPECT_EQ(error.path(), path) << text;
    }
  }
}

}  // namespace
