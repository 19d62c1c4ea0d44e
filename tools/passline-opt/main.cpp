// passline-opt: reads reference IR, runs a pipeline over it, writes IR (like
// `opt`, `mlir-opt`): passline::driver::main over the reference IR. What is
// here is the IR's own: how it is read (mapped, on every thread), written
// and verified, its registry, its -O<N> and its help's words.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstddef>
#include <functional>
#include <malloc.h>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

import passline;
import passline.ir;
import passline.ir.reduce;  // --reduce inside functions
import passline.pipelines;
import passline.driver;

namespace {

namespace ir = passline::ir;

struct ReferenceTool {
  std::string_view name = "passline-opt";
  passline::driver::Help help{
      .description = "passline-opt: runs a pipeline of passes over reference IR.",
      .examples = "  passline-opt examples/ir/arith.ir -O2\n"
                  "  passline-opt in.ir --passes='InferType,FoldConstant' -o out.ir\n"
                  "  cat in.ir | passline-opt - --passes=O2 --disable-pass=FoldConstant\n"
                  "  passline-opt in.ir -O2 --print-changed --time-passes -o out.ir\n",
      .extension = ".ir",
      .print_before = "CSE,DCE",
      .print_after = "FoldConstant",
      .unit = "IR",
      .disable_example = "FoldConstant,Inline",
      .opt_level_default = "the -O level, else 2",
      .threads_use = "every phase: parsing, function passes, printing",
      .input = "IR file to read; '-' reads stdin (the default)",
      .output = "where to write the IR; '-' is stdout (the default). Written whole or not at all",
      .passes = "pipeline text, e.g. 'InferType,FoldConstant' or 'O2' (see --list-passes); --passes= runs no pass",
      .list_passes = "list the passes and pipelines with their levels, requirements and options",
      .print_pipeline = "print the pipeline as canonical text and exit; =expanded prints the passes it would run under "
                        "the given flags, one per line, with the required passes it inserts and why, e.g. -O2 "
                        "--print-pipeline=expanded",
      .no_verify = "do not verify the IR before and after the pipeline",
      .run_reproducer = "replay a file written by --reproducer: its IR through the pass that failed, e.g. "
                        "--run-reproducer crash.ir"};
  using positioned_errors = std::tuple<ir::IRError>;
  std::optional<int> level;  // -O<N>, unless --passes is given

  ir::Module read(std::string text, const std::string& file, std::size_t threads) {
    return ir::parse(std::move(text), file, threads);
  }
  ir::Module read_file(const std::string& path, std::size_t threads) { return ir::parse_file(path, path, threads); }
  void write(const ir::Module& module, const std::function<void(std::string_view)>& put, std::size_t threads) {
    ir::print_to(module, put, threads);
  }
  void verify(const ir::Module& module, std::size_t threads) { ir::verify(module, threads); }
  passline::Registry<ir::Module>& registry() { return passline::pipelines::registry(); }

  void add_pipeline_flags(CLI::App& app) {
    app.add_option("-O", level, "run the standard pipeline O<N> at opt level N: -O0, -O1, -O2 (the default), -O3")
        ->check(CLI::Range(0, 3));
  }
  bool pipeline_flags_given() const { return level.has_value(); }
  std::optional<int> check_flags(const passline::driver::RunFlags& flags) const {
    if (flags.passes && level) throw passline::driver::Failure{"give either --passes or -O<level>, not both"};
    return std::nullopt;
  }
  passline::Pass<ir::Module> pipeline(const passline::driver::RunFlags& flags) {
    return passline::parse_pipeline(flags.passes.value_or(fmt::format("O{}", level.value_or(2))), registry());
  }
  // -O<N> runs at level N. Passes named in --passes run whatever their level
  // (as `opt -passes=` does): the level is the highest unless given.
  int opt_level(const passline::driver::RunFlags& flags) const {
    return flags.passes ? passline::driver::max_opt_level : level.value_or(2);
  }
};

}  // namespace

int main(int argc, char** argv) {
#ifdef __GLIBC__
  // Large buffers (a pass's tables, a body's nodes) come from and go back to
  // the system as they are freed, instead of staying in the heap for good:
  // the next pass needs its memory only while it runs.
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
  ir::map_input_files();
  return passline::driver::main<ir::Module>(argc, argv, ReferenceTool{});
}
