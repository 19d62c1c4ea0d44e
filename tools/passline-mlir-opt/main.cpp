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
#include <vector>

#include <mlir/IR/MLIRContext.h>

import passline;
import passline.support;
import passline.instruments;
import passline.mlir;

namespace {

struct Options {
  std::string input = "-";
  std::string output = "-";
  std::string passes;
  std::optional<std::string> threads;
  std::string print_pipeline;
  bool no_verify = false;
  std::vector<std::string> print_before;
  std::vector<std::string> print_after;
  bool print_before_all = false;
  bool print_after_all = false;
  std::string print_changed;
  bool time_passes = false;
  std::string trace;
  std::string dump_dir;
  bool verify_each = false;
  std::optional<std::int64_t> bisect_limit;
  std::string reproducer;
};

/// A failure the driver reports as `passline-mlir-opt: error: ...`.
struct Failure {
  std::string message;
};

/// The instruments the flags ask for, in passline-opt's order.
std::vector<std::shared_ptr<passline::Instrument>> instruments(const Options& o,
                                                               std::shared_ptr<passline::PassTimings>& timings) {
  std::vector<std::shared_ptr<passline::Instrument>> out;
  if (o.bisect_limit) out.push_back(std::make_shared<passline::OptBisect>(*o.bisect_limit));
  if (!o.print_before.empty() || !o.print_after.empty() || o.print_before_all || o.print_after_all) {
    out.push_back(std::make_shared<passline::PrintIR>(passline::PrintIR::Options{
        .before = o.print_before, .after = o.print_after, .before_all = o.print_before_all, .after_all = o.print_after_all}));
  }
  if (!o.print_changed.empty()) {
    using Mode = passline::PrintChanged::Mode;
    const Mode mode = o.print_changed == "quiet" ? Mode::quiet : o.print_changed == "diff" ? Mode::diff : Mode::full;
    out.push_back(std::make_shared<passline::PrintChanged>(mode));
  }
  if (!o.dump_dir.empty()) out.push_back(std::make_shared<passline::DumpDir>(o.dump_dir, ".mlir"));
  if (o.verify_each) {
    out.push_back(std::make_shared<passline::VerifyEach>([](passline::IRView ir) {
      if (const auto* module = ir.get<passline::mlir::Module>()) passline::mlir::verify(*module);
    }));
  }
  if (!o.trace.empty()) out.push_back(std::make_shared<passline::Trace>(o.trace));
  if (o.time_passes) {
    auto time = std::make_shared<passline::TimePasses>();
    timings = time->timings();
    out.push_back(std::move(time));
  }
  return out;
}

std::string read_stdin() {
  std::string text;
  char buffer[1 << 16];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, stdin)) > 0) text.append(buffer, got);
  if (std::ferror(stdin)) throw Failure{"cannot read standard input"};
  return text;
}

int report(std::exception_ptr failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const passline::PipelineSyntaxError& e) {
    fmt::print(stderr, "{}\n{}\n", e.what(), e.caret());
  } catch (const passline::mlir::MlirError& e) {
    fmt::print(stderr, "{}\n", e.what());
  } catch (const Failure& e) {
    fmt::print(stderr, "passline-mlir-opt: error: {}\n", e.message);
  } catch (const std::exception& e) {
    fmt::print(stderr, "passline-mlir-opt: error: {}\n", e.what());
  }
  return 1;
}

passline::Pass<passline::mlir::Module> pipeline_of(const std::string& text) {
  if (passline::mlir::is_mlir_pipeline(text)) return passline::mlir::parse_mlir_pipeline(text);
  return passline::parse_pipeline(text, passline::mlir::registry());
}

