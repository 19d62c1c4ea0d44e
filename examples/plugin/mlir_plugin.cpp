// A passline plugin over MLIR: a pass of its own, and a static pipeline that
// mixes it with MLIR's passes, loaded at run time by passline-mlir-opt:
//
//   passline-mlir-opt in.mlir --load-pass-plugin=./mlir_plugin.so \
//     --passes='count-and-clean' -mlir-pass-statistics
#include <cstdint>

#include <mlir/IR/BuiltinOps.h>
#include <mlir/IR/Operation.h>
import passline;
import passline.mlir;

namespace example {

using passline::mlir::Module;

/// Counts the operations of the module, and changes nothing.
struct CountOps {
  static constexpr passline::PassInfo info{
      .name = "count-ops", .opt_level = 0, .summary = "counts the operations", .preserves = passline::preserves_all};
  Module operator()(Module module, passline::PassContext& ctx) const {
    std::int64_t ops = 0;
    module.op()->walk([&](mlir::Operation*) { ++ops; });
    ctx.statistics->add(info.name, "operations", ops);
    return module;
  }
};

/// MLIR's canonicalizer, the count, then MLIR's CSE.
using CountAndClean =
    passline::Sequential<passline::mlir::MlirPass<"canonicalize">, CountOps, passline::mlir::MlirPass<"cse">>;

void register_passes(passline::PluginRegistrar<Module>& plugin) {
  plugin.passes().add<CountOps>();
  plugin.passes().add<CountAndClean>("count-and-clean");
}

}  // namespace example

extern "C" const passline::PluginEntry* passline_plugin() {
  return passline::plugin_entry<passline::mlir::Module, example::register_passes>("example-mlir");
}
