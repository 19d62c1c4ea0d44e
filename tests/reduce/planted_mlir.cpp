// Passes over MLIR with planted bugs, for --reduce's tests (reduce.sh): each
// misbehaves only on the pattern `arith.remsi %x, %c7919` (a remainder by
// the constant 7919), and leaves every other module as it is.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>

#include <mlir/Dialect/Arith/IR/Arith.h>
#include <mlir/IR/BuiltinOps.h>
#include <mlir/IR/Matchers.h>
#include <mlir/IR/Operation.h>
import passline;
import passline.mlir;

namespace planted {

using passline::mlir::Module;

bool has_pattern(const Module& module) {
  bool found = false;
  module.op()->walk([&](mlir::arith::RemSIOp op) {
    llvm::APInt value;
    if (mlir::matchPattern(op.getRhs(), mlir::m_ConstantInt(&value)) && value == 7919) found = true;
  });
  return found;
}

/// Aborts on the pattern.
struct PlantedCrash {
  static constexpr passline::PassInfo info{.name = "planted-crash", .opt_level = 0, .summary = "aborts on a remsi by 7919"};
  Module operator()(Module module, passline::PassContext&) const {
    if (has_pattern(module)) std::abort();
    return module;
  }
};

/// Fails on the pattern.
struct PlantedFail {
  static constexpr passline::PassInfo info{.name = "planted-fail", .opt_level = 0, .summary = "fails on a remsi by 7919"};
  Module operator()(Module module, passline::PassContext&) const {
    if (has_pattern(module)) throw std::runtime_error("found remsi by 7919, which it cannot handle");
    return module;
  }
};

void register_passes(passline::PluginRegistrar<Module>& plugin) {
  plugin.passes().add<PlantedCrash>();
  plugin.passes().add<PlantedFail>();
}

}  // namespace planted

extern "C" const passline::PluginEntry* passline_plugin() {
  return passline::plugin_entry<passline::mlir::Module, planted::register_passes>("planted-mlir");
}
