// passline-opt: reads IR, runs a pipeline over it, writes IR (like `opt`, `mlir-opt`).
//
// Every failure is one clear message on stderr and exit code 1: unreadable
// input, malformed IR or pipeline text (with a caret), a pass that fails. The
// output file is written whole or not at all: the IR goes to a temporary file
// beside it, renamed into place only when everything succeeded.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <malloc.h>
#include <exception>
#include <memory>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include <unistd.h>
import passline;
import passline.support;
import passline.instruments;
import passline.ir;
import passline.ir.passes;
import passline.ir.reduce;
import passline.reduce;
import passline.pipelines;
import passline.driver;

namespace {

using passline::driver::Failure;

/// How passline-opt's help speaks of the reference IR.
constexpr passline::driver::IRWords ir_words{
    .extension = ".ir", .print_before = "CSE,DCE", .print_after = "FoldConstant", .unit = "IR"};

/// passline-opt's flags: every driver's, and its own.
struct Options : passline::driver::RunFlags {
  std::optional<int> level_flag;  // -O<N>, unless --passes is given
  bool verify_preserved = false;
  bool stats = false;
};

/// The instruments the flags ask for (passline::driver::instruments), with
/// the reference IR's checks: verify-each, then verify-preserved.
std::vector<std::shared_ptr<passline::Instrument>> instruments(const Options& o,
                                                               std::shared_ptr<passline::PassTimings>& timings) {
  std::vector<std::shared_ptr<passline::Instrument>> checks;
  if (o.instruments.verify_each) checks.push_back(passline::ir::verify_each());
  if (o.verify_preserved) {
    checks.push_back(std::make_shared<passline::VerifyPreserved<passline::ir::Module>>(&passline::pipelines::registry()));
  }
  return passline::driver::instruments(o.instruments, ir_words, std::move(checks), timings);
}

/// The input module: a reproducer's text, read already; a file (mapped,
/// see ir::Source::open); or stdin.
passline::ir::Module read_input(const Options& options, std::size_t threads) {
  if (options.reproducer_text) return passline::ir::parse(*options.reproducer_text, options.input, threads);
  if (options.input != "-") return passline::ir::parse_file(options.input, options.input, threads);
  return passline::ir::parse(passline::driver::read_all(STDIN_FILENO, "standard input"), "<stdin>", threads);
}

/// Writes `module` to `output` whole (see passline::OutputFile), a chunk at a time.
void write_output(passline::support::OutputFile& output, const passline::ir::Module& module, std::size_t threads) {
  passline::ir::print_to(module, [&](std::string_view chunk) { output.write(chunk); }, threads);
  output.commit();
}

int report(std::exception_ptr failure) {
  return passline::driver::report<passline::ir::IRError>(std::move(failure), "passline-opt");
}

int run(const Options& options) {
  passline::driver::DriverSteps<passline::ir::Module> steps{.registry = passline::pipelines::registry()};
  steps.check_flags = [&]() -> std::optional<int> {
    if (options.passes && options.level_flag) throw Failure{"give either --passes or -O<level>, not both"};
    return std::nullopt;
  };
  steps.pipeline = [&] {
    return passline::parse_pipeline(options.passes.value_or(fmt::format("O{}", options.level_flag.value_or(2))),
                                    passline::pipelines::registry());
  };
  // -O<N> runs at level N. Passes named in --passes run whatever their level
  // (as `opt -passes=` does): the level is the highest unless given.
  steps.opt_level = options.passes ? passline::driver::max_opt_level : options.level_flag.value_or(2);
  steps.say_skipped = options.passes.has_value();
  steps.instruments = [&](std::shared_ptr<passline::PassTimings>& timings) { return instruments(options, timings); };
  steps.statistics = [&] { return options.stats; };
  steps.process = [&](const passline::Pass<passline::ir::Module>& pipeline, passline::driver::Session& run) {
    passline::support::OutputFile& output = *run.output;
    const std::size_t threads = run.ctx.threads();  // for every phase
    passline::ir::Module module =
        passline::driver::timed(run.timings, "Parse input", [&] { return read_input(options, threads); });
    if (!options.no_verify) {
      passline::driver::timed(run.timings, "Verify input", [&] { passline::ir::verify(module, threads); });
    }
    if (const int code = passline::driver::run_pipeline<passline::ir::IRError>(pipeline, module, run.ctx, run.instruments,
                                                                             "passline-opt")) {
      return code;
    }
    if (!options.no_verify) {
      passline::driver::timed(run.timings, "Verify output", [&] { passline::ir::verify(module, threads); });
    }
    if (run.instruments.graph) {
      output.write(run.instruments.graph->dot());
      output.commit();
      return 0;
    }
    passline::driver::timed(run.timings, "Print output", [&] { write_output(output, module, threads); });
    return 0;
  };
  steps.expand_pipeline = [](const std::string& text, const passline::PassContext& ctx) {
    // The required passes too, so that one may stay where its user goes;
    // where one goes and its user stays, planning puts it back.
    return passline::reduce::planned_passes(passline::parse_pipeline(text, passline::pipelines::registry()), ctx);
  };
  steps.pipeline_args = [](const std::string& pipeline) { return std::vector<std::string>{"--passes=" + pipeline}; };
  steps.parse = [](const std::string& text, const std::string& name) { return passline::ir::parse(text, name); };
  return passline::driver::drive(options, "passline-opt", steps);
}

}  // namespace

