// The built-in instruments on the reference IR and its passes, output and all.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <wordexp.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>
import passline;
import passline.support;
import passline.instruments;
import passline.ir;
import passline.ir.passes;
import passline.pipelines;
import passline.testing;

namespace {

/// An IR that counts its prints and its fingerprint walks; its print
/// fingerprints it too, as the reference IR's does.
struct Counts {
  int prints = 0;
  int walks = 0;
};
struct Counted {
  int value = 0;
  std::shared_ptr<Counts> counts = std::make_shared<Counts>();
  mutable std::optional<std::uint64_t> fingerprint = std::nullopt;
};

}  // namespace

template <>
struct passline::IRTraits<Counted> {
  static std::string print(const Counted& ir) {
    ++ir.counts->prints;
    ir.fingerprint = static_cast<std::uint64_t>(ir.value) + 1;
    return std::to_string(ir.value);
  }
  static std::uint64_t fingerprint(const Counted& ir) {
    if (!ir.fingerprint) {
      ++ir.counts->walks;
      ir.fingerprint = static_cast<std::uint64_t>(ir.value) + 1;
    }
    return *ir.fingerprint;
  }
  static std::optional<std::uint64_t> cached_fingerprint(const Counted& ir) { return ir.fingerprint; }
};

namespace {

namespace ir = passline::ir;

constexpr const char* program = "def @f(%x: i64) -> i64 {\n  let %a = mul(2, 3);\n  add(%x, %a)\n}\n";

/// Runs `pipeline` (pipeline text) on `program` under `instruments`; returns the output IR.
std::string run(std::string_view pipeline, std::vector<std::shared_ptr<passline::Instrument>> instruments) {
  passline::PassContext ctx;
  ctx.instruments = std::move(instruments);
  auto scope = ctx.enter();
  return ir::print(passline::parse_pipeline(pipeline, passline::pipelines::registry())(ir::parse(program), ctx));
}

/// An Output that appends to `text`.
passline::Output into(std::string& text) {
  return [&text](std::string_view s) { text += s; };
}

TEST(Instruments, PrintIRBeforeNamedPassesAndAfterAll) {
  std::string text;
  run("FoldConstant", {std::make_shared<passline::PrintIR>(
                          passline::PrintIR::Options{.before = {"FoldConstant"}, .after_all = true}, into(text))});
  EXPECT_EQ(text,
            "// *** IR Dump After InferType (required by FoldConstant) ***\n"
            "def @f(%x: i64) -> i64 {\n  let %a: i64 = mul(2, 3);\n  add(%x, %a)\n}\n"
            "// *** IR Dump Before FoldConstant ***\n"
            "def @f(%x: i64) -> i64 {\n  let %a: i64 = mul(2, 3);\n  add(%x, %a)\n}\n"
            "// *** IR Dump After FoldConstant ***\n"
            "def @f(%x: i64) -> i64 {\n  add(%x, 6)\n}\n");
}

TEST(Instruments, PrintIRAsAPassPrintsWhereItStandsAndChangesNothing) {
  testing::internal::CaptureStderr();
  const std::string out = run("InferType,PrintIR{header=typed},FoldConstant,PrintIR", {});
  const std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_EQ(printed,
            "// *** PrintIR: typed ***\n"
            "def @f(%x: i64) -> i64 {\n  let %a: i64 = mul(2, 3);\n  add(%x, %a)\n}\n"
            "// *** PrintIR ***\n"
            "def @f(%x: i64) -> i64 {\n  add(%x, 6)\n}\n");
  EXPECT_EQ(out, "def @f(%x: i64) -> i64 {\n  add(%x, 6)\n}\n");

  // A type with options like any pass: in a static pipeline, and back as text.
  testing::internal::CaptureStderr();
  const ir::Module typed = passline::Sequential<ir::InferType, passline::PrintIRPass>{}(ir::parse(program));
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "// *** PrintIR ***\ndef @f(%x: i64) -> i64 {\n  let %a: i64 = mul(2, 3);\n  add(%x, %a)\n}\n");
  EXPECT_EQ(passline::parse_pipeline("PrintIR{header=\"after fold\"}", passline::pipelines::registry()).text(),
            "PrintIR{header=\"after fold\"}");
}

