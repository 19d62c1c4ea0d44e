// passline.mlir: MLIR modules as passline's IR, MLIR's passes as passline's
// passes, mixed with passes written over MLIR, under passline's instruments.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <mlir/Dialect/Arith/IR/Arith.h>
#include <mlir/Dialect/Func/IR/FuncOps.h>
#include <mlir/IR/BuiltinOps.h>
#include <mlir/IR/Builders.h>
#include <mlir/IR/MLIRContext.h>
#include <mlir/IR/SymbolTable.h>
#include <mlir/Tools/ParseUtilities.h>
#include <mlir/Pass/Pass.h>
#include <mlir/Pass/PassInstrumentation.h>
#include <mlir/Pass/PassManager.h>
#include <mlir/Pass/PassRegistry.h>

import passline;
import passline.instruments;
import passline.mlir;

namespace {

using passline::mlir::Module;

constexpr const char* source = R"(func.func @f(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %x = arith.addi %a, %c0 : i32
  %y = arith.addi %a, %c0 : i32
  %z = arith.muli %x, %y : i32
  return %z : i32
}
func.func private @g(%a: i32) -> i32 {
  %x = arith.addi %a, %a : i32
  %y = arith.addi %a, %a : i32
  %z = arith.muli %x, %y : i32
  return %z : i32
}
)";

struct MlirTest : ::testing::Test {
  mlir::MLIRContext context{passline::mlir::registry_of_dialects()};
  Module parse(const std::string& text = source) { return passline::mlir::parse(text, "test.mlir", context); }
  std::size_t count_ops(const Module& module) {
    std::size_t count = 0;
    module.op()->walk([&](mlir::Operation*) { ++count; });
    return count;
  }
};

// -- passes written over MLIR -----------------------------------------------------

/// Counts the operations of the module into the statistics; preserves all.
struct CountOps {
  static constexpr passline::PassInfo info{.name = "CountOps", .preserves = passline::preserves_all};
  Module operator()(Module module, passline::PassContext& ctx) const {
    std::int64_t count = 0;
    module.op()->walk([&](mlir::Operation*) { ++count; });
    ctx.statistics->add("CountOps", "operations", count);
    return module;
  }
};

/// Needs CSE's result: requires `cse`.
struct NeedsCse {
  static constexpr std::string_view required[] = {"cse"};
  static constexpr passline::PassInfo info{.name = "NeedsCse", .required = required};
  Module operator()(Module module, passline::PassContext&) const { return module; }
};

/// A function pass: marks each function it runs on with `visited`.
struct MarkFunctions {
  static constexpr passline::PassInfo info{.name = "MarkFunctions"};
  mlir::Operation* operator()(mlir::Operation* function, const Module&, passline::PassContext&) const {
    function->setAttr("visited", mlir::UnitAttr::get(function->getContext()));
    return function;
  }
};

/// Changes the module, then fails: the caller's module must not see the change.
struct ChangeThenFail {
  static constexpr passline::PassInfo info{.name = "ChangeThenFail"};
  Module operator()(Module module, passline::PassContext&) const {
    module.op()->setAttr("changed", mlir::UnitAttr::get(module.op()->getContext()));
    throw std::runtime_error("failed on purpose");
  }
};

/// Breaks the module: erases the terminator of the first function.
struct BreakModule {
  static constexpr passline::PassInfo info{.name = "BreakModule"};
  Module operator()(Module module, passline::PassContext&) const {
    auto function = *module.op().getOps<mlir::func::FuncOp>().begin();
    function.getBody().front().getTerminator()->erase();
    return module;
  }
};

/// Removes private functions and adds functions `@h` and `@k`: changes the list of
/// functions the next function pass runs on.
struct ReshapeFunctions {
  static constexpr passline::PassInfo info{.name = "ReshapeFunctions"};
  Module operator()(Module module, passline::PassContext&) const {
    for (auto function : llvm::make_early_inc_range(module.op().getOps<mlir::func::FuncOp>())) {
      if (function.isPrivate()) function.erase();
    }
    mlir::OpBuilder builder = mlir::OpBuilder::atBlockEnd(module.op().getBody());
    for (const char* name : {"h", "k"}) {
      auto made = builder.create<mlir::func::FuncOp>(builder.getUnknownLoc(), name, builder.getFunctionType({}, {}));
      mlir::OpBuilder::atBlockEnd(made.addEntryBlock()).create<mlir::func::ReturnOp>(builder.getUnknownLoc());
    }
    return module;
  }
};

/// An MLIR pass that leaves a broken function: it erases the terminator.
struct MlirBreakTerminator
    : mlir::PassWrapper<MlirBreakTerminator, mlir::OperationPass<mlir::func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MlirBreakTerminator)
  llvm::StringRef getArgument() const override { return "test-break-terminator"; }
  llvm::StringRef getDescription() const override { return "erases each function's terminator"; }
  void runOnOperation() override { getOperation().getBody().front().getTerminator()->erase(); }
};

// -- the IR ----------------------------------------------------------------------

TEST_F(MlirTest, ACopyIsAClone) {
  Module module = parse();
  Module copy = module;
  ASSERT_NE(copy.op().getOperation(), module.op().getOperation());
  EXPECT_EQ(passline::mlir::print(copy), passline::mlir::print(module));
  copy.op()->setAttr("mark", mlir::UnitAttr::get(&context));
  EXPECT_FALSE(module.op()->hasAttr("mark"));
  Module moved = std::move(copy);
  EXPECT_FALSE(copy);  // NOLINT(bugprone-use-after-move): a move leaves it empty
  EXPECT_TRUE(moved.op()->hasAttr("mark"));
}

