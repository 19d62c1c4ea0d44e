// Scenarios from TVM's pass-manager tests (test_pass_manager.py,
// test_pass_instrument.py), written against passline's runtime layer.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>
import passline;
import passline.instruments;
import passline.testing;

namespace {

using passline::Pass;
using passline::PassContext;
using passline::PassInfo;
using passline::testing::Function;
using passline::testing::Program;
using Names = std::vector<std::string>;

Program two_functions() { return Program{.functions = {{.name = "main"}, {.name = "helper"}}}; }

Pass<Program> module_tag(std::string name, int opt_level = 0) {
  return passline::module_pass<Program>(PassInfo{.name = name, .opt_level = opt_level},
                                        [name](Program p, PassContext&) {
                                          p.module_passes.push_back(name);
                                          return p;
                                        });
}

Pass<Program> function_tag(std::string name, int opt_level = 0) {
  return passline::function_pass<Program>(PassInfo{.name = name, .opt_level = opt_level},
                                          [name](Function fn, const Program&, PassContext&) {
                                            fn.ran.push_back(name);
                                            return fn;
                                          });
}

TEST(TVMScenarios, ModulePassFromACallable) {
  const Pass<Program> pass = module_tag("module_transform", 1);
  EXPECT_EQ(pass.info().name, "module_transform");
  EXPECT_EQ(pass.info().opt_level, 1);
  PassContext ctx;
  EXPECT_EQ(pass(two_functions(), ctx).module_passes, (Names{"module_transform"}));
}

TEST(TVMScenarios, FunctionPassFromACallable) {
  const Pass<Program> pass = function_tag("function_transform", 2);
  EXPECT_EQ(pass.info().opt_level, 2);
  PassContext ctx;
  const Program out = pass(two_functions(), ctx);
  EXPECT_EQ(out.functions[0].ran, (Names{"function_transform"}));
  EXPECT_EQ(out.functions[1].ran, (Names{"function_transform"}));
}

struct HoistInvariants {
  Program operator()(Program p, PassContext&) const {
    p.module_passes.emplace_back("hoisted");
    return p;
  }
};

TEST(TVMScenarios, PassNamedAfterItsType) {
  const Pass<Program> pass = passline::named_pass<Program>(HoistInvariants{}, 1);
  EXPECT_EQ(pass.info().name, "HoistInvariants");
  EXPECT_EQ(pass.info().opt_level, 1);
}

TEST(TVMScenarios, PassInfoRoundTrip) {
  const std::vector<std::string_view> required{"InferType", "ToANormalForm"};
  const PassInfo info{.name = "FoldConstant", .opt_level = 2, .required = required, .summary = "folds"};
  const Pass<Program> pass = passline::module_pass<Program>(info, [](Program p, PassContext&) { return p; });
  EXPECT_EQ(pass.info().name, info.name);
  EXPECT_EQ(pass.info().opt_level, info.opt_level);
  EXPECT_TRUE(std::ranges::equal(pass.info().required, info.required));
  EXPECT_EQ(pass.info().summary, info.summary);
}

TEST(TVMScenarios, EmptySequential) {
  const Pass<Program> seq = passline::sequential<Program>({});
  PassContext ctx;
  EXPECT_EQ(seq(two_functions(), ctx), two_functions());
  EXPECT_EQ(seq.info().opt_level, 0);
  EXPECT_EQ(seq.info().name, "Sequential");
}

TEST(TVMScenarios, ModuleOnlyFunctionOnlyAndMixedUnderRequired) {
  // Passes above the opt level run because the context requires them.
  PassContext ctx{.opt_level = 0, .required = {"mod3", "fn3"}};
  const Program module_only =
      passline::sequential<Program>({module_tag("mod3", 3), module_tag("mod4", 4)})(two_functions(), ctx);
  EXPECT_EQ(module_only.module_passes, (Names{"mod3"}));
  const Program function_only =
      passline::sequential<Program>({function_tag("fn3", 3), function_tag("fn4", 4)})(two_functions(), ctx);
  EXPECT_EQ(function_only.functions[0].ran, (Names{"fn3"}));
  const Program mixed = passline::sequential<Program>({module_tag("mod3", 3), function_tag("fn3", 3)})(two_functions(), ctx);
  EXPECT_EQ(mixed.module_passes, (Names{"mod3"}));
  EXPECT_EQ(mixed.functions[1].ran, (Names{"fn3"}));
}

TEST(TVMScenarios, SequentialUnderOptLevel3Scope) {
  const Pass<Program> seq = passline::sequential<Program>({module_tag("O3pass", 3), module_tag("O4pass", 4)});
  PassContext ctx{.opt_level = 3};
  auto scope = ctx.enter();
  EXPECT_EQ(seq(two_functions()).module_passes, (Names{"O3pass"}));
}

TEST(TVMScenarios, NestedSequentialWhoseInnerPartRunsAtOptLevel1) {
  const Pass<Program> inner =
      passline::sequential<Program>({module_tag("inner1", 1), module_tag("inner2", 2)}, {.name = "Inner", .opt_level = 1});
  const Pass<Program> outer = passline::sequential<Program>({module_tag("outer0"), inner});
  PassContext level1{.opt_level = 1};
  EXPECT_EQ(outer(two_functions(), level1).module_passes, (Names{"outer0", "inner1"}));
  PassContext level0{.opt_level = 0};
  EXPECT_EQ(outer(two_functions(), level0).module_passes, (Names{"outer0"}));
}

TEST(TVMScenarios, DisabledPassIsSkipped) {
  const Pass<Program> seq = passline::sequential<Program>({module_tag("A"), module_tag("B"), function_tag("C")});
  PassContext ctx{.disabled = {"B", "C"}};
  const Program out = seq(two_functions(), ctx);
  EXPECT_EQ(out.module_passes, (Names{"A"}));
  EXPECT_TRUE(out.functions[0].ran.empty());
}

TEST(TVMScenarios, ContextsNestAndRestoreAfterAnException) {
  PassContext outer{.opt_level = 1};
  PassContext inner{.opt_level = 3};
  auto outer_scope = outer.enter();
  try {
    auto inner_scope = inner.enter();
    EXPECT_EQ(PassContext::current().opt_level, 3);
    throw std::runtime_error("leaving early");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(&PassContext::current(), &outer);
}

TEST(TVMScenarios, DerivedContextKeepsEverythingElse) {
  PassContext base{.opt_level = 3, .disabled = {"Inline"}};
  base.config.set(passline::config::threads, std::int64_t{2});
  auto scope = base.enter();
  struct Counting final : passline::Instrument {};
  PassContext derived = PassContext::current().with_instrument(std::make_shared<Counting>());
  EXPECT_EQ(derived.opt_level, 3);
  EXPECT_EQ(derived.disabled, (Names{"Inline"}));
  EXPECT_EQ(derived.config.get(passline::config::threads), 2);
  EXPECT_EQ(derived.instruments.size(), 1u);
  EXPECT_EQ(derived.diagnostics, base.diagnostics);
  EXPECT_TRUE(base.instruments.empty());
}

/// Records every hook it sees into a shared log, and can be told to throw.
struct Recorder final : passline::Instrument {
  Recorder(std::string n, std::shared_ptr<Names> l) : name(std::move(n)), log(std::move(l)) {}
  void enter_context() override {
    log->push_back(name + ".enter");
    if (fail_enter) throw std::runtime_error("enter failed");
  }
  void exit_context() override {
    log->push_back(name + ".exit");
    if (fail_exit) throw std::runtime_error(name + " exit failed");
  }
  bool should_run(const PassInfo& info, passline::IRView, const passline::PassPlace&) override {
    log->push_back(name + ".should_run " + std::string(info.name));
    if (throws_in == "should_run") throw std::runtime_error("should_run failed");
    return info.name != vetoed;
  }
  void before_pass(const PassInfo& info, passline::IRView, const passline::PassPlace&) override {
    log->push_back(name + ".before " + std::string(info.name));
    if (throws_in == "before" && (throws_on.empty() || throws_on == info.name)) throw std::runtime_error("before failed");
  }
  void after_pass(const PassInfo& info, passline::IRView, const passline::PassPlace&) override {
    log->push_back(name + ".after " + std::string(info.name));
    if (throws_in == "after") throw std::runtime_error("after failed");
  }
  void after_failed_pass(const PassInfo& info, passline::IRView, const passline::PassPlace&,
                         std::exception_ptr) override {
    log->push_back(name + ".failed " + std::string(info.name));
  }
  std::string name;
  std::shared_ptr<Names> log;
  bool fail_enter = false;
  bool fail_exit = false;
  std::string vetoed = {};
  std::string throws_in = {};  // "should_run", "before" or "after": that hook throws
  std::string throws_on = {};  // ... for this pass only (before); empty: for every pass
};

TEST(TVMScenarios, InstrumentHooksInOrder) {
  auto log = std::make_shared<Names>();
  auto first = std::make_shared<Recorder>("a", log);
  auto second = std::make_shared<Recorder>("b", log);
  second->vetoed = "Skipped";
  PassContext ctx{.instruments = {first, second}};
  {
    auto scope = ctx.enter();
    (void)passline::sequential<Program>({module_tag("Run"), module_tag("Skipped")})(two_functions());
  }
  EXPECT_EQ(*log, (Names{"a.enter", "b.enter", "a.should_run Sequential", "b.should_run Sequential",
                         "a.before Sequential", "b.before Sequential", "a.should_run Run", "b.should_run Run",
                         "a.before Run", "b.before Run", "a.after Run", "b.after Run", "a.should_run Skipped",
                         "b.should_run Skipped", "a.after Sequential", "b.after Sequential", "a.exit", "b.exit"}));
}

TEST(TVMScenarios, StaticPipelineUnderAnInstrumentIsSeenWholeAndByPass) {
  auto log = std::make_shared<Names>();
  auto recorder = std::make_shared<Recorder>("a", log);
  recorder->vetoed = "Skipped";
  PassContext ctx{.instruments = {recorder}};
  using passline::testing::ProgramStep;
  const passline::Sequential<ProgramStep<"Run">, ProgramStep<"Skipped">> pipeline;
  const Program out = pipeline(two_functions(), ctx);
  EXPECT_EQ(out.module_passes, (Names{"Run"}));
  EXPECT_EQ(*log, (Names{"a.should_run Sequential", "a.before Sequential", "a.should_run Run", "a.before Run",
                         "a.after Run", "a.should_run Skipped", "a.after Sequential"}));
}

// TVM's InstrumentEnterPassContext (src/ir/transform.cc): the instruments
// entered before the failing one exit, in order, and the context's
// instruments are cleared, so that the context can be entered again.
TEST(TVMScenarios, FailedEnterExitsTheEnteredClearsAndDoesNotPush) {
  auto log = std::make_shared<Names>();
  auto first = std::make_shared<Recorder>("a", log);
  auto second = std::make_shared<Recorder>("b", log);
  auto third = std::make_shared<Recorder>("c", log);
  auto fourth = std::make_shared<Recorder>("d", log);
  third->fail_enter = true;
  PassContext ctx{.instruments = {first, second, third, fourth}};
  PassContext& before = PassContext::current();
  EXPECT_THROW({ auto scope = ctx.enter(); }, std::runtime_error);
  EXPECT_EQ(&PassContext::current(), &before);
  EXPECT_EQ(*log, (Names{"a.enter", "b.enter", "c.enter", "a.exit", "b.exit"}));
  EXPECT_TRUE(ctx.instruments.empty());
  auto scope = ctx.enter();  // nothing left to fail
  EXPECT_EQ(&PassContext::current(), &ctx);
}

// TVM's InstrumentExitPassContext: the exit stops at the instrument that
// threw, the context's instruments are cleared, and the exception goes on.
TEST(TVMScenarios, FailedExitStopsThereClearsAndThrowsFromExit) {
  auto log = std::make_shared<Names>();
  auto second = std::make_shared<Recorder>("b", log);
  second->fail_exit = true;
  PassContext ctx{.instruments = {std::make_shared<Recorder>("a", log), second, std::make_shared<Recorder>("c", log)}};
  PassContext& before = PassContext::current();
  auto scope = ctx.enter();
  try {
    scope.exit();
    ADD_FAILURE() << "exit did not throw";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "b exit failed");
  }
  EXPECT_EQ(&PassContext::current(), &before);
  EXPECT_EQ(*log, (Names{"a.enter", "b.enter", "c.enter", "a.exit", "b.exit"}));
  EXPECT_TRUE(ctx.instruments.empty());
  EXPECT_EQ(ctx.diagnostics->error_count(), 0u);
}

// A destructor cannot throw: a scope that ends without exit() follows the
// same rule, and the exception becomes an error in the diagnostics.
TEST(TVMScenarios, FailedExitAtTheEndOfAScopeIsADiagnostic) {
  auto log = std::make_shared<Names>();
  auto first = std::make_shared<Recorder>("a", log);
  first->fail_exit = true;
  PassContext ctx{.instruments = {first, std::make_shared<Recorder>("b", log)}};
  { auto scope = ctx.enter(); }
  EXPECT_EQ(*log, (Names{"a.enter", "b.enter", "a.exit"}));
  EXPECT_TRUE(ctx.instruments.empty());
  ASSERT_EQ(ctx.diagnostics->error_count(), 1u);
  EXPECT_EQ(ctx.diagnostics->entries()[0].message, "instrument failed on exit: a exit failed");
}

// TVM's PassContext.override_instruments: the old instruments exit, the new
// ones enter; a failing hook clears them and goes on.
TEST(TVMScenarios, OverrideInstrumentsExitsTheOldAndEntersTheNew) {
  auto log = std::make_shared<Names>();
  PassContext ctx{.instruments = {std::make_shared<Recorder>("a", log)}};
  ctx.override_instruments({std::make_shared<Recorder>("b", log)});
  EXPECT_EQ(*log, (Names{"a.exit", "b.enter"}));
  auto broken = std::make_shared<Recorder>("c", log);
  broken->fail_enter = true;
  EXPECT_THROW(ctx.override_instruments({broken}), std::runtime_error);
  EXPECT_EQ(*log, (Names{"a.exit", "b.enter", "b.exit", "c.enter"}));
  EXPECT_TRUE(ctx.instruments.empty());
}

// TVM: only a Sequential asks whether a pass is enabled; a pass called on
// its own runs whatever its opt level, even disabled (instruments still
// decide). The pipeline called on its own runs, and gates its passes.
TEST(TVMScenarios, APassCalledOnItsOwnIsNotGated) {
  PassContext ctx{.opt_level = 0, .disabled = {"late", "Seq"}};
  EXPECT_EQ(module_tag("late", 3)(two_functions(), ctx).module_passes, (Names{"late"}));
  EXPECT_EQ(function_tag("late", 3)(two_functions(), ctx).functions[0].ran, (Names{"late"}));
  const Pass<Program> seq =
      passline::sequential<Program>({module_tag("early", 0), module_tag("late", 3)}, {.name = "Seq", .opt_level = 3});
  EXPECT_EQ(seq(two_functions(), ctx).module_passes, (Names{"early"}));
  using passline::testing::ProgramStep;
  const passline::Sequential<ProgramStep<"early">, ProgramStep<"late", 3>> static_seq;
  EXPECT_EQ(static_seq(two_functions(), ctx).module_passes, (Names{"early"}));
  EXPECT_EQ(Pass<Program>(ProgramStep<"late", 3>{})(two_functions(), ctx).module_passes, (Names{"late"}));
  // Nested, the inner pipeline is gated as a pass of the outer one.
  const Pass<Program> outer = passline::sequential<Program>({seq, module_tag("after")});
  EXPECT_EQ(outer(two_functions(), ctx).module_passes, (Names{"after"}));
}

TEST(TVMScenarios, ThrowingPassGetsAfterFailedNotAfter) {
  auto log = std::make_shared<Names>();
  PassContext ctx{.instruments = {std::make_shared<Recorder>("a", log)}};
  const Pass<Program> boom = passline::module_pass<Program>(
      PassInfo{.name = "Boom"}, [](Program, PassContext&) -> Program { throw std::runtime_error("boom"); });
  {
    auto scope = ctx.enter();
    EXPECT_THROW((void)boom(two_functions()), passline::PassError);
  }
  EXPECT_EQ(*log, (Names{"a.enter", "a.should_run Boom", "a.before Boom", "a.failed Boom", "a.exit"}));
}

/// TVM's test_pass_instrument.py scenarios where a hook throws: the first
/// instrument's hook throws, the second's is not called, the error reaches the
/// caller, and both instruments still exit.
Names run_with_throwing(const std::string& hook) {
  auto log = std::make_shared<Names>();
  auto first = std::make_shared<Recorder>("a", log);
  first->throws_in = hook;
  PassContext ctx{.instruments = {first, std::make_shared<Recorder>("b", log)}};
  try {
    auto scope = ctx.enter();
    (void)module_tag("Run")(two_functions());
    ADD_FAILURE() << hook << " did not throw";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()), hook + " failed");
  }
  return *log;
}