TEST(Instruments, PrintChangedPrintsTheStartThenOnlyChanges) {
  std::string full;
  run("InferType,FoldConstant,DeadCodeElimination",
      {std::make_shared<passline::PrintChanged>(passline::PrintChanged::Mode::full, into(full))});
  EXPECT_EQ(full,
            "// *** IR Dump At Start ***\n"
            "def @f(%x: i64) -> i64 {\n  let %a = mul(2, 3);\n  add(%x, %a)\n}\n"
            "// *** IR Dump After InferType ***\n"
            "def @f(%x: i64) -> i64 {\n  let %a: i64 = mul(2, 3);\n  add(%x, %a)\n}\n"
            "// *** IR Dump After FoldConstant ***\n"
            "def @f(%x: i64) -> i64 {\n  add(%x, 6)\n}\n"
            "// *** IR Dump After DeadCodeElimination omitted because no change ***\n");

  std::string quiet;
  run("InferType,FoldConstant,DeadCodeElimination",
      {std::make_shared<passline::PrintChanged>(passline::PrintChanged::Mode::quiet, into(quiet))});
  EXPECT_EQ(quiet,
            "// *** IR Dump After InferType ***\n"
            "def @f(%x: i64) -> i64 {\n  let %a: i64 = mul(2, 3);\n  add(%x, %a)\n}\n"
            "// *** IR Dump After FoldConstant ***\n"
            "def @f(%x: i64) -> i64 {\n  add(%x, 6)\n}\n");
}

// Print-changed reads an unchanged IR's fingerprint where it is cached, and
// prints any other IR first, so that its print fingerprints it: one walk per
// change, where a fingerprint and then a print would take two.
TEST(Instruments, PrintChangedPrintsAnIRThatCanTellItIsNotFingerprintedFirst) {
  auto bump = passline::module_pass<Counted>(passline::PassInfo{.name = "Bump"}, [](Counted ir, passline::PassContext&) {
    ++ir.value;
    ir.fingerprint.reset();
    return ir;
  });
  auto keep = passline::module_pass<Counted>(passline::PassInfo{.name = "Keep"},
                                             [](Counted ir, passline::PassContext&) { return ir; });
  const passline::Pass<Counted> pipeline = passline::sequential<Counted>({bump, keep, keep, bump, keep});
  for (const auto mode : {passline::PrintChanged::Mode::full, passline::PrintChanged::Mode::quiet}) {
    std::string text;
    passline::PassContext ctx;
    ctx.instruments = {std::make_shared<passline::PrintChanged>(mode, into(text))};
    auto scope = ctx.enter();
    const Counted input;
    const Counted out = pipeline(input, ctx);
    EXPECT_EQ(out.value, 2);
    if (mode == passline::PrintChanged::Mode::full) {
      EXPECT_EQ(text,
                "// *** IR Dump At Start ***\n0\n"
                "// *** IR Dump After Bump ***\n1\n"
                "// *** IR Dump After Keep omitted because no change ***\n"
                "// *** IR Dump After Keep omitted because no change ***\n"
                "// *** IR Dump After Bump ***\n2\n"
                "// *** IR Dump After Keep omitted because no change ***\n");
      EXPECT_EQ(input.counts->prints, 3);  // the start, and each change
      EXPECT_EQ(input.counts->walks, 0);   // every fingerprint came with a print
    } else {
      EXPECT_EQ(text, "// *** IR Dump After Bump ***\n1\n// *** IR Dump After Bump ***\n2\n");
      EXPECT_EQ(input.counts->prints, 2);  // each change
      EXPECT_EQ(input.counts->walks, 1);   // the start, which quiet mode does not print
    }
  }
}

