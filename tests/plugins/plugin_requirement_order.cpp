// A plugin's static pipeline lists CountLets before InferType, which it
// requires: the plugin does not compile.
// expect-error: requirement 'compile_error<passline::required_pass_runs_after_its_user<CountLets, passline::ir::InferType>>'
// expect-error: move it before its user
// max-errors: 1
#include <cstdint>
import passline;
import passline.ir;
import passline.ir.passes;

struct CountLets {
  static constexpr passline::PassInfo info{.name = "CountLets",
                                           .opt_level = 0,
                                           .required = passline::needs<"InferType">,
                                           .preserves = passline::preserves_all};
  passline::ir::Module operator()(passline::ir::Module module, passline::PassContext&) const { return module; }
};

#ifdef PASSLINE_COMPILE_FAIL
using Pipeline = passline::Sequential<CountLets, passline::ir::InferType>;
#else
using Pipeline = passline::Sequential<passline::ir::InferType, CountLets>;
#endif

void register_passes(passline::PluginRegistrar<passline::ir::Module>& plugin) {
  plugin.passes().add<Pipeline>("counted");
}

extern "C" const passline::PluginEntry* passline_plugin() {
  return passline::plugin_entry<passline::ir::Module, register_passes>("requirement-order");
}