TEST(TVMScenarios, ThrowingShouldRunSkipsLaterInstrumentsAndStillExits) {
  EXPECT_EQ(run_with_throwing("should_run"), (Names{"a.enter", "b.enter", "a.should_run Run", "a.exit", "b.exit"}));
}

TEST(TVMScenarios, ThrowingBeforeSkipsLaterInstrumentsAndThePassAndStillExits) {
  EXPECT_EQ(run_with_throwing("before"),
            (Names{"a.enter", "b.enter", "a.should_run Run", "b.should_run Run", "a.before Run", "a.exit", "b.exit"}));
}

// b's after hook is skipped, as in TVM; b had its before hook, so it hears
// after_failed instead, and what it paired (a timer, a span) is closed.
TEST(TVMScenarios, ThrowingAfterSkipsLaterInstrumentsAndStillExits) {
  EXPECT_EQ(run_with_throwing("after"),
            (Names{"a.enter", "b.enter", "a.should_run Run", "b.should_run Run", "a.before Run", "b.before Run",
                   "a.after Run", "b.failed Run", "a.exit", "b.exit"}));
}

// An instrument's exception inside a pipeline reaches the caller as itself,
// never as a failure of the pipeline around the pass (TVM's rule), and the
// pipeline's instruments hear after_failed for it.
TEST(TVMScenarios, AnInstrumentsExceptionInsideAPipelineIsItsOwn) {
  auto log = std::make_shared<Names>();
  auto thrower = std::make_shared<Recorder>("b", log);
  thrower->throws_in = "before";
  thrower->throws_on = "Run";
  PassContext ctx{.instruments = {std::make_shared<Recorder>("a", log), thrower}};
  const Pass<Program> pipeline = passline::sequential<Program>({module_tag("Run")}, {.name = "Seq"});
  try {
    (void)pipeline(two_functions(), ctx);
    ADD_FAILURE() << "the hook did not throw";
  } catch (const passline::PassError& error) {
    ADD_FAILURE() << "blamed on a pass: " << error.what();
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "before failed");
  }
  // b throws before Run, inside Seq: a closes Run, then both close Seq.
  EXPECT_EQ(*log, (Names{"a.should_run Seq", "b.should_run Seq", "a.before Seq", "b.before Seq", "a.should_run Run",
                         "b.should_run Run", "a.before Run", "b.before Run", "a.failed Run", "a.failed Seq",
                         "b.failed Seq"}));
}