TEST_F(MlirTest, PrintsAsMlirOptAndParsesBack) {
  const Module module = parse();
  const std::string text = passline::mlir::print(module);
  EXPECT_TRUE(text.starts_with("module {\n  func.func @f(%arg0: i32) -> i32 {\n")) << text;
  EXPECT_EQ(passline::mlir::print(parse(text)), text);
}

TEST_F(MlirTest, AParseErrorIsOneMessageWithPositionAndCaret) {
  try {
    (void)parse("func.func @f() {\n  %x = arith.constant 1 : i32\n  return %y : i32\n}\n");
    FAIL() << "no error";
  } catch (const passline::mlir::MlirError& error) {
    const std::string message = error.what();
    EXPECT_TRUE(message.starts_with("test.mlir:3:10: error: use of undeclared SSA value name")) << message;
    EXPECT_NE(message.find("^"), std::string::npos) << message;
  }
}

TEST_F(MlirTest, ParsingLeavesTheContextsThreadingAsItFoundIt) {
  // The parser turns the context's threading off while it reads, as mlir-opt
  // does; the pool the caller gave the context is its own again after.
  passline::mlir::ThreadPool pool(2);
  mlir::MLIRContext threaded(passline::mlir::registry_of_dialects(), mlir::MLIRContext::Threading::DISABLED);
  threaded.setThreadPool(pool.llvm());
  (void)passline::mlir::parse(source, "test.mlir", threaded);
  EXPECT_TRUE(threaded.isMultithreadingEnabled());
  EXPECT_EQ(&threaded.getThreadPool(), &pool.llvm());
  EXPECT_THROW((void)passline::mlir::parse("func.func @f() {", "test.mlir", threaded), passline::mlir::MlirError);
  EXPECT_TRUE(threaded.isMultithreadingEnabled());
  context.disableMultithreading();
  (void)parse();
  EXPECT_FALSE(context.isMultithreadingEnabled());
}

/// MLIR text read whole by MLIR's parser (threading off), or by
/// passline::mlir::read in a context with two threads: the diagnostics, and
/// the module printed plainly and with its locations, by MLIR's printer or,
/// on the threads, by passline::mlir::write.
std::tuple<std::string, std::string, std::string> read_and_write(const std::string& text, bool on_threads) {
  static passline::mlir::ThreadPool pool(2);
  mlir::MLIRContext context(passline::mlir::registry_of_dialects(), mlir::MLIRContext::Threading::DISABLED);
  context.allowUnregisteredDialects();
  if (on_threads) context.setThreadPool(pool.llvm());
  auto sources = std::make_shared<llvm::SourceMgr>();
  sources->AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "in.mlir"), llvm::SMLoc());
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  const mlir::SourceMgrDiagnosticHandler handler(*sources, &context, os);
  const mlir::ParserConfig config(&context);
  const mlir::OwningOpRef<mlir::Operation*> op =
      on_threads ? passline::mlir::read(sources, config) : mlir::parseSourceFileForTool(sources, config, true);
  std::string plain;
  std::string located;
  if (op) {
    llvm::raw_string_ostream plain_os(plain);
    llvm::raw_string_ostream located_os(located);
    const mlir::OpPrintingFlags with_locations = mlir::OpPrintingFlags().enableDebugInfo();
    if (on_threads) {
      passline::mlir::write(op.get(), plain_os);
      passline::mlir::write(op.get(), located_os, with_locations);
    } else {
      mlir::AsmState state(op.get());
      op.get()->print(plain_os, state);
      mlir::AsmState located_state(op.get(), with_locations);
      op.get()->print(located_os, located_state);
    }
  }
  return {diagnostics, plain, located};
}

TEST_F(MlirTest, TextReadAndWrittenOnTheContextsThreadsIsWhatMlirReadsAndWritesWhole) {
  const std::string functions = R"(#map = affine_map<(d0) -> (d0 + 1)>
!pair = tuple<i32, i32>
func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32 loc(#named)
  return %0 : i32
}
func.func private @decl(!pair)
  // a comment between operations
func.func @g(%i: index) -> index {
  %0 = affine.apply #map(%i)
  cf.br ^bb1
^bb1:
  return %0 : index
}
#named = loc("named")
)";
  const std::string module = R"(module @m attributes {test.value = "{"} {
  func.func @f() {
    "test.op"() ({
      "test.inner"() : () -> ()
    }) : () -> ()
    return
  }
  func.func @g() -> i64 { %c = arith.constant 7 : i64
    return %c : i64 } func.func @h() { return }
}
)";
  const std::string plain_only = "func.func @f() {\n  return\n}\nfunc.func @g() {\n  return\n}\n";
  const std::string error = functions + "func.func @h() {\n  return %nothing : i32\n}\n";
  const std::string unused_alias_error = plain_only + "#broken = loc(callsite(#a at))\n";
  // An alias that only printing finds: DLTI's entry prints its value, but
  // does not give it to MLIR's walk of sub-elements.
  const std::string printed_alias =
      "\"test.op\"() {test.entry = #dlti.dl_entry<\"test.id\", affine_map<(d0) -> (d0)>>} : () -> ()\n" + plain_only;
  // Aliases that several functions share and some alone use, in order of
  // depth (nested locations), and a block argument's location, defined above
  // the module: each function's names renumbered for the whole.
  const std::string aliased = R"(#a = loc("a.mlir":1:1)
