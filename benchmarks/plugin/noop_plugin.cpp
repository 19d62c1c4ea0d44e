// The plugin of the plugin benchmark: noop_passes.h's 100 passes.
import passline;
#include "noop_passes.h"

namespace {
void register_passes(passline::PluginRegistrar<bench::Value>& plugin) { bench::register_noops(plugin.passes()); }
}  // namespace

extern "C" const passline::PluginEntry* passline_plugin() {
  return passline::plugin_entry<bench::Value, register_passes>("noops");
}