TEST(Instruments, PrintChangedDiffShowsWhatEachPassChangedFromTheLastPrint) {
  std::string diff;
  run("InferType,FoldConstant,DeadCodeElimination",
      {std::make_shared<passline::PrintChanged>(passline::PrintChanged::Mode::diff, into(diff))});
  EXPECT_EQ(diff,
            "// *** IR Dump At Start ***\n"
            "def @f(%x: i64) -> i64 {\n  let %a = mul(2, 3);\n  add(%x, %a)\n}\n"
            "// *** IR Dump After InferType ***\n"
            "--- input\n+++ InferType\n"
            "@@ -1,4 +1,4 @@\n"
            " def @f(%x: i64) -> i64 {\n-  let %a = mul(2, 3);\n+  let %a: i64 = mul(2, 3);\n   add(%x, %a)\n }\n"
            "// *** IR Dump After FoldConstant ***\n"
            "--- InferType\n+++ FoldConstant\n"
            "@@ -1,4 +1,3 @@\n"
            " def @f(%x: i64) -> i64 {\n-  let %a: i64 = mul(2, 3);\n-  add(%x, %a)\n+  add(%x, 6)\n }\n"
            "// *** IR Dump After DeadCodeElimination omitted because no change ***\n");
}

// Hunk headings name the line above the hunk that starts a definition, as
// git's do: `def @main(...)` in a module.
// A reproducer's replay line is shell words: what a shell, and shell_words
// as --run-reproducer reads it, split back to the words written.
TEST(Instruments, ShellWordsReadBackAsTheyWereWritten) {
  EXPECT_EQ(passline::support::shell_word("--opt-level=2"), "--opt-level=2");
  EXPECT_EQ(passline::support::shell_word("--passes=P{a=1}"), "'--passes=P{a=1}'");
  EXPECT_EQ(passline::support::shell_word("it's"), "'it'\\''s'");
  EXPECT_EQ(passline::support::shell_word("'"), "\\'");
  EXPECT_EQ(passline::support::shell_word(""), "''");
  const std::vector<std::string> words = {"--passes=P{label=\"it's a $HOME `x` \\ ;|&\"}", "", "plain", "'", "a\"b"};
  std::string line;
  for (const std::string& word : words) line += passline::support::shell_word(word) + " ";
  EXPECT_EQ(passline::support::shell_words(line), words) << line;
  // A shell reads the same words (wordexp(3) splits as one does).
  wordexp_t read{};
  ASSERT_EQ(::wordexp(line.c_str(), &read, WRDE_NOCMD), 0) << line;
  const std::vector<std::string> by_shell(read.we_wordv, read.we_wordv + read.we_wordc);
  ::wordfree(&read);
  EXPECT_EQ(by_shell, words) << line;
}

TEST(Instruments, ShellWordsAreReadWithoutExpandingAnything) {
  EXPECT_EQ(passline::support::shell_words(R"(a 'b c' "d \$ \" e" f\ g  h~)"),
            (std::vector<std::string>{"a", "b c", "d $ \" e", "f g", "h~"}));
  EXPECT_EQ(passline::support::shell_words("'$HOME' '`x`' '*'"), (std::vector<std::string>{"$HOME", "`x`", "*"}));
  for (const char* line : {"$HOME", "a`id`", "\"$(id)\"", "*.ir", "a;b", "a|b", "a&", "<in", ">out", "(a)", "~/x", "'open",
                           "\"open", "end\\"}) {
    EXPECT_THROW((void)passline::support::shell_words(line), passline::support::ShellWordsError) << line;
  }
  try {
    (void)passline::support::shell_words("--passes=O2 $HOME");
  } catch (const passline::support::ShellWordsError& error) {
    EXPECT_STREQ(error.what(), "column 13: '$' outside quotes would be read by a shell; quote it");
  }
}

