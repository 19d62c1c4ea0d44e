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
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <string_view>
#include <string>
#include <vector>
import passline;
import passline.ir;
import passline.ir.passes;
import passline.pipelines;

namespace {

struct Options {
  std::string input = "-";
  std::string output = "-";
  std::string passes;
  std::optional<int> level_flag;
  std::optional<int> opt_level;
  std::vector<std::string> disabled;
  std::vector<std::string> required;
  std::vector<std::string> config;
  std::optional<std::int64_t> threads;
  bool list_passes = false;
  bool list_config = false;
  bool print_pipeline = false;
  bool no_verify = false;
};

/// A failure the driver reports as `passline-opt: error: ...`.
struct Failure {
  std::string message;
};

/// The input module: from a file (mapped, see ir::Source::open) or stdin.
passline::ir::Module read_input(const std::string& path) {
  if (path == "-") return passline::ir::parse(std::string(std::istreambuf_iterator<char>(std::cin), {}), "<stdin>");
  return passline::ir::parse_file(path, path);
}

/// Writes `module` to `path` whole, or leaves `path` as it was. The text goes
/// out a chunk at a time, into a file beside `path` that is renamed at the end.
void write_output(const std::string& path, const passline::ir::Module& module) {
  if (path == "-") {
    std::string text = passline::ir::print(module);  // stdout cannot be taken back: print all first
    std::cout << text;
    std::cout.flush();
    return;
  }
  const std::filesystem::path target(path);
  const std::filesystem::path temporary = target.string() + ".passline-opt.tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw Failure{fmt::format("cannot write '{}': {}", path, std::strerror(errno))};
    passline::ir::print_to(module, [&](std::string_view chunk) { out.write(chunk.data(), static_cast<std::streamsize>(chunk.size())); });
    if (!out.flush()) {
      std::filesystem::remove(temporary);
      throw Failure{fmt::format("cannot write '{}'", path)};
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, target, error);
  if (error) {
    std::filesystem::remove(temporary);
    throw Failure{fmt::format("cannot write '{}': {}", path, error.message())};
  }
}

void list_passes(const passline::Registry<passline::ir::Module>& registry) {
  for (const passline::PassListing& pass : registry.list()) {
    std::string required;
    for (const std::string& r : pass.required) required += (required.empty() ? "" : ", ") + r;
    fmt::print("{:<16} {} level {}{}  {}\n", pass.name, pass.pipeline ? "pipeline" : "pass    ", pass.opt_level,
               required.empty() ? "" : "  requires " + required, pass.summary);
    for (const passline::OptionSpec& option : pass.options) {
      fmt::print("    {}: {} = {}  {}\n", option.name, passline::value_type_name(option.default_value),
                 passline::format_value(option.default_value), option.description);
    }
  }
}

void list_config() {
  for (const passline::ConfigKeyInfo& key : passline::ConfigKeys::global().list()) {
    fmt::print("{:<16} {} = {}  {}\n", key.name, key.type_name(), passline::format_value(key.default_value),
               key.description);
  }
}

int run(const Options& options) {
  auto& registry = passline::pipelines::registry();
  if (options.list_passes) return list_passes(registry), 0;
  if (options.list_config) return list_config(), 0;
  if (!options.passes.empty() && options.level_flag) throw Failure{"give either --passes or -O<level>, not both"};

  const std::string pipeline_text =
      options.passes.empty() ? fmt::format("O{}", options.level_flag.value_or(2)) : options.passes;
  const passline::Pass<passline::ir::Module> pipeline = passline::parse_pipeline(pipeline_text, registry);
  if (options.print_pipeline) return fmt::print("{}\n", pipeline.text()), 0;

  passline::PassContext ctx;
  ctx.opt_level = options.opt_level.value_or(options.level_flag.value_or(2));
  ctx.disabled = options.disabled;
  ctx.required = options.required;
  for (const std::string& setting : options.config) {
    const auto equals = setting.find('=');
    if (equals == std::string::npos) throw Failure{fmt::format("--config takes KEY=VALUE, not '{}'", setting)};
    ctx.config.set_text(setting.substr(0, equals), setting.substr(equals + 1));
  }
  if (options.threads) ctx.config.set(passline::config::threads, *options.threads);
  ctx.diagnostics->set_handler([](const passline::Diagnostic& d) {
    constexpr const char* severities[] = {"note", "warning", "error"};
    fmt::print(stderr, "{}: {}: {}\n", d.location.empty() ? "passline-opt" : d.location,
               severities[static_cast<int>(d.severity)], d.message);
    if (!d.snippet.empty()) fmt::print(stderr, "{}\n", d.snippet);
  });

  passline::ir::Module module = read_input(options.input);
  if (!options.no_verify) passline::ir::verify(module);
  auto scope = ctx.enter();
  module = pipeline(std::move(module), ctx);
  if (!options.no_verify) passline::ir::verify(module);
  write_output(options.output, module);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
#ifdef __GLIBC__
  // Large buffers (a pass's tables, a body's nodes) come from and go back to
  // the system as they are freed, instead of staying in the heap for good:
  // the next pass needs its memory only while it runs.
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
  CLI::App app("passline-opt: runs a pipeline of passes over reference IR.\n\n"
               "Examples:\n"
               "  passline-opt examples/ir/arith.ir -O2\n"
               "  passline-opt in.ir --passes='InferType,FoldConstant' -o out.ir\n"
               "  cat in.ir | passline-opt - --passes=O2 --disable-pass=FoldConstant\n",
               "passline-opt");
  Options options;
  app.add_option("input", options.input, "IR file to read; '-' reads stdin (the default)");
  app.add_option("-o", options.output, "where to write the IR; '-' is stdout (the default). Written whole or not at all");
  app.add_option("--passes", options.passes, "pipeline text, e.g. 'InferType,FoldConstant' or 'O2' (see --list-passes)");
  app.add_option("-O", options.level_flag, "run the standard pipeline O<N> at opt level N: -O0, -O1, -O2 (the default), -O3")
      ->check(CLI::Range(0, 3));
  app.add_option("--opt-level", options.opt_level, "opt level of the pass context (default: the -O level, else 2)")
      ->check(CLI::Range(0, 3));
  app.add_option("--disable-pass", options.disabled, "passes never to run, e.g. --disable-pass=FoldConstant,Inline")
      ->delimiter(',');
  app.add_option("--require-pass", options.required, "passes to run whatever the opt level, e.g. --require-pass=Inline")
      ->delimiter(',');
  app.add_option("--config", options.config, "a config value, KEY=VALUE, e.g. --config threads=4 (see --list-config)");
  app.add_option("--threads", options.threads, "threads for function passes (0: one per hardware thread)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--list-passes", options.list_passes, "list the passes and pipelines with their levels, requirements and options");
  app.add_flag("--list-config", options.list_config, "list the config keys with their types and defaults");
  app.add_flag("--print-pipeline", options.print_pipeline, "print the pipeline as canonical text and exit");
  app.add_flag("--no-verify", options.no_verify, "do not verify the IR before and after the pipeline");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;  // --help is a success; every usage error exits 1
  }
  try {
    return run(options);
  } catch (const passline::PipelineSyntaxError& e) {
    fmt::print(stderr, "{}\n{}\n", e.what(), e.caret());
  } catch (const passline::ir::IRError& e) {
    fmt::print(stderr, "{}\n", e.what());
  } catch (const Failure& e) {
    fmt::print(stderr, "passline-opt: error: {}\n", e.message);
  } catch (const std::exception& e) {
    fmt::print(stderr, "passline-opt: error: {}\n", e.what());
  }
  return 1;
}
