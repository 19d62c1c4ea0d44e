// A plugin for stack-opt, built apart from it (CMakeLists.txt:
// passline_add_plugin) and loaded at run time:
//
//   stack-opt demo.stack --load-pass-plugin=./stack_plugin.so --passes=strength
#include <optional>
#include <span>
#include <vector>
import passline;
import stack;

namespace strength {

/// `push 2; mul` is `dup; add`.
struct Strength {
  static constexpr passline::PassInfo info{.name = "strength", .opt_level = 1, .summary = "doubling by addition"};
  stack::Function operator()(stack::Function fn, const stack::Program&, passline::PassContext&) const {
    fn.code = stack::rewrite_windows(std::move(fn.code), 2, [](std::span<const stack::Instr> w) {
      std::optional<std::vector<stack::Instr>> with;
      if (w[0].op == stack::Op::push && w[0].value == 2 && w[1].op == stack::Op::mul) {
        with = std::vector<stack::Instr>{{.op = stack::Op::dup, .value = 0, .callee = {}, .offset = w[0].offset},
                                         {.op = stack::Op::add, .value = 0, .callee = {}, .offset = w[1].offset}};
      }
      return with;
    });
    return fn;
  }
};

void register_passes(passline::PluginRegistrar<stack::Program>& plugin) { plugin.passes().add<Strength>(); }

}  // namespace strength

extern "C" const passline::PluginEntry* passline_plugin() {
  return passline::plugin_entry<stack::Program, strength::register_passes>("strength");
}