TEST(Instruments, UnifiedDiffKeepsThreeLinesOfContextAndIsEmptyForEqualTexts) {
  EXPECT_EQ(passline::support::unified_diff("a\nb\n", "a\nb\n", "x", "y"), "");
  EXPECT_EQ(passline::support::unified_diff("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n", "old", "new"),
            "--- old\n+++ new\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
  EXPECT_EQ(passline::support::unified_diff("a\n", "a\nb", "old", "new", 0),
            "--- old\n+++ new\n@@ -1,0 +2 @@ a\n+b\n\\ No newline at end of file\n");
}

TEST(Instruments, PrintChangedSaysWhichPassRequiredAPrerequisite) {
  std::string text;
  run("FoldConstant", {std::make_shared<passline::PrintChanged>(passline::PrintChanged::Mode::full, into(text))});
  EXPECT_NE(text.find("// *** IR Dump After InferType (required by FoldConstant) ***\n"), std::string::npos) << text;
}

TEST(Instruments, TimePassesNestsPassesUnderTheirPipelineAndOutlivesTheContext) {
  auto time = std::make_shared<passline::TimePasses>();
  const std::shared_ptr<passline::PassTimings> timings = time->timings();
  run("O2", {time});
  time.reset();  // the instrument and its context are gone; the report stays
  ASSERT_EQ(timings->top().size(), 1u);
  const passline::PassTimings::Entry& o2 = timings->top()[0];
  EXPECT_EQ(o2.name, "O2");
  EXPECT_EQ(o2.count, 1u);
  std::vector<std::string> names;
  double under = 0;
  for (const auto& pass : o2.children) {
    names.push_back(pass.name);
    under += pass.wall;
    EXPECT_LE(pass.self(), pass.wall);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"InferType", "FoldConstant", "SimplifyExpr", "EliminateCommonSubexpr",
                                             "DeadCodeElimination"}));
  EXPECT_EQ(o2.find("SimplifyExpr")->count, 2u);  // O2 runs it twice
  EXPECT_LE(under, o2.wall);
  EXPECT_DOUBLE_EQ(timings->total(), o2.wall);
  const std::string report = timings->report();
  EXPECT_NE(report.find("Pass execution timing report"), std::string::npos);
  EXPECT_NE(report.find("  O2\n"), std::string::npos) << report;
  EXPECT_NE(report.find("       2    SimplifyExpr\n"), std::string::npos) << report;
}