/// The flags that say what a run does to the IR: the only flags a
/// reproducer's replay line may give (it must not write files).
void add_pipeline_flags(CLI::App& app, Options& options) {
  app.add_option("--passes", options.passes,
                 "pipeline text, e.g. 'InferType,FoldConstant' or 'O2' (see --list-passes); --passes= runs no pass");
  app.add_option("-O", options.level_flag, "run the standard pipeline O<N> at opt level N: -O0, -O1, -O2 (the default), -O3")
      ->check(CLI::Range(0, 3));
  passline::driver::add_context_flags(app, options.context, "the -O level, else 2",
                                      "every phase: parsing, function passes, printing", "FoldConstant,Inline");
}

int main(int argc, char** argv) {
#ifdef __GLIBC__
  // Large buffers (a pass's tables, a body's nodes) come from and go back to
  // the system as they are freed, instead of staying in the heap for good:
  // the next pass needs its memory only while it runs.
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
  passline::driver::reserve_standard_streams();
  passline::support::OutputFile::remove_temporaries_on_signals();
  passline::ir::map_input_files();
  CLI::App app("passline-opt: runs a pipeline of passes over reference IR.\n\n"
               "Examples:\n"
               "  passline-opt examples/ir/arith.ir -O2\n"
               "  passline-opt in.ir --passes='InferType,FoldConstant' -o out.ir\n"
               "  cat in.ir | passline-opt - --passes=O2 --disable-pass=FoldConstant\n"
               "  passline-opt in.ir -O2 --print-changed --time-passes -o out.ir\n",
               "passline-opt");
  Options options;
  const auto add_pipeline = [&options](CLI::App& app) { add_pipeline_flags(app, options); };
  passline::driver::add_run_flags(
      app, options, ir_words,
      {.input = "IR file to read; '-' reads stdin (the default)",
       .output = "where to write the IR; '-' is stdout (the default). Written whole or not at all",
       .list_passes = "list the passes and pipelines with their levels, requirements and options",
       .print_pipeline = "print the pipeline as canonical text and exit; =expanded prints the passes it would run "
                         "under the given flags, one per line, with the required passes it inserts and why, e.g. "
                         "-O2 --print-pipeline=expanded",
       .no_verify = "do not verify the IR before and after the pipeline",
       .run_reproducer = "replay a file written by --reproducer: its IR through the pass that failed, e.g. "
                         "--run-reproducer crash.ir"},
      add_pipeline, [&options](CLI::App& app) {
        app.add_flag("--verify-preserved", options.verify_preserved,
                     "after every pass that changed the IR, check the analyses and passes it claims to preserve "
                     "against a fresh computation; a false claim stops the run naming the pass")
            ->group("Debugging");
        app.add_flag("--stats", options.stats,
                     "print the counters passes keep (constants folded, lets dropped...) at the end")
            ->group("Debugging");
      });
  if (const std::optional<int> code = passline::driver::parse_command_line(
          app, options, argc, argv, "passline-opt", add_pipeline, [&options] { return options.level_flag.has_value(); })) {
    return *code;
  }
  try {
    return run(options);
  } catch (...) {
    return report(std::current_exception());
  }
}
