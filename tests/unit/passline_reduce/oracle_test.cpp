// What "still failing" means: the oracle a failing run gives, and which runs
// it accepts.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>
import passline.reduce;
import passline.driver;

namespace {

namespace rd = passline::reduce;
namespace od = passline::driver;  // the oracle is the driver's: it reads the drivers' wording

od::Exit failed(const std::string& pass) {
  return od::Exit{.kind = od::Exit::Kind::exited, .code = 1, .signal = 0, .seconds = 0,
                  .err = "tool: error: pass '" + pass + "' failed (in builtin.module): it went wrong\n"};
}

TEST(ReduceOracle, AFailingRunPinsItsPass) {
  const od::Oracle oracle = od::classify(failed("Inline"), od::Oracle{}, false);
  EXPECT_EQ(oracle.symptom, od::Symptom::error);
  EXPECT_EQ(oracle.pass, "Inline");
  EXPECT_TRUE(oracle.shows(failed("Inline")));
  EXPECT_FALSE(oracle.shows(failed("FoldConstant")));
  EXPECT_FALSE(oracle.shows(od::Exit{}));
}

TEST(ReduceOracle, AFailureTheIRsOwnDiagnosticsShowedIsNamedByANote) {
  // MLIR's handler printed the error; the driver names the pass in a note.
  const od::Exit shown{.kind = od::Exit::Kind::exited, .code = 1, .signal = 0, .seconds = 0,
                       .err = "in.mlir:3:5: error: cannot create out param\n    %0 = call @f()\n    ^\n"
                              "tool: note: pass 'buffer-results-to-out-params' failed (in builtin.module)\n"};
  const od::Oracle oracle = od::classify(shown, od::Oracle{}, false);
  EXPECT_EQ(oracle.symptom, od::Symptom::error);
  EXPECT_EQ(oracle.pass, "buffer-results-to-out-params");
  EXPECT_TRUE(oracle.shows(shown));
  EXPECT_FALSE(oracle.shows(failed("cse")));
}

/// What a tool's reader (MLIR's parser, in passline-mlir-opt) gives for the texts below.
std::vector<rd::Step> read(const std::string& text) {
  auto nest = [](std::string anchor, const std::vector<std::string>& passes) {
    rd::Step step{.text = std::move(anchor), .nested = true};
    for (const std::string& pass : passes) step.inner.push_back({.text = pass});
    return std::vector<rd::Step>{step};
  };
  const std::map<std::string, std::vector<rd::Step>> known{
      {"func.func(cse,canonicalize{max-iterations=1},cse)",
       nest("func.func", {"cse", "canonicalize{max-iterations=1}", "cse"})},
      {"func.func(canonicalize{max-iterations=1})", nest("func.func", {"canonicalize{max-iterations=1}"})},
      {"func.func(cse,cse)", nest("func.func", {"cse", "cse"})},
      {"func.func(canonicalize{max-iterations=2})", nest("func.func", {"canonicalize{max-iterations=2}"})},
      {"func.func(canonicalize{max-iterations=1},cse,cse,cse)",
       nest("func.func", {"canonicalize{max-iterations=1}", "cse", "cse", "cse"})},
      {"gpu.module(cse)", nest("gpu.module", {"cse"})},
      {"func.func()", nest("func.func", {})}};
  const auto found = known.find(text);
  return found != known.end() ? found->second : std::vector<rd::Step>{{.text = text}};
}

TEST(ReduceOracle, ANestIsTheSamePassWithSomeOfItsPassesGone) {
  const std::string nest = "func.func(cse,canonicalize{max-iterations=1},cse)";
  // Without the tool's reader, a nest is the same pass only as the same text.
  const od::Oracle unread = od::classify(failed(nest), od::Oracle{}, false);
  EXPECT_TRUE(unread.shows(failed(nest)));
  EXPECT_FALSE(unread.shows(failed("func.func(cse,cse)")));
  od::Oracle given;
  given.read = read;
  const od::Oracle oracle = od::classify(failed(nest), given, false);
  EXPECT_EQ(oracle.pass, nest);
  EXPECT_TRUE(oracle.shows(failed(nest)));
  EXPECT_TRUE(oracle.shows(failed("func.func(canonicalize{max-iterations=1})")));
  EXPECT_TRUE(oracle.shows(failed("func.func(cse,cse)")));
  // Not a pass the nest had, its passes in another order, another anchor, or no nest.
  EXPECT_FALSE(oracle.shows(failed("func.func(canonicalize{max-iterations=2})")));
  EXPECT_FALSE(oracle.shows(failed("func.func(canonicalize{max-iterations=1},cse,cse,cse)")));
  EXPECT_FALSE(oracle.shows(failed("gpu.module(cse)")));
  EXPECT_FALSE(oracle.shows(failed("cse")));
  EXPECT_FALSE(oracle.shows(failed("func.func()")));
}

TEST(ReduceOracle, APatternDecidesInsteadOfThePass) {
  od::Oracle given;
  given.match = "went wrong";
  const od::Oracle oracle = od::classify(failed("Inline"), given, false);
  EXPECT_TRUE(oracle.pass.empty());
  EXPECT_TRUE(oracle.shows(failed("FoldConstant")));
}

TEST(ReduceOracle, ARunThatDoesNotFailIsRefused) {
  EXPECT_THROW(od::classify(od::Exit{}, od::Oracle{}, false), std::runtime_error);
}

}  // namespace