TEST(Instruments, DumpDirWritesOneNumberedFilePerPass) {
  const passline::testing::TemporaryDirectory temporary;
  const std::filesystem::path dir = temporary / "dumps";
  const std::string out = run("O1", {std::make_shared<passline::DumpDir>(dir)});
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files.push_back(entry.path().filename().string());
  std::ranges::sort(files);
  EXPECT_EQ(files, (std::vector<std::string>{"000-input.ir", "001-InferType.ir", "002-SimplifyExpr.ir",
                                             "003-DeadCodeElimination.ir"}));
  auto read = [&](const char* name) {
    std::ifstream in(dir / name);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(read("000-input.ir"), program);
  EXPECT_EQ(read("003-DeadCodeElimination.ir"), out);
}

/// A pass that breaks the IR: it defines its first function a second time.
struct Duplicate {
  static constexpr passline::PassInfo info{.name = "Duplicate"};
  ir::Module operator()(ir::Module module, passline::PassContext&) const {
    module.functions.push_back(module.functions.front());
    return module;
  }
};

TEST(Instruments, VerifyEachStopsTheRunAtThePassThatBrokeTheIR) {
  auto log = std::make_shared<std::vector<std::string>>();
  const passline::Pass<ir::Module> pipeline = passline::sequential<ir::Module>(
      {ir::InferType{}, Duplicate{}, passline::module_pass<ir::Module>(passline::PassInfo{.name = "After"},
                                                                        [log](ir::Module m, passline::PassContext&) {
                                                                          log->push_back("After ran");
                                                                          return m;
                                                                        })});
  passline::PassContext ctx;
  ctx.instruments = {ir::verify_each()};
  auto scope = ctx.enter();
  try {
    (void)pipeline(ir::parse(program), ctx);
    FAIL() << "ran through";
  } catch (const passline::VerificationError& error) {
    EXPECT_EQ(error.pass(), "Duplicate");
    EXPECT_EQ(std::string(error.what()),
              "the IR is broken after pass 'Duplicate': <input>:1:1: error: function '@f' is defined twice\n"
              "def @f(%x: i64) -> i64 {\n"
              "^");
  }
  EXPECT_TRUE(log->empty());
}

TEST(Instruments, OptBisectRunsTheFirstNOptionalPasses) {
  std::string text;
  const std::string out = run("O2", {std::make_shared<passline::OptBisect>(1, into(text))});
  // InferType is not optional: it runs and is not counted.
  EXPECT_EQ(text,
            "BISECT: running pass (1) FoldConstant\n"
            "BISECT: NOT running pass (2) SimplifyExpr\n"
            "BISECT: NOT running pass (3) EliminateCommonSubexpr\n"
            "BISECT: NOT running pass (4) SimplifyExpr\n"
            "BISECT: NOT running pass (5) DeadCodeElimination\n");
  EXPECT_EQ(out, "def @f(%x: i64) -> i64 {\n  add(%x, 6)\n}\n");
}

struct Failing {
  static constexpr passline::PassInfo info{.name = "Failing"};
  ir::Module operator()(ir::Module, passline::PassContext&) const { throw std::runtime_error("failed"); }
};

/// Eight functions, so that function passes run them in parallel on two threads.
std::string eight_functions() {
  std::string text;
  for (int f = 0; f < 8; ++f) {
    text += "def @f" + std::to_string(f) + "(%x: i64) -> i64 {\n  let %a = mul(2, " + std::to_string(f) +
            ");\n  let %b = add(%x, 0);\n  add(%b, %a)\n}\n\n";
  }
  return text;
}

TEST(Instruments, OutputIsTheSameOnOneThreadOrTwo) {
  const std::string text = eight_functions();
  std::vector<std::string> statistics;
  auto output = [&](std::int64_t threads) {
    std::string out;
    passline::PassContext ctx;
    ctx.config.set(passline::config::threads, threads);
    ctx.instruments = {std::make_shared<passline::OptBisect>(3, into(out)),
                       std::make_shared<passline::PrintChanged>(passline::PrintChanged::Mode::full, into(out)),
                       std::make_shared<passline::PrintChanged>(passline::PrintChanged::Mode::diff, into(out)),
                       std::make_shared<passline::PrintIR>(passline::PrintIR::Options{.after = {"SimplifyExpr"}}, into(out))};
    auto scope = ctx.enter();
    out += ir::print(passline::parse_pipeline("O2", passline::pipelines::registry())(ir::parse(text), ctx));
    statistics.push_back(ctx.statistics->report());
    return out;
  };
  const std::string one = output(1);
  EXPECT_EQ(output(2), one);
  EXPECT_NE(one.find("BISECT: NOT running pass (4)"), std::string::npos) << one;
  EXPECT_EQ(statistics[0], statistics[1]);
}

TEST(Instruments, PassesCountWhatTheyDid) {
  passline::PassContext ctx;
  (void)passline::parse_pipeline("O2", passline::pipelines::registry())(
      ir::parse("def @f(%x: i64) -> i64 {\n  let %a = mul(2, 3);\n  let %b = add(%x, %a);\n"
                "  let %c = add(%x, %a);\n  let %dead = mul(%x, 9);\n  mul(%b, %c)\n}\n"),
      ctx);
  std::vector<std::string> counters;
  for (const auto& counter : ctx.statistics->counters()) {
    counters.push_back(counter.pass + ": " + counter.name + " = " + std::to_string(counter.value));
  }
  EXPECT_EQ(counters, (std::vector<std::string>{"DeadCodeElimination: lets dropped = 1",
                                                "EliminateCommonSubexpr: expressions reused = 1",
                                                "FoldConstant: expressions folded = 1"}));
  EXPECT_EQ(ctx.statistics->report(),
            "===-------------------------------------------------------------------------===\n"
            "                          ... Statistics Collected ...\n"
            "===-------------------------------------------------------------------------===\n\n"
            "       1 DeadCodeElimination      - lets dropped\n"
            "       1 EliminateCommonSubexpr   - expressions reused\n"
            "       1 FoldConstant             - expressions folded\n");
}

/// An instrument that looks at the input of a pass that failed.
struct FailureWatcher final : passline::Instrument {
  bool wants_failed_input() const override { return true; }
  void after_failed_pass(const passline::PassInfo&, passline::IRView ir, const passline::PassPlace&,
                         std::exception_ptr) override {
    seen = ir.print();
  }
  std::string seen;
};

TEST(Instruments, OnlyAnInstrumentThatWantsAFailedPassesInputKeepsACopy) {
  using Cleanup = passline::Sequential<ir::InferType, ir::FoldConstant, ir::DeadCodeElimination>;
  auto storage_kept = [](std::shared_ptr<passline::Instrument> instrument) {
    passline::PassContext ctx;
    ctx.instruments = {std::move(instrument)};
    ir::Module module = ir::parse(program);
    const ir::Node* storage = module.functions[0].body->nodes().data();
    module = Cleanup{}(std::move(module), ctx);
    return module.functions[0].body->nodes().data() == storage;
  };
  // The built-ins need no failed input: the passes own the IR and rewrite it in place.
  EXPECT_TRUE(storage_kept(std::make_shared<passline::TimePasses>()));
  EXPECT_TRUE(storage_kept(std::make_shared<passline::PrintChanged>(passline::PrintChanged::Mode::quiet,
                                                                    [](std::string_view) {})));
  // Neither does a user's instrument with the default settings.
  struct Quiet final : passline::Instrument {};
  EXPECT_TRUE(storage_kept(std::make_shared<Quiet>()));
  // One that asks gets the input of a failed pass, so every pass works on a copy.
  EXPECT_FALSE(storage_kept(std::make_shared<FailureWatcher>()));

  auto watcher = std::make_shared<FailureWatcher>();
  passline::PassContext ctx;
  ctx.instruments = {watcher};
  const passline::Sequential<Failing> failing;
  EXPECT_THROW((void)failing(ir::parse(program), ctx), passline::PassError);
  EXPECT_EQ(watcher->seen, program);
}

/// A pass with options that fails.
struct FailingWithOptions {
  static constexpr passline::PassInfo info{.name = "FailingWithOptions"};
  std::int64_t limit = 1;
  std::string label = "x";
  static constexpr auto options =
      passline::options(passline::option<&FailingWithOptions::limit>("limit", "a number"),
                        passline::option<&FailingWithOptions::label>("label", "a word"));
  ir::Module operator()(ir::Module, passline::PassContext&) const { throw std::runtime_error("failed"); }
};

TEST(Instruments, AReproducerWritesTheFailedPassWithItsOptions) {
  const passline::testing::TemporaryDirectory dir;
  const std::filesystem::path file = dir / "reproducer.ir";
  passline::PassContext ctx;
  ctx.instruments = {std::make_shared<passline::Reproducer>(file, "--opt-level=2")};
  const passline::Pass<ir::Module> pipeline = passline::sequential<ir::Module>(
      std::vector<passline::Pass<ir::Module>>{passline::Pass<ir::Module>(ir::InferType{}),
                                              passline::Pass<ir::Module>(FailingWithOptions{.limit = 3, .label = "a b"})});
  EXPECT_THROW((void)pipeline(ir::parse(program), ctx), passline::PassError);
  std::ifstream in(file);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "// passline-opt reproducer: '--passes=FailingWithOptions{limit=3 label=\"a b\"}' --opt-level=2");
  const std::string rest(std::istreambuf_iterator<char>(in), {});
  EXPECT_EQ(rest, "def @f(%x: i64) -> i64 {\n  let %a: i64 = mul(2, 3);\n  add(%x, %a)\n}\n");  // typed: after InferType
}