int run(const Options& options) {
  const passline::Pass<passline::mlir::Module> pipeline = pipeline_of(options.passes);
  if (options.print_pipeline == "text") {
    fmt::print("{}\n", pipeline.text());
    return 0;
  }
  passline::PassContext ctx;
  if (options.threads) {
    try {
      ctx.config.set_text(passline::config::threads.name, *options.threads);
    } catch (const passline::ConfigError& error) {
      throw Failure{fmt::format("--threads: {}", error.what())};
    }
  }
  if (options.print_pipeline == "expanded") {
    fmt::print("{}", passline::plan_text(pipeline.plan(ctx)));
    return 0;
  }
  // What MLIR's passes emit, as passline-opt prints diagnostics; an error
  // fails the run even when its pass went on.
  ctx.diagnostics->set_handler([](const passline::Diagnostic& d) {
    constexpr const char* severities[] = {"note", "warning", "error"};
    fmt::print(stderr, "{}: {}: {}\n", d.location.empty() ? "passline-mlir-opt" : d.location,
               severities[static_cast<int>(d.severity)], d.message);
  });
  std::shared_ptr<passline::PassTimings> timings;
  ctx.instruments = instruments(options, timings);
  passline::support::OutputFile output(options.output);
  std::shared_ptr<passline::Reproducer> reproducer;
  if (!options.reproducer.empty()) {
    reproducer = std::make_shared<passline::Reproducer>(options.reproducer,
                                                        fmt::format("--threads={}", ctx.threads()));
    ctx.instruments.push_back(reproducer);
  }
  struct EndOfRunReport {
    const std::shared_ptr<passline::PassTimings>& timings;
    ~EndOfRunReport() {
      if (timings) fmt::print(stderr, "{}", timings->report());
    }
  } end_report{timings};

  // One pool of threads, passline's (TBB's): function passes run there, and
  // MLIR's own parallel loops too. With one thread, the context locks nothing.
  passline::mlir::ThreadPool threads(ctx.threads());
  mlir::MLIRContext context(passline::mlir::registry_of_dialects(), mlir::MLIRContext::Threading::DISABLED);
  if (ctx.threads() > 1) context.setThreadPool(threads.llvm());
  passline::mlir::Module module =
      options.input == "-" ? passline::mlir::parse(read_stdin(), "<stdin>", context)
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
  if (!options.no_verify) passline::mlir::verify(module);
  output.write(passline::mlir::print(module));
  output.commit();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
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
  app.add_flag("--no-verify", options.no_verify, "do not verify the module after the pipeline");
  app.add_option("--print-before", options.print_before, "print the module to stderr before these passes")
      ->delimiter(',')->option_text("PASS,...")->group("Debugging");
  app.add_option("--print-after", options.print_after, "print the module to stderr after these passes")
      ->delimiter(',')->option_text("PASS,...")->group("Debugging");
  app.add_flag("--print-before-all", options.print_before_all, "print the module to stderr before every pass")->group("Debugging");
  app.add_flag("--print-after-all", options.print_after_all, "print the module to stderr after every pass")->group("Debugging");
  app.add_flag("--print-changed{full}", options.print_changed,
               "print the module at the start, then after each pass only if it changed (told by fingerprint); "
               "=diff prints a unified diff; =quiet prints the changed module only")
      ->check(CLI::IsMember({"full", "diff", "quiet"}))->group("Debugging");
  app.add_flag("--time-passes", options.time_passes, "time each pass; a nested report on stderr at the end")->group("Debugging");
  app.add_option("--trace", options.trace, "write every pass as Chrome trace events to FILE")
      ->option_text("FILE")->group("Debugging");
  app.add_option("--dump-dir", options.dump_dir, "write DIR/000-input.mlir, then DIR/001-<pass>.mlir... after each pass")
      ->option_text("DIR")->group("Debugging");
  app.add_flag("--verify-each", options.verify_each,
               "verify the module after every pass (mlir::verify); a broken module stops the run naming the pass")
      ->group("Debugging");
  app.add_option("--opt-bisect-limit", options.bisect_limit, "run only the first N optional passes")
      ->option_text("N")->group("Debugging");
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
