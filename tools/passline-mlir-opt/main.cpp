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

using passline::driver::Failure;

/// How passline-mlir-opt's help speaks of MLIR.
constexpr passline::driver::IRWords mlir_words{.extension = ".mlir", .print_before = "cse", .print_after = "canonicalize"};

struct Options {
  std::string input = "-";
  std::string output = "-";
  std::string passes;
  std::optional<std::string> threads;
  std::string print_pipeline;
  bool no_verify = false;
  passline::driver::InstrumentFlags instruments;
  std::string reproducer;
};

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

int report(std::exception_ptr failure) {
  return passline::driver::report<passline::mlir::MlirError>(std::move(failure), "passline-mlir-opt");
}

passline::Pass<passline::mlir::Module> pipeline_of(const std::string& text) {
  if (passline::mlir::is_mlir_pipeline(text)) return passline::mlir::parse_mlir_pipeline(text);
  return passline::parse_pipeline(text, passline::mlir::registry());
}

int run(const Options& options) {
  const passline::Pass<passline::mlir::Module> pipeline = pipeline_of(options.passes);
  if (options.print_pipeline == "text") return passline::driver::print_out(pipeline.text() + "\n"), 0;
  passline::PassContext ctx;
  if (options.threads) passline::driver::set_threads(ctx, *options.threads);
  if (options.no_verify) ctx.config.set(passline::mlir::verify_passes, false);
  if (options.print_pipeline == "expanded") return passline::driver::print_out(passline::plan_text(pipeline.plan(ctx))), 0;
  // What MLIR's passes emit, as passline-opt prints diagnostics; an error
  // fails the run even when its pass went on.
  passline::driver::print_diagnostics(ctx, "passline-mlir-opt");
  std::shared_ptr<passline::PassTimings> timings;
  ctx.instruments = instruments(options, timings);
  passline::support::OutputFile output(options.output);
  std::shared_ptr<passline::Reproducer> reproducer;
  if (!options.reproducer.empty()) {
    reproducer = std::make_shared<passline::Reproducer>(options.reproducer,
                                                        fmt::format("--threads={}", ctx.threads()));
    ctx.instruments.push_back(reproducer);
  }
  const passline::driver::EndOfRunReport end_report{timings};

  // One pool of threads, passline's (TBB's): function passes run there, and
  // MLIR's own parallel loops too. With one thread, the context locks nothing.
  passline::mlir::ThreadPool threads(ctx.threads());
  mlir::MLIRContext context(passline::mlir::registry_of_dialects(), mlir::MLIRContext::Threading::DISABLED);
  if (ctx.threads() > 1) context.setThreadPool(threads.llvm());
  passline::mlir::Module module =
      options.input == "-" ? passline::mlir::parse(passline::driver::read_all(STDIN_FILENO, "standard input"), "<stdin>", context)
                           : passline::mlir::parse_file(options.input, context);
  const std::size_t errors_before = ctx.diagnostics->error_count();
  {
    auto scope = ctx.enter();
    try {
      module = pipeline(std::move(module), ctx);
    } catch (...) {
      const int code = report(std::current_exception());
      if (reproducer && !reproducer->error().empty()) {
        fmt::print(stderr, "passline-mlir-opt: error: {}\n", reproducer->error());
      }
      return code;
    }
  }
  if (ctx.diagnostics->error_count() > errors_before) return 1;
  passline::mlir::print(module, [&output](std::string_view text) { output.write(text); });
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
  app.add_option("input", options.input, "MLIR file to read; '-' reads stdin (the default)");
  app.add_option("-o", options.output, "where to write the MLIR; '-' is stdout (the default). Written whole or not at all");
  app.add_option("--passes", options.passes,
                 "the pipeline: MLIR's textual pipeline, 'builtin.module(func.func(canonicalize,cse))', or "
                 "passline's pipeline text over MLIR's pass names, 'canonicalize,cse', any pass mlir-opt-19 lists, "
                 "with its options in braces ('canonicalize{max-iterations=3}'); none runs no pass");
  app.add_option("--threads", options.threads,
                 fmt::format("threads for function passes (passes nested on func.func), 0 to {} (0: one per hardware "
                             "thread); the output is the same on any number",
                             passline::max_threads))
      ->option_text("N");
  app.add_flag("--print-pipeline{text}", options.print_pipeline,
               "print the pipeline as passline's text and exit; =expanded prints the passes it would run, one per line")
      ->check(CLI::IsMember({"text", "expanded"}));
  app.add_flag("--no-verify", options.no_verify,
               "MLIR's passes do not verify what they made (they do by default, as mlir-opt's --verify-each; "
               "--verify-each here verifies the whole module after every pass)");
  passline::driver::add_instrument_flags(app, options.instruments, mlir_words);
  app.add_option("--reproducer", options.reproducer,
                 "when a pass fails, write the module it failed on and the pass to FILE")
      ->option_text("FILE")->group("Debugging");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    fmt::print(stderr, "passline-mlir-opt: error: {}\nRun with --help for more information.\n",
               passline::support::printable(e.what(), 200));
    return 1;
  }
  try {
    return run(options);
  } catch (...) {
    return report(std::current_exception());
  }
}