/// One complete event of a Chrome trace.
struct TraceEvent {
  std::string name;
  std::string category;
  double start;
  double end;
  std::int64_t thread;
};

/// The complete events of a trace, and the threads its tracks are named for.
std::pair<std::vector<TraceEvent>, std::vector<std::int64_t>> read_trace(const std::string& text) {
  const boost::json::object trace = boost::json::parse(text).as_object();
  std::vector<TraceEvent> events;
  std::vector<std::int64_t> named;
  for (const boost::json::value& value : trace.at("traceEvents").as_array()) {
    const boost::json::object& event = value.as_object();
    EXPECT_EQ(event.at("pid").as_int64(), 1);
    if (event.at("ph").as_string() == "M") {
      named.push_back(event.at("tid").to_number<std::int64_t>());
      continue;
    }
    EXPECT_EQ(event.at("ph").as_string(), "X");
    const double start = event.at("ts").to_number<double>();
    events.push_back({std::string(event.at("name").as_string()), std::string(event.at("cat").as_string()), start,
                      start + event.at("dur").to_number<double>(), event.at("tid").to_number<std::int64_t>()});
  }
  return {events, named};
}

TEST(Instruments, TraceHasEveryPassInItsPipelineAndEveryFunctionInItsPass) {
  auto traced = [](std::int64_t threads) {
    auto trace = std::make_shared<passline::Trace>();
    passline::PassContext ctx;
    ctx.config.set(passline::config::threads, threads);
    ctx.instruments = {trace};
    auto scope = ctx.enter();
    (void)passline::parse_pipeline("O2", passline::pipelines::registry())(ir::parse(eight_functions()), ctx);
    return read_trace(trace->json());
  };
  auto [one, named_one] = traced(1);
  auto [two, named_two] = traced(2);
  EXPECT_EQ(named_one, (std::vector<std::int64_t>{0}));

  // O2 holds every pass; each function pass holds one event per function, on a named track.
  const auto pipeline = std::ranges::find(one, "O2", &TraceEvent::name);
  ASSERT_NE(pipeline, one.end());
  std::size_t passes = 0;
  std::size_t functions = 0;
  for (const TraceEvent& event : one) {
    EXPECT_EQ(event.thread, 0);  // one thread: one track
    EXPECT_LE(pipeline->start, event.start) << event.name;
    EXPECT_LE(event.end, pipeline->end) << event.name;
    if (event.category == "pass") ++passes;
    if (event.category != "function") continue;
    ++functions;
    const std::string pass = event.name.substr(0, event.name.find(" on "));
    EXPECT_TRUE(std::ranges::any_of(one, [&](const TraceEvent& p) {
      return p.category == "pass" && p.name == pass && p.start <= event.start && event.end <= p.end;
    })) << event.name;
  }
  EXPECT_EQ(passes, 6u);
  EXPECT_EQ(functions % 8, 0u);
  EXPECT_GE(functions, 8u * 3);
  EXPECT_EQ(std::ranges::count(one, "FoldConstant on f5", &TraceEvent::name), 1);
  for (const TraceEvent& event : two) {
    EXPECT_NE(std::ranges::find(named_two, event.thread), named_two.end()) << event.name;
  }

  // The same events on one thread or two; only times and tracks differ.
  auto by_name = [](const TraceEvent& a, const TraceEvent& b) {
    return std::tie(a.category, a.name) < std::tie(b.category, b.name);
  };
  std::ranges::sort(one, by_name);
  std::ranges::sort(two, by_name);
  ASSERT_EQ(one.size(), two.size());
  for (std::size_t i = 0; i < one.size(); ++i) EXPECT_EQ(one[i].name, two[i].name);
}

