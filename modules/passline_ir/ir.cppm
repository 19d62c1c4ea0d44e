// The reference IR: a small typed functional IR in the spirit of Relay.
//
// `import passline.ir;` gives the IR (types, bodies, modules), its text
// format, its verifier, and its IRTraits, so every pass manager feature
// (function passes, required-pass identity, instruments) works on it.
module;
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
export module passline.ir;
import passline;
import passline.support;

#include "types.inc"
#include "body.inc"
#include "names.inc"
#include "source.inc"
#include "functions.inc"
#include "text.inc"
#include "verify.inc"
#include "rewrite.inc"

export template <>
struct passline::IRTraits<passline::ir::Module> {
  using Function = passline::ir::Function;
  static std::size_t function_count(const ir::Module& m) { return m.functions.size(); }
  static const Function& function(const ir::Module& m, std::size_t i) { return m.functions[i]; }
  /// A function pass's result takes its input's place: the body is the
  /// pass's, the name and attributes stay the input's, as TVM keeps a
  /// function pass's result under the global it ran on.
  static void replace_function(ir::Module& m, std::size_t i, Function fn) { m.functions[i].body = std::move(fn.body); }
  static bool skips_optimization(const Function& fn) { return fn.skip_optimization; }
  /// The function with its body; the module keeps its name and attributes.
  static Function take_function(ir::Module& m, std::size_t i) {
    Function fn = m.functions[i];
    fn.body = std::move(m.functions[i].body);
    return fn;
  }
  static bool identical(const ir::Module& a, const ir::Module& b) { return ir::identical(a, b); }
  static std::string_view function_name(const Function& fn) { return fn.name; }
  static std::string print_function(const Function& fn) { return ir::print(fn); }
  static std::string print(const ir::Module& m) { return ir::print(m); }
  static void print_into(const ir::Module& m, std::string& out) { ir::print(m, out); }
  static std::uint64_t fingerprint(const ir::Module& m) { return ir::fingerprint(m); }
  /// Known once computed, or once printed: printing a body fingerprints it too.
  static std::optional<std::uint64_t> cached_fingerprint(const ir::Module& m) { return ir::cached_fingerprint(m); }
};

// The pass manager's types for this IR are instantiated once, in ir.cpp,
// rather than in each unit that imports passline.ir (the passes, the
// pipelines, the tools, the tests): each of those only calls them.
extern template class passline::Registry<passline::ir::Module>;
extern template class passline::Pass<passline::ir::Module>;
