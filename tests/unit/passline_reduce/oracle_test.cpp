// What "still failing" means: the oracle a failing run gives, and which runs
// it accepts.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
import passline.reduce;
import passline.driver;

namespace {

namespace rd = passline::reduce;
namespace od = passline::driver;  // the oracle is the driver's: it reads the drivers' wording

rd::Exit failed(const std::string& pass) {
  return rd::Exit{.kind = rd::Exit::Kind::exited, .code = 1, .signal = 0, .seconds = 0,
                  .err = "tool: error: pass '" + pass + "' failed (in builtin.module): it went wrong\n"};
}

TEST(ReduceOracle, AFailingRunPinsItsPass) {
  const od::Oracle oracle = od::classify(failed("Inline"), od::Oracle{}, false);
  EXPECT_EQ(oracle.symptom, od::Symptom::error);
  EXPECT_EQ(oracle.pass, "Inline");
  EXPECT_TRUE(oracle.shows(failed("Inline")));
  EXPECT_FALSE(oracle.shows(failed("FoldConstant")));
  EXPECT_FALSE(oracle.shows(rd::Exit{}));
}

TEST(ReduceOracle, ANestIsTheSamePassWithSomeOfItsPassesGone) {
  const std::string nest = "func.func(cse,canonicalize{max-iterations=1},cse)";
  const od::Oracle oracle = od::classify(failed(nest), od::Oracle{}, false);
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
  EXPECT_THROW(od::classify(rd::Exit{}, od::Oracle{}, false), std::runtime_error);
}

}  // namespace