TEST(Instruments, TraceGivesEachThreadThatRunsFunctionsATrackOfItsOwn) {
  passline::Trace trace;
  trace.enter_context();
  const passline::PassInfo fold{.name = "FoldConstant"};
  trace.before_pass(fold, {}, {});
  trace.before_function(fold, "f0");
  trace.after_function(fold, "f0");
  std::thread([&] {
    trace.before_function(fold, "f1");
    trace.after_function(fold, "f1");
  }).join();
  trace.after_pass(fold, {}, {});
  const auto [events, named] = read_trace(trace.json());
  EXPECT_EQ(named, (std::vector<std::int64_t>{0, 1}));
  std::vector<std::string> seen;
  for (const TraceEvent& event : events) seen.push_back(event.name + "@" + std::to_string(event.thread));
  std::ranges::sort(seen);
  EXPECT_EQ(seen, (std::vector<std::string>{"FoldConstant on f0@0", "FoldConstant on f1@1", "FoldConstant@0"}));
}

TEST(Instruments, ATraceThatCannotBeWrittenFailsBeforeAnyPassRuns) {
  passline::PassContext ctx;
  ctx.instruments = {std::make_shared<passline::Trace>("/nonexistent-directory/trace.json")};
  EXPECT_THROW(
      {
        try {
          auto scope = ctx.enter();
        } catch (const passline::support::FileError& error) {
          EXPECT_STREQ(error.what(), "cannot write '/nonexistent-directory/trace.json': No such file or directory");
          throw;
        }
      },
      std::runtime_error);
}

}  // namespace

