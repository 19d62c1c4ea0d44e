// A passline plugin: passes for the reference IR, built apart from any
// driver (CMakeLists.txt beside it: find_package(passline), then one call of
// passline_add_plugin) and loaded at run time:
//
//   passline-opt in.ir --load-pass-plugin=./example_plugin.so --passes='ExportAll,CountFunctions'
//   python3 -c 'import passline; passline.load_plugin("./example_plugin.so")'
//
// Its passes are ordinary passes: types with a PassInfo, one with an option
// that reads an analysis of the plugin's own, and a static pipeline of the
// program's passes and its own, checked by the compiler, registered as one
// pass.
#include <cstdint>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
import passline;
import passline.ir;
import passline.ir.passes;

namespace example {

using passline::ir::Module;

/// Marks every function exported, so that DeadCodeElimination keeps them.
struct ExportAll {
  static constexpr passline::PassInfo info{
      .name = "ExportAll",
      .opt_level = 0,
      .summary = "marks every function exported",
      .preserves = passline::names<"InferType">,
  };
  Module operator()(Module module, passline::PassContext&) const {
    for (passline::ir::Function& function : module.functions) function.exported = true;
    return module;
  }
};

/// How many functions a module has: an analysis of the plugin's own, which
/// the pass manager computes once and keeps while passes preserve it.
struct FunctionCount {
  static constexpr passline::AnalysisInfo info{.name = "FunctionCount", .summary = "how many functions the module has"};
  std::int64_t operator()(const Module& module) const { return static_cast<std::int64_t>(module.functions.size()); }
};

/// Counts the functions of a typed module; with `at-most`, more is an error.
struct CountFunctions {
  static constexpr passline::PassInfo info{
      .name = "CountFunctions",
      .opt_level = 0,
      .required = passline::needs<"InferType">,
      .summary = "counts the functions; more than at-most (if not 0) is an error",
      .preserves = passline::preserves_all,
  };
  std::int64_t at_most = 0;
  static constexpr auto options = passline::options(
      passline::option<&CountFunctions::at_most>("at-most", "the most functions the module may have; 0: any"));

  Module operator()(Module module, passline::PassContext& ctx) const {
    const std::int64_t count = ctx.analyses<Module>().get<FunctionCount>(module);
    ctx.statistics->add(info.name, "functions", count);
    if (at_most > 0 && count > at_most) {
      throw std::runtime_error(fmt::format("the module has {} functions, more than {}", count, at_most));
    }
    return module;
  }
};

/// The program's passes and this plugin's, in an order the compiler checks.
using Cleanup = passline::Sequential<passline::ir::InferType, passline::ir::FoldConstant, ExportAll,
                                     passline::ir::DeadCodeElimination, CountFunctions>;

void register_passes(passline::PluginRegistrar<Module>& plugin) {
  plugin.passes().add<ExportAll>();
  plugin.passes().add<CountFunctions>();
  plugin.passes().add<Cleanup>("plugin-cleanup");
}

}  // namespace example

extern "C" const passline::PluginEntry* passline_plugin() {
  return passline::plugin_entry<passline::ir::Module, example::register_passes>("example");
}
