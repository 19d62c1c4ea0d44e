// A plugin of passes with planted bugs (planted_bugs.h), for --reduce's tests
// (reduce.sh).
import passline;
import passline.ir;

#include "planted_bugs.h"

namespace planted {

void register_passes(passline::PluginRegistrar<Module>& plugin) {
  plugin.passes().add<PlantedFail>();
  plugin.passes().add<PlantedCrash>();
  plugin.passes().add<PlantedHang>();
  plugin.passes().add<PlantedMiscompile>();
  plugin.passes().add<PlantedBreak>();
}

}  // namespace planted

extern "C" const passline::PluginEntry* passline_plugin() {
  return passline::plugin_entry<passline::ir::Module, planted::register_passes>("planted-bugs");
}