namespace {

/// The page a Report writes of `pipeline` on `text`, with `options`; the
/// run's exception, if any, is swallowed (the page is what is tested).
std::string report_of(std::string_view pipeline, std::string_view text, passline::Report::Options options = {}) {
  const passline::testing::TemporaryDirectory dir;
  auto report = std::make_shared<passline::Report>(dir / "report.html", std::move(options));
  {
    passline::PassContext ctx;
    ctx.instruments = {report};
    auto scope = ctx.enter();
    try {
      (void)passline::parse_pipeline(pipeline, passline::pipelines::registry())(ir::parse(std::string(text)), ctx);
    } catch (const passline::PassError&) {
    }
  }
  std::ifstream in(dir / "report.html");
  const std::string written(std::istreambuf_iterator<char>(in), {});
  EXPECT_EQ(written, report->html());
  return written;
}

}  // namespace

TEST(Instruments, AReportShowsThePlanEachPassAndTheDiffOfTheFunctionsItChanged) {
  const std::string page = report_of("FoldConstant,DeadCodeElimination",
                                     std::string(program) + "def @g(%y: i64) -> i64 {\n  %y\n}\n");
  EXPECT_NE(page.find("<pre>InferType  (required by FoldConstant)\nFoldConstant\nDeadCodeElimination\n</pre>"),
            std::string::npos);
  EXPECT_NE(page.find("<summary>2. FoldConstant: 1 function changed</summary>"), std::string::npos);
  EXPECT_NE(page.find("--- before: f\n+++ after: f\n"), std::string::npos);  // @g did not change: no diff of it
  EXPECT_EQ(page.find("--- before: g"), std::string::npos);
  EXPECT_NE(page.find("<p id=\"summary\">3 passes ran; 2 changed the IR. The run succeeded.</p>"), std::string::npos);
}

TEST(Instruments, AReportCutsLargeTextsWithANoteAndNamesAFailure) {
  std::string text;
  for (int i = 0; i < 20; ++i) text += "def @f" + std::to_string(i) + "(%x: i64) -> i64 {\n  add(%x, mul(2, 3))\n}\n";
  const std::string page = report_of("FoldConstant", text, {.diff_limit = 200, .ir_limit = 300});
  EXPECT_NE(page.find("more changed functions, not shown (the whole diff: --print-changed=diff)"), std::string::npos);
  EXPECT_NE(page.find("more lines not shown (the whole IR: --print-before-all)"), std::string::npos);

  const std::string failed = report_of("FoldConstant", "def @f(%x: i64) -> i64 {\n  add(%x, true)\n}\n",
                                       {.tool = "passline-opt", .settings = "--opt-level=2"});
  EXPECT_NE(failed.find("<body data-failed=\"0\">"), std::string::npos);
  EXPECT_NE(failed.find("<strong id=\"failed-pass\">InferType</strong>"), std::string::npos);
  EXPECT_NE(failed.find("// passline-opt reproducer: --passes=InferType --opt-level=2\n"), std::string::npos);
  EXPECT_NE(failed.find(":2:3: error: 'add' needs operands of one type, not i64 and bool</span>"), std::string::npos);
}