// TimePasses stays consistent when another instrument throws in a before
// hook: the pass that never ran is closed, and later runs are filed at the
// top, not under it.
TEST(TVMScenarios, TimePassesStaysConsistentWhenAnotherInstrumentThrows) {
  auto log = std::make_shared<Names>();
  auto thrower = std::make_shared<Recorder>("b", log);
  thrower->throws_in = "before";
  auto timer = std::make_shared<passline::TimePasses>();
  PassContext failing{.instruments = {timer, thrower}};
  EXPECT_THROW((void)module_tag("Never")(two_functions(), failing), std::runtime_error);
  PassContext later{.instruments = {timer}};
  (void)module_tag("Later")(two_functions(), later);
  const auto& top = timer->timings()->top();
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].name, "Never");
  EXPECT_TRUE(top[0].children.empty());
  EXPECT_EQ(top[1].name, "Later");
  EXPECT_EQ(top[1].count, 1u);
}

// TVM's Sequential(required=...): a pipeline's own required passes run
// before it where they do not hold, found as a pass's are; a disabled one is
// an error naming the pipeline.
TEST(TVMScenarios, APipelinesOwnRequiredPassesRunBeforeIt) {
  passline::Registry<Program> registry;
  registry.add("Needed", module_tag("Needed"));
  const Pass<Program> inner =
      registry.sequential({module_tag("A")}, {.name = "Inner", .required = std::vector<std::string_view>{"Needed"}});
  PassContext ctx;
  EXPECT_EQ(inner(two_functions(), ctx).module_passes, (Names{"Needed", "A"}));
  const Pass<Program> outer = registry.sequential({module_tag("B"), inner});
  EXPECT_EQ(outer(two_functions(), ctx).module_passes, (Names{"B", "Needed", "A"}));
  const Pass<Program> after_needed = registry.sequential({module_tag("Needed"), inner});
  EXPECT_EQ(after_needed(two_functions(), ctx).module_passes, (Names{"Needed", "A"}));  // it holds: not run again
  PassContext disabled{.disabled = {"Needed"}};
  try {
    (void)outer(two_functions(), disabled);
    ADD_FAILURE() << "no RequirementError";
  } catch (const passline::RequirementError& error) {
    EXPECT_STREQ(error.what(), "pass 'Inner' requires 'Needed', which the pass context disables");
  }
}