#b = loc("b.mlir":2:2)
func.func @f(%i: index loc("arg.mlir":3:3)) -> index {
  %0 = affine.apply affine_map<(d0) -> (d0 + 1)>(%i) loc(callsite(#a at #b))
  return %0 : index loc(fused[#a, #b])
}
func.func @g(%i: index) -> index {
  %0 = affine.apply affine_map<(d0) -> (d0 * 2)>(%i) loc("named"(#b))
  %1 = affine.apply affine_map<(d0) -> (d0 + 1)>(%0) loc(#a)
  return %1 : index loc(callsite("named"(#b) at callsite(#a at #b)))
}
func.func @h(%m: memref<4xf32, affine_map<(d0) -> (d0 + 3)>>) {
  return loc(unknown)
}
)";
  // An alias defined inside a module's body, where MLIR's parser wants an
  // operation (on a line of its own, or after an operation on its line): the
  // split must not read it as a share's own alias.
  const std::string alias_in_body = "module {\n  func.func @f() {\n    return\n  }\n  func.func @g() {\n    return\n  }\n!t = i32}\n";
  const std::string alias_after_operation =
      "module {\n  func.func @f() {\n    return\n  }#l = loc(\"f.mlir\":1:1)\n  func.func @g() {\n    return\n  }\n}\n";
  // The same, as MLIR's lexer reads an alias's name (digits alone, or
  // starting with `_$.-`) and what it skips before the `=` (a NUL, a line
  // break, a comment).
  using namespace std::string_literals;
  const std::string functions_around = "module {\n  func.func @f() {\n    return\n  }";
  const std::string after_them = " = loc(\"f.mlir\":1:1)\n  func.func @g() {\n    return\n  }\n}\n";
  const std::string number_alias_after_operation = functions_around + "#0" + after_them;
  const std::string dash_alias_after_operation = functions_around + "#-l" + after_them;
  const std::string nul_before_equals = functions_around + "#l\0"s + after_them;
  const std::string comment_before_equals = functions_around + "#l // the alias\n" + after_them;
  // Aliases named as MLIR's lexer allows, defined above the functions that
  // use them.
  const std::string odd_alias_names =
      "#0 = loc(\"a.mlir\":1:1)\n#-a = loc(\"b.mlir\":2:2)\n"
      "func.func @f() {\n  return loc(#0)\n}\nfunc.func @g() {\n  return loc(#-a)\n}\n";
  // Distinct attributes, numbered in the order the printer meets them in
  // the whole.
  const std::string distinct =
      "func.func @f() attributes {a = distinct[0]<42 : i32>} {\n  return\n}\n"
      "func.func @g() attributes {a = distinct[1]<43 : i32>} {\n  return\n}\n";
  for (const std::string& text :
       {functions, module, plain_only, error, unused_alias_error, printed_alias, aliased, alias_in_body,
        alias_after_operation, number_alias_after_operation, dash_alias_after_operation, nul_before_equals,
        comment_before_equals, odd_alias_names, distinct}) {
    const auto whole = read_and_write(text, false);
    const auto shares = read_and_write(text, true);
    EXPECT_EQ(std::get<0>(shares), std::get<0>(whole)) << text;
    EXPECT_EQ(std::get<1>(shares), std::get<1>(whole)) << text;
    EXPECT_EQ(std::get<2>(shares), std::get<2>(whole)) << text;
  }
  EXPECT_NE(std::get<2>(read_and_write(functions, true)).find("loc(\"in.mlir\":10:8)"), std::string::npos);
  EXPECT_NE(std::get<0>(read_and_write(error, true)).find("in.mlir:17:10: error: use of undeclared SSA value name"),
            std::string::npos);
}

TEST_F(MlirTest, FingerprintTellsChange) {
  Module module = parse();
  const std::uint64_t before = passline::mlir::fingerprint(module);
  EXPECT_EQ(passline::mlir::fingerprint(module), before);
  module.op()->setAttr("mark", mlir::UnitAttr::get(&context));
  EXPECT_NE(passline::mlir::fingerprint(module), before);
}

TEST_F(MlirTest, FunctionsAreTheSymbolsIsolatedFromAbove) {
  const Module module = parse();
  using Traits = passline::IRTraits<Module>;
  ASSERT_EQ(Traits::function_count(module), 2U);
  EXPECT_EQ(Traits::function_name(Traits::function(module, 0)), "f");
  EXPECT_EQ(Traits::function_name(Traits::function(module, 1)), "g");
}

TEST_F(MlirTest, AFunctionPassThatHandsBackAnotherOperationPutsItInPlace) {
  // A pass that builds a new function (a clone, marked) instead of changing its own.
  const passline::Pass<Module> replace = passline::function_pass<Module>(
      passline::PassInfo{.name = "Replace"}, [](mlir::Operation* function, const Module&, passline::PassContext&) {
        mlir::Operation* made = function->clone();
        made->setAttr("made", mlir::UnitAttr::get(made->getContext()));
        return made;
      });
  const Module out = passline::sequential<Module>({replace, replace})(parse());
  using Traits = passline::IRTraits<Module>;
  ASSERT_EQ(Traits::function_count(out), 2U);
  EXPECT_EQ(Traits::function_name(Traits::function(out, 0)), "f");
  EXPECT_EQ(Traits::function_name(Traits::function(out, 1)), "g");
  for (mlir::Operation* function : out.functions()) EXPECT_TRUE(function->hasAttr("made"));
  passline::mlir::verify(out);
}

TEST_F(MlirTest, AFunctionPassRunsOnTheFunctionsAModulePassLeft) {
  passline::PassContext ctx;
  ctx.config.set(passline::config::threads, std::int64_t{1});
  const Module out = passline::Sequential<MarkFunctions, ReshapeFunctions, MarkFunctions>{}(parse(), ctx);
  std::vector<std::string> marked;
  for (auto function : out.op().getOps<mlir::func::FuncOp>()) {
    if (function->hasAttr("visited")) marked.emplace_back(function.getName());
  }
  EXPECT_EQ(marked, (std::vector<std::string>{"f", "h", "k"}));  // @g is gone; @h and @k, added, were visited
  passline::mlir::verify(out);
}

TEST_F(MlirTest, AFunctionMarkedSkipOptimizationIsLeftAlone) {
  Module module = parse();
  (*module.op().getOps<mlir::func::FuncOp>().begin())
      ->setAttr("passline.skip_optimization", mlir::UnitAttr::get(&context));
  const Module out = passline::Sequential<MarkFunctions>{}(std::move(module));
  std::vector<std::string> marked;
  for (auto function : out.op().getOps<mlir::func::FuncOp>()) {
    if (function->hasAttr("visited")) marked.emplace_back(function.getName());
  }
  EXPECT_EQ(marked, std::vector<std::string>{"g"});
}

TEST_F(MlirTest, FunctionPassesOnThreadsAreRefusedWhereTheContextsThreadingIsOff) {
  // MLIR's uniquers lock only with the context's threading on: a function
  // pass of MLIR's or of passline's, on two threads, is refused before any
  // function runs; on one thread it runs.
  mlir::MLIRContext single(passline::mlir::registry_of_dialects(), mlir::MLIRContext::Threading::DISABLED);
  const Module module = passline::mlir::parse(source, "test.mlir", single);
  const std::string before = passline::mlir::print(module);
  passline::PassContext ctx;
  ctx.config.set(passline::config::threads, std::int64_t{2});
  for (const passline::Pass<Module>& pass :
       {passline::mlir::pass_on_functions("cse"), passline::Pass<Module>(MarkFunctions{})}) {
    try {
      (void)pass(module, ctx);
      FAIL() << "function passes ran on two threads in a context without threading";
    } catch (const passline::PassError& error) {
      EXPECT_NE(std::string(error.what()).find("function passes would run on 2 threads in an MLIR context whose threading is off"),
                std::string::npos)
          << error.what();
    }
    EXPECT_EQ(passline::mlir::print(module), before);
  }
  ctx.config.set(passline::config::threads, std::int64_t{1});
  EXPECT_NE(passline::mlir::print(passline::Pass<Module>(MarkFunctions{})(module, ctx)).find("visited"),
            std::string::npos);
}

// -- MLIR's passes ------------------------------------------------------------------

TEST_F(MlirTest, MlirsPassesVerifyWhatTheyMadeUnlessConfiguredNotTo) {
  static const mlir::PassRegistration<MlirBreakTerminator> registered;
  const passline::Pass<Module> pipeline = passline::mlir::parse_mlir_pipeline("builtin.module(func.func(test-break-terminator))");
  const Module module = parse();
  try {
    (void)pipeline(module);
    FAIL() << "a broken function verified";
  } catch (const passline::PassError& error) {
    EXPECT_EQ(error.pass(), "func.func(test-break-terminator)");  // a pipeline MLIR nests is one pass
    EXPECT_NE(std::string(error.what()).find("test.mlir:5:8: error: block with no terminator"), std::string::npos) << error.what();
  }
  passline::PassContext ctx;
  ctx.config.set(passline::mlir::verify_passes, false);
  const Module broken = pipeline(module, ctx);
  EXPECT_THROW(passline::mlir::verify(broken), passline::mlir::MlirError);
}

TEST_F(MlirTest, AFunctionPassLoadsItsDialectsBeforeItsThreadsRun) {
  // convert-arith-to-llvm on each function, on four threads, each time in a
  // new context without the LLVM dialect: the runs of two functions once
  // loaded it into the shared context at the same moment (a SIGSEGV in about
  // one run in six). prepare() loads it first, on the calling thread.
  const passline::Pass<Module> convert = passline::mlir::pass_on_functions("convert-arith-to-llvm");
  std::string text;
  for (int i = 0; i < 16; ++i) {
    text += "func.func @f" + std::to_string(i) + "(%a: i32) -> i32 {\n  %0 = arith.addi %a, %a : i32\n  return %0 : i32\n}\n";
  }
  passline::PassContext ctx;
  ctx.config.set(passline::config::threads, std::int64_t{4});
  for (int round = 0; round < 40; ++round) {
    mlir::MLIRContext own(passline::mlir::registry_of_dialects());
    ASSERT_EQ(own.getLoadedDialect("llvm"), nullptr);
    const Module out = convert(passline::mlir::parse(text, "test.mlir", own), ctx);
    EXPECT_NE(own.getLoadedDialect("llvm"), nullptr);
    EXPECT_EQ(passline::mlir::print(out).find("arith.addi"), std::string::npos);
  }
}

TEST_F(MlirTest, APassAnchoredOnFunctionsNestedImplicitlyIsAFunctionPass) {
  // As mlir-opt's flag -test-break-terminator nests it: on each func.func,
  // each function one passline function-pass call, on one thread or two.
  static const mlir::PassRegistration<MlirBreakTerminator> registered;
  const passline::Pass<Module> pipeline = passline::mlir::from_pass_flags({{"test-break-terminator", ""}});
  ASSERT_EQ(pipeline.passes().size(), 1U);
  EXPECT_EQ(pipeline.passes()[0].info().name, "test-break-terminator");
  struct Functions final : passline::Instrument {
    std::atomic<int> seen = 0;
    bool wants_functions() const override { return true; }
    void before_function(const passline::PassInfo&, std::string_view) override { ++seen; }
  };
  for (const std::int64_t threads : {1, 2}) {
    passline::PassContext ctx;
    ctx.config.set(passline::config::threads, threads);
    ctx.config.set(passline::mlir::verify_passes, false);
    auto functions = std::make_shared<Functions>();
    ctx.instruments.push_back(functions);
    const Module out = pipeline(parse(), ctx);
    EXPECT_EQ(functions->seen.load(), 2) << threads << " threads";
    EXPECT_THROW(passline::mlir::verify(out), passline::mlir::MlirError);  // both terminators gone
  }
}

TEST_F(MlirTest, FunctionPassesOnManyFunctionsAndThreadsMatchOneThread) {
  // MLIR's passes run on each function on passline's threads, twice over:
  // the output must not depend on the number of threads.
  std::string text;
  for (int i = 0; i < 64; ++i) {
    text += "func.func @f" + std::to_string(i) +
            "(%a: i32) -> i32 {\n  %c0 = arith.constant 0 : i32\n  %x = arith.addi %a, %c0 : i32\n"
            "  %y = arith.addi %a, %c0 : i32\n  %z = arith.muli %x, %y : i32\n  return %z : i32\n}\n";
  }
  const passline::Pass<Module> pipeline =
      passline::mlir::parse_mlir_pipeline("builtin.module(func.func(cse,canonicalize))");
  auto run = [&](std::int64_t threads) {
    passline::PassContext ctx;
    ctx.config.set(passline::config::threads, threads);
    const Module module = parse(text);
    std::string printed = passline::mlir::print(pipeline(module, ctx));
    return printed + passline::mlir::print(pipeline(module, ctx));
  };
  const std::string one = run(1);
  context.enableMultithreading();
  EXPECT_EQ(run(2), one);
  EXPECT_EQ(one.find("arith.constant"), std::string::npos);  // x + 0 folded in every function
}

TEST_F(MlirTest, APipelineRunsOnTheModulesOfContextsMadeOneAfterAnother) {
  // The pass managers a run makes are kept by the module, not by the pass:
  // a pass made once serves a context made after the first one died, often
  // at its address, as it served the first.
  const passline::Pass<Module> pipeline =
      passline::mlir::parse_mlir_pipeline("builtin.module(func.func(canonicalize,cse),canonicalize)");
  const std::string expected = passline::mlir::print(pipeline(parse()));
  EXPECT_NE(expected, passline::mlir::print(parse()));
  for (int i = 0; i < 3; ++i) {
    mlir::MLIRContext own(passline::mlir::registry_of_dialects());
    Module module = passline::mlir::parse(source, "test.mlir", own);
    module = pipeline(std::move(module));
    EXPECT_EQ(passline::mlir::print(module), expected);
  }
}

TEST_F(MlirTest, MlirPassesByNameWithOptionsInPipelineText) {
  const passline::Pass<Module> pipeline =
      passline::parse_pipeline("canonicalize{max-iterations=3 top-down=false},cse", passline::mlir::registry());
  // Printed with the options that are not MLIR's defaults, as MLIR prints them.
  EXPECT_EQ(pipeline.text(), "canonicalize{max-iterations=3 top-down=false},cse");
  const Module out = pipeline(parse());
  EXPECT_LT(count_ops(out), count_ops(parse()));
}

TEST_F(MlirTest, AnMlirPassMadeWithOptionsPrintsThemAndReadsBack) {
  auto& registry = passline::mlir::registry();
  const passline::Pass<Module> made = passline::mlir::pass("canonicalize", "top-down=false max-iterations=10");
  EXPECT_EQ(made.text(), "canonicalize{top-down=false}");  // max-iterations=10 is the default
  EXPECT_EQ(passline::parse_pipeline(made.text(), registry).text(), made.text());
  EXPECT_EQ(passline::mlir::pass_on_functions("canonicalize", "max-iterations=2").text(), "canonicalize{max-iterations=2}");
  EXPECT_EQ(passline::mlir::pass("cse").text(), "cse");
}

TEST_F(MlirTest, OptionValuesGivenToTheRegistryAreWrittenAsMlirsPrinterWritesThem) {
  // A string with a space goes to MLIR's parser in braces, as MLIR prints it; the pass prints it so.
  const passline::Pass<Module> made = passline::mlir::registry().create(
      "composite-fixed-point-pass", {{"name", passline::Value(std::string("two words"))}, {"max-iterations", std::int64_t{3}}});
  EXPECT_EQ(made.text(), "composite-fixed-point-pass{max-iterations=3 name=\"two words\"}");
  EXPECT_EQ(passline::parse_pipeline(made.text(), passline::mlir::registry()).text(), made.text());
  // MLIR's own text for it reads as the same pass.
  EXPECT_EQ(passline::parse_pipeline("composite-fixed-point-pass{name={two words} max-iterations=3}",
                                     passline::mlir::registry()).text(), made.text());
}

TEST_F(MlirTest, MlirsOptionParserReadsTheOptionsOfItsPassesInPipelineText) {
  auto& registry = passline::mlir::registry();
  // MLIR's syntax, as --list-passes shows it: a bare boolean, lists, 1 for true.
  EXPECT_EQ(passline::parse_pipeline("canonicalize{test-convergence}", registry).text(), "canonicalize{test-convergence=true}");
  EXPECT_EQ(passline::parse_pipeline("canonicalize{max-iterations=10}", registry).text(), "canonicalize");
  const passline::Pass<Module> lists = passline::parse_pipeline("convert-to-llvm{filter-dialects=arith,func},cse", registry);
  EXPECT_EQ(lists.text(), "convert-to-llvm{filter-dialects=\"arith,func\"},cse");
  EXPECT_EQ(passline::parse_pipeline(lists.text(), registry).text(), lists.text());  // it reads back
  EXPECT_EQ(passline::parse_pipeline("affine-loop-normalize{promote-single-iter=1}", registry).text(),
            "affine-loop-normalize{promote-single-iter=true}");
  // What MLIR's parser refuses is an error at the braces, with MLIR's message.
  for (const auto& [text, column, message] :
       {std::tuple{"cse,canonicalize{max-iteration=3}", 17, "no such option max-iteration"},
        std::tuple{"canonicalize{top-down=3}", 13, "pass 'canonicalize': MLIR's option parser refused 'top-down=3'"},
        std::tuple{"canonicalize{max-iterations=(}", 13, "'{' at column 13 is never closed"}}) {
    try {
      (void)passline::parse_pipeline(text, registry);
      FAIL() << text << ": no error";
    } catch (const passline::PipelineSyntaxError& error) {
      EXPECT_EQ(error.column(), static_cast<std::size_t>(column)) << text;
      EXPECT_NE(std::string(error.what()).find(message), std::string::npos) << error.what();
      EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos) << error.what();
    }
  }
  EXPECT_THROW((void)passline::parse_pipeline("no-such-mlir-pass", registry), passline::PipelineError);
}

TEST_F(MlirTest, AStaticPipelineMixesMlirPassesAndOwnPasses) {
  using Pipeline = passline::Sequential<passline::mlir::MlirPass<"canonicalize">, CountOps,
                                        passline::mlir::MlirPass<"cse">, NeedsCse, MarkFunctions>;
  passline::PassContext ctx;
  const Module out = Pipeline{}(parse(), ctx);
  const auto counters = ctx.statistics->counters();
  ASSERT_EQ(counters.size(), 1U);
  EXPECT_EQ(counters[0].value, 9);  // canonicalize folded both x + 0 in @f
  for (mlir::Operation* function : out.functions()) EXPECT_TRUE(function->hasAttr("visited"));
  // cse, after canonicalize: @g's two adds are one.
  EXPECT_EQ(count_ops(out), 8U);
}

TEST_F(MlirTest, ARequirementIsFoundAmongMlirPasses) {
  // NeedsCse requires cse, which the registry finds among MLIR's passes.
  auto& registry = passline::mlir::registry();
  if (!registry.contains("NeedsCse")) registry.add<NeedsCse>();
  const passline::Pass<Module> pipeline = passline::parse_pipeline("NeedsCse", registry);
  passline::PassContext ctx;
  EXPECT_NE(passline::plan_text(pipeline.plan(ctx)).find("cse"), std::string::npos);
  EXPECT_EQ(count_ops(pipeline(parse())), 10U);  // cse merged one pair in each function
}

TEST_F(MlirTest, AFailingPassLeavesTheCallersModuleUnchanged) {
  const Module module = parse();
  const std::string before = passline::mlir::print(module);
  const passline::Pass<Module> pipeline = passline::sequential<Module>(
      {passline::mlir::pass("canonicalize"), passline::Pass<Module>(ChangeThenFail{})});
  EXPECT_THROW((void)pipeline(module), passline::PassError);
  EXPECT_EQ(passline::mlir::print(module), before);
}

TEST_F(MlirTest, AnMlirPassFailureIsAPassErrorWithMlirsDiagnostic) {
  const Module module = parse(R"(func.func @f(%a: i32) -> i32 {
  cf.br ^next(%a : i32)
^next(%z: i32):
  return %z : i32
}
)");
  const std::string before = passline::mlir::print(module);
  // remove-dead-values reports an error and goes on: the error is the run's.
  passline::PassContext ctx;
  std::vector<passline::Diagnostic> seen;
  ctx.diagnostics->set_handler([&](const passline::Diagnostic& d) { seen.push_back(d); });
  (void)passline::mlir::pass("remove-dead-values")(module, ctx);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen[0].location, "test.mlir:2:3");
  EXPECT_EQ(seen[0].severity, passline::Severity::error);
  EXPECT_EQ(seen[0].message, "cannot optimize an IR with non-function symbol ops, non-call symbol user ops or branch ops");
  // canonicalize that cannot converge in one round fails.
  const Module slow = parse(R"(func.func @f(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %x = arith.addi %a, %c0 : i32
  %y = arith.addi %x, %c0 : i32
  return %y : i32
}
)");
  const std::string slow_before = passline::mlir::print(slow);
  try {
    (void)passline::mlir::pass("canonicalize", "test-convergence=true max-iterations=1")(slow);
    FAIL() << "no error";
  } catch (const passline::PassError& error) {
    EXPECT_EQ(error.pass(), "canonicalize");
    EXPECT_NE(std::string(error.what()).find("failed without a diagnostic"), std::string::npos) << error.what();
  }
  EXPECT_EQ(passline::mlir::print(slow), slow_before);
  EXPECT_EQ(passline::mlir::print(module), before);
}

TEST_F(MlirTest, AFixedPointEndsByFingerprint) {
  std::atomic<int> rounds = 0;
  const passline::Pass<Module> counted = passline::module_pass<Module>(
      passline::PassInfo{.name = "Rounds"}, [&](Module module, passline::PassContext&) {
        ++rounds;
        return module;
      });
  const passline::Pass<Module> body = passline::sequential<Module>({counted, passline::mlir::pass("canonicalize")});
  (void)passline::fixed_point(body, 10)(parse());
  EXPECT_EQ(rounds, 2);  // the first round folds; the second changes nothing
}

TEST_F(MlirTest, MlirsPipelineTextRunsItsNestingOnPasslinesThreads) {
  const passline::Pass<Module> pipeline =
      passline::mlir::parse_mlir_pipeline("builtin.module(func.func(canonicalize,cse),symbol-dce)");
  // MLIR keeps the passes it nests to itself: func.func(...) is one pass.
  EXPECT_EQ(pipeline.passes().size(), 2U);
  std::string one;
  std::string two;
  {
    passline::PassContext ctx;
    ctx.config.set(passline::config::threads, std::int64_t{1});
    context.disableMultithreading();
    one = passline::mlir::print(pipeline(parse(), ctx));
  }
  {
    passline::PassContext ctx;
    ctx.config.set(passline::config::threads, std::int64_t{2});
    context.enableMultithreading();
    two = passline::mlir::print(pipeline(parse(), ctx));
  }
  EXPECT_EQ(one, two);
  EXPECT_EQ(one.find("@g"), std::string::npos);  // symbol-dce dropped the private @g
  EXPECT_THROW((void)passline::mlir::parse_mlir_pipeline("builtin.module(func.func(cse)"), passline::mlir::MlirError);
}

TEST_F(MlirTest, NestedPipelinesThatFollowEachOtherAreOnePassAsMlirMergesThem) {
  const passline::Pass<Module> pipeline = passline::mlir::parse_mlir_pipeline(
      "builtin.module(func.func(cse),func.func(canonicalize),symbol-dce,func.func(cse))");
  ASSERT_EQ(pipeline.passes().size(), 3U);
  EXPECT_TRUE(pipeline.passes()[0].info().name.starts_with("func.func(cse),func.func(canonicalize{"))
      << pipeline.passes()[0].info().name;
  EXPECT_EQ(pipeline.passes()[1].info().name, "symbol-dce");
  EXPECT_EQ(pipeline.passes()[2].info().name, "func.func(cse)");
}

TEST_F(MlirTest, MlirsInstrumentationSeesEachPassMlirNestsOnEachOperationInMlirsOrder) {
  // What MLIR's instrumentation sees: pass and operation, adaptors left out.
  struct Seen {
    std::mutex mutex;
    std::vector<std::string> runs;
  };
  struct Record final : mlir::PassInstrumentation {
    explicit Record(std::shared_ptr<Seen> seen) : seen(std::move(seen)) {}
    void runBeforePass(mlir::Pass* pass, mlir::Operation* op) override {
      if (pass->getArgument().empty()) return;
      auto symbol = op->getAttrOfType<mlir::StringAttr>(mlir::SymbolTable::getSymbolAttrName());
      const std::lock_guard lock(seen->mutex);
      seen->runs.push_back(pass->getArgument().str() + "@" + (symbol ? symbol.str() : op->getName().getStringRef().str()));
    }
    std::shared_ptr<Seen> seen;
  };
  auto seen = std::make_shared<Seen>();
  auto instrumentation = std::make_shared<passline::mlir::MlirInstrumentation>(
      [seen](mlir::PassManager& manager) { manager.addInstrumentation(std::make_unique<Record>(seen)); });
  context.disableMultithreading();
  const passline::Pass<Module> nested =
      passline::mlir::parse_mlir_pipeline("builtin.module(func.func(cse,canonicalize),symbol-dce)");
  Module module = parse();
  {
    passline::PassContext ctx;
    ctx.config.set(passline::config::threads, std::int64_t{1});
    ctx.instruments.push_back(instrumentation);
    module = nested(std::move(module), ctx);
  }
  // As MLIR runs a nested pipeline on one thread: every pass on one function, then the next function.
  EXPECT_EQ(seen->runs, (std::vector<std::string>{"cse@f", "canonicalize@f", "cse@g", "canonicalize@g",
                                                  "symbol-dce@builtin.module"}));
  // A pass of MLIR's on functions as a passline function pass, on two threads: each function.
  context.enableMultithreading();
  seen->runs.clear();
  const passline::Pass<Module> on_functions = passline::mlir::pass_on_functions("cse");
  {
    passline::PassContext ctx;
    ctx.config.set(passline::config::threads, std::int64_t{2});
    ctx.instruments.push_back(instrumentation);
    (void)on_functions(parse(), ctx);
  }
  std::ranges::sort(seen->runs);
  EXPECT_EQ(seen->runs, (std::vector<std::string>{"cse@f", "cse@g"}));
  // A later run on the same module without the instrument: the pass managers
  // the module kept from the instrumented run are not the ones it runs with.
  seen->runs.clear();
  {
    passline::PassContext ctx;
    ctx.config.set(passline::config::threads, std::int64_t{1});
    module = nested(std::move(module), ctx);
  }
  EXPECT_TRUE(seen->runs.empty());
}

// -- instruments ----------------------------------------------------------------------

TEST_F(MlirTest, EveryInstrumentWorksOnMlir) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / ("mlir-instruments-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string printed;
  std::string changed;
  auto to = [](std::string& out) { return [&out](std::string_view text) { out.append(text); }; };
  auto timing = std::make_shared<passline::TimePasses>();
  const auto timings = timing->timings();
  passline::PassContext ctx;
  ctx.instruments = {
      std::make_shared<passline::PrintIR>(passline::PrintIR::Options{.after = {"cse"}}, to(printed)),
      std::make_shared<passline::PrintChanged>(passline::PrintChanged::Mode::diff, to(changed)),
      std::make_shared<passline::DumpDir>(dir / "dumps", ".mlir"),
      std::make_shared<passline::VerifyEach>([](passline::IRView ir) {
        if (const auto* module = ir.get<Module>()) passline::mlir::verify(*module);
      }),
      std::make_shared<passline::Trace>(dir / "trace.json"),
      timing,
  };
  const passline::Pass<Module> pipeline =
      passline::parse_pipeline("canonicalize,CountOps,cse", passline::mlir::registry().contains("CountOps")
                                                                ? passline::mlir::registry()
                                                                : passline::mlir::registry().add<CountOps>());
  {
    auto scope = ctx.enter();
    (void)pipeline(parse(), ctx);
    scope.exit();
  }
  EXPECT_NE(printed.find("IR Dump After cse"), std::string::npos) << printed;
  EXPECT_NE(changed.find("-    %0 = arith.addi %arg0, %c0_i32 : i32"), std::string::npos) << changed;
  EXPECT_NE(changed.find("IR Dump After CountOps omitted because no change"), std::string::npos) << changed;
  EXPECT_TRUE(std::filesystem::exists(dir / "dumps" / "000-input.mlir"));
  EXPECT_TRUE(std::filesystem::exists(dir / "dumps" / "003-cse.mlir"));
  std::ifstream trace(dir / "trace.json");
  const std::string events((std::istreambuf_iterator<char>(trace)), {});
  EXPECT_NE(events.find("\"name\":\"canonicalize\""), std::string::npos) << events;
  EXPECT_NE(timings->report().find("canonicalize"), std::string::npos);

  // verify-each stops a pass that breaks the module, naming it.
  passline::PassContext verifying;
  verifying.instruments = {std::make_shared<passline::VerifyEach>([](passline::IRView ir) {
    if (const auto* module = ir.get<Module>()) passline::mlir::verify(*module);
  })};
  try {
    (void)passline::sequential<Module>({passline::Pass<Module>(BreakModule{})})(parse(), verifying);
    FAIL() << "no error";
  } catch (const passline::PipelineError& error) {
    EXPECT_NE(std::string(error.what()).find("broken after pass 'BreakModule'"), std::string::npos) << error.what();
  }

  // opt-bisect runs the optional passes up to its limit.
  std::string bisect;
  passline::PassContext bisecting;
  bisecting.instruments = {std::make_shared<passline::OptBisect>(1, to(bisect))};
  (void)passline::parse_pipeline("canonicalize,cse", passline::mlir::registry())(parse(), bisecting);
  EXPECT_NE(bisect.find("BISECT: running pass (1) canonicalize"), std::string::npos) << bisect;
  EXPECT_NE(bisect.find("BISECT: NOT running pass (2) cse"), std::string::npos) << bisect;

  // The reproducer keeps the failed pass's input: the module canonicalize handed on.
  passline::PassContext failing;
  auto reproducer = std::make_shared<passline::Reproducer>(dir / "repro.mlir", "");
  failing.instruments = {reproducer};
  {
    auto scope = failing.enter();
    EXPECT_THROW((void)passline::sequential<Module>(
                     {passline::mlir::pass("canonicalize"), passline::Pass<Module>(ChangeThenFail{})})(parse(), failing),
                 passline::PassError);
  }
  ASSERT_TRUE(reproducer->written()) << reproducer->error();
  std::ifstream repro(dir / "repro.mlir");
  const std::string kept((std::istreambuf_iterator<char>(repro)), {});
  EXPECT_NE(kept.find("ChangeThenFail"), std::string::npos) << kept;
  EXPECT_EQ(kept.find("changed"), std::string::npos) << kept;        // the input, not the half-changed module
  EXPECT_EQ(kept.find("%c0_i32"), std::string::npos) << kept;        // canonicalize's output
  std::filesystem::remove_all(dir);
}

}  // namespace
