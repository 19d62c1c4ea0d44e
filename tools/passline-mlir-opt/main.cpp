// passline-mlir-opt: reads MLIR, runs a pipeline of MLIR's passes (and
// passline's) over it under passline's pass manager, writes MLIR.
//
// The pipeline is MLIR's textual pipeline (`builtin.module(func.func(cse))`)
// or passline's pipeline text over MLIR's pass names (`canonicalize,cse`).
// Every failure is one clear message on stderr and exit code 1; the output
// is written whole or not at all, as passline-opt's.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include <mlir/IR/MLIRContext.h>

import passline;
import passline.support;
import passline.instruments;
import passline.mlir;
import passline.driver;

namespace {

/// How passline-mlir-opt's help speaks of MLIR.
constexpr passline::driver::IRWords mlir_words{
    .extension = ".mlir", .print_before = "cse", .print_after = "canonicalize", .unit = "module"};

/// passline-mlir-opt's flags: every driver's.
using Options = passline::driver::RunFlags;

/// The flags that say what a run does to the IR: the only flags a
/// reproducer's replay line may give (it must not write files).
void add_pipeline_flags(CLI::App& app, Options& options) {
  app.add_option("--passes", options.passes,
                 "the pipeline: MLIR's textual pipeline, 'builtin.module(func.func(canonicalize,cse))', or "
                 "passline's pipeline text over MLIR's pass names, 'canonicalize,cse', any pass --list-passes lists, "
                 "with its options in braces ('canonicalize{max-iterations=3}'); none, or --passes=, runs no pass");
  passline::driver::add_context_flags(app, options.context, "3: every pass named runs",
                                      "function passes (passes nested on func.func) and MLIR's own parallel work",
                                      "cse,canonicalize");
}

/// The instruments the flags ask for (passline::driver::instruments), with
/// MLIR's verifier for --verify-each.
std::vector<std::shared_ptr<passline::Instrument>> instruments(const Options& o,
                                                               std::shared_ptr<passline::PassTimings>& timings) {
  std::vector<std::shared_ptr<passline::Instrument>> checks;
  if (o.instruments.verify_each) {
    checks.push_back(std::make_shared<passline::VerifyEach>([](passline::IRView ir) {
      if (const auto* module = ir.get<passline::mlir::Module>()) passline::mlir::verify(*module);
    }));
  }
  return passline::driver::instruments(o.instruments, mlir_words, std::move(checks), timings);
}

/// `object`, which is never destroyed: the process's end takes it back at
/// once, as clang's -disable-free leaves its ASTs, where freeing a large
/// module operation by operation, then the context's uniqued types and
/// attributes, is work to no purpose. Kept reachable from a static, so that
/// leak checkers do not count it.
template <class T>
T& left_at_exit(std::unique_ptr<T> object) {
  static auto* const kept = new std::vector<void*>;
  kept->push_back(object.get());
  return *object.release();
}

int report(std::exception_ptr failure) {
  return passline::driver::report<passline::mlir::MlirError>(std::move(failure), "passline-mlir-opt");
}

/// Reads the input: a reproducer's text, read already; a file; or stdin.
passline::mlir::Module read_input(const Options& options, mlir::MLIRContext& context) {
  if (options.reproducer_text) return passline::mlir::parse(*options.reproducer_text, options.input, context);
  if (options.input != "-") {
    ::close(passline::driver::open_to_read(options.input));  // a file that cannot be read: passline-opt's message
    return passline::mlir::parse_file(options.input, context);
  }
  return passline::mlir::parse(passline::driver::read_all(STDIN_FILENO, "standard input"), "<stdin>", context);
}

passline::Pass<passline::mlir::Module> pipeline_of(const std::string& text) {
  if (passline::mlir::is_mlir_pipeline(text)) return passline::mlir::parse_mlir_pipeline(text);
  return passline::parse_pipeline(text, passline::mlir::registry());
}

int run(const Options& options) {
  if (options.list_passes) {
    passline::driver::print_out(passline::driver::list_passes(passline::mlir::registry()));
    passline::mlir::print_registered_passes();
    return 0;
  }
  if (options.list_config) return passline::driver::print_out(passline::driver::list_config()), 0;
  const passline::Pass<passline::mlir::Module> pipeline = pipeline_of(options.passes.value_or(""));
  if (options.print_pipeline == "text") return passline::driver::print_out(pipeline.text() + "\n"), 0;
  passline::PassContext ctx;
  // Passes named in --passes run whatever their level (as mlir-opt's do):
  // the level is the highest unless given.
  passline::driver::set_gating(ctx, options.context, passline::driver::max_opt_level);
  if (options.print_pipeline == "expanded") return passline::driver::print_out(passline::plan_text(pipeline.plan(ctx))), 0;
  passline::driver::say_what_is_skipped(pipeline, ctx, "passline-mlir-opt");
  passline::driver::set_config(ctx, options.context);
  if (options.no_verify) ctx.config.set(passline::mlir::verify_passes, false);
  // What MLIR's passes emit, as passline-opt prints diagnostics; an error
  // fails the run even when its pass went on.
  passline::driver::print_diagnostics(ctx, "passline-mlir-opt");
  std::shared_ptr<passline::PassTimings> timings;
  ctx.instruments = instruments(options, timings);
  passline::support::OutputFile output(options.output);
  const passline::driver::RunInstruments run_instruments =
      passline::driver::add_run_instruments(ctx, options.instruments, options.context, "passline-mlir-opt");
  const passline::driver::EndOfRunReport end_report{timings};

  // One pool of threads, passline's (TBB's): function passes run there, and
  // MLIR's own parallel loops too. With one thread, the context locks nothing.
  passline::mlir::ThreadPool threads(ctx.threads());
  mlir::MLIRContext& context = left_at_exit(std::make_unique<mlir::MLIRContext>(
      passline::mlir::registry_of_dialects(), mlir::MLIRContext::Threading::DISABLED));
  if (ctx.threads() > 1) context.setThreadPool(threads.llvm());
  passline::mlir::Module& module = left_at_exit(std::make_unique<passline::mlir::Module>(
      passline::driver::timed(timings, "Parse input", [&] { return read_input(options, context); })));
  if (const int code = passline::driver::run_pipeline<passline::mlir::MlirError>(pipeline, module, ctx,
                                                                                run_instruments, "passline-mlir-opt")) {
    return code;
  }
  if (run_instruments.graph) {
    output.write(run_instruments.graph->dot());
  } else {
    passline::driver::timed(timings, "Print output", [&] {
      passline::mlir::print(module, [&output](std::string_view text) { output.write(text); });
    });
  }
  output.commit();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  passline::driver::reserve_standard_streams();
  passline::support::OutputFile::remove_temporaries_on_signals();
  CLI::App app("passline-mlir-opt: runs MLIR's passes over MLIR under passline's pass manager.\n\n"
               "Examples:\n"
               "  passline-mlir-opt in.mlir --passes=canonicalize,cse\n"
               "  passline-mlir-opt in.mlir --passes='builtin.module(func.func(canonicalize,cse))' --threads=2\n"
               "  passline-mlir-opt in.mlir --passes='canonicalize{max-iterations=3}' --print-changed=diff -o out.mlir\n",
               "passline-mlir-opt");
  Options options;
  const auto add_pipeline = [&options](CLI::App& app) { add_pipeline_flags(app, options); };
  passline::driver::add_run_flags(
      app, options, mlir_words,
      {.input = "MLIR file to read; '-' reads stdin (the default)",
       .output = "where to write the MLIR; '-' is stdout (the default). Written whole or not at all",
       .list_passes = "list passline's own passes, then MLIR's passes and pipelines with their options (as "
                      "mlir-opt's help lists them)",
       .print_pipeline = "print the pipeline as passline's text and exit; =expanded prints the passes it would "
                         "run, one per line",
       .no_verify = "MLIR's passes do not verify what they made (they do by default, as mlir-opt's "
                    "--verify-each; --verify-each here verifies the whole module after every pass)",
       .run_reproducer = "replay a file written by --reproducer: its module through the pass that failed, e.g. "
                         "--run-reproducer crash.mlir"},
      add_pipeline);
  if (const std::optional<int> code =
          passline::driver::parse_command_line(app, options, argc, argv, "passline-mlir-opt", add_pipeline)) {
    return *code;
  }
  try {
    return run(options);
  } catch (...) {
    return report(std::current_exception());
  }
}