// TVM's PassTimingInstrument clears its profile when its context exits; the
// record of the context stays with whoever holds it.
TEST(TVMScenarios, TimePassesClearsWhenItsContextExits) {
  auto timer = std::make_shared<passline::TimePasses>();
  PassContext ctx{.instruments = {timer}};
  std::shared_ptr<passline::PassTimings> record;
  {
    auto scope = ctx.enter();
    (void)module_tag("Run")(two_functions());
    record = timer->timings();
    EXPECT_EQ(record->top().size(), 1u);
  }
  EXPECT_TRUE(timer->timings()->top().empty());
  ASSERT_EQ(record->top().size(), 1u);
  EXPECT_EQ(record->top()[0].name, "Run");
}

TEST(TVMScenarios, RequiredPassesAreNotAskedShouldRun) {
  auto log = std::make_shared<Names>();
  auto recorder = std::make_shared<Recorder>("a", log);
  recorder->vetoed = "Forced";
  PassContext ctx{.required = {"Forced"}, .instruments = {recorder}};
  const Program out = module_tag("Forced")(two_functions(), ctx);
  EXPECT_EQ(out.module_passes, (Names{"Forced"}));
  EXPECT_EQ(*log, (Names{"a.before Forced", "a.after Forced"}));
}

}  // namespace
