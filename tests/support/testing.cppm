// passline.testing: a tiny IR for the library's own tests.
//
// The IR is the list of passes that ran on it, so a test reads the execution
// order straight off the result. Passes are stamped out from a template so that
// a test declares exactly the names, levels and requirements it needs.
module;
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <memory>
#include <string>
#include <utility>
#include <string_view>
#include <vector>
export module passline.testing;
import passline;

export namespace passline::testing {

/// An IR that records which passes ran on it, in order.
struct Trace {
  std::vector<std::string> ran;
  friend bool operator==(const Trace&, const Trace&) = default;
};

/// Pass `P` declared to preserve `Kept...` (passes or analyses) when it
/// changes the IR; `Preserving<P, "*">` for one that never changes it.
template <class P, fixed_string... Kept>
struct Preserving : P {
  static constexpr PassInfo info = [] {
    PassInfo declared = P::info;
    declared.preserves = names<Kept...>;
    return declared;
  }();
};

/// A module pass named `Name` that appends its name to the trace.
template <fixed_string Name, int OptLevel = 0, fixed_string... Required>
struct Step {
  static constexpr PassInfo info{
      .name = Name.view(),
      .opt_level = OptLevel,
      .required = needs<Required...>,
      .summary = "records that it ran",
  };
  Trace operator()(Trace trace, PassContext&) const {
    trace.ran.emplace_back(info.name);
    return trace;
  }
};

/// One function of a Program: the passes that ran on it, and what it saw.
struct Function {
  std::string name;
  bool skip = false;
  std::vector<std::string> ran = {};
  friend bool operator==(const Function&, const Function&) = default;
};

/// An IR with functions, for function passes.
struct Program {
  std::vector<Function> functions;
  std::vector<std::string> module_passes = {};
  friend bool operator==(const Program&, const Program&) = default;
};

/// A function pass named `Name`: appends its name, and how many functions of
/// the module had already run it when it saw the module (always 0: every call
/// sees the module as it was before the pass).
template <fixed_string Name, int OptLevel = 0, fixed_string... Required>
struct FunctionStep {
  static constexpr PassInfo info{
      .name = Name.view(),
      .opt_level = OptLevel,
      .required = needs<Required...>,
      .summary = "records that it ran on a function",
  };
  Function operator()(Function fn, const Program& program, PassContext&) const;
};

/// A module pass over Program named `Name`.
template <fixed_string Name, int OptLevel = 0, fixed_string... Required>
struct ProgramStep {
  static constexpr PassInfo info{
      .name = Name.view(),
      .opt_level = OptLevel,
      .required = needs<Required...>,
      .summary = "records that it ran on the module",
  };
  Program operator()(Program program, PassContext&) const {
    program.module_passes.emplace_back(info.name);
    return program;
  }
};

}  // namespace passline::testing

export template <>
struct passline::IRTraits<passline::testing::Program> {
  using Function = passline::testing::Function;
  static std::size_t function_count(const testing::Program& p) { return p.functions.size(); }
  static const Function& function(const testing::Program& p, std::size_t i) {
    return p.functions[i];
  }
  static void replace_function(testing::Program& p, std::size_t i, Function fn) {
    p.functions[i] = std::move(fn);
  }
  static bool skips_optimization(const Function& fn) { return fn.skip; }
};

export namespace passline::testing {

/// The names of passes in the order they ran, shared with the passes that log to it.
using RunLog = std::shared_ptr<std::vector<std::string>>;

/// What a logged pass does to the IR.
enum class Effect { keeps, changes };

/// A module pass over Program described at run time: it logs its name to `log`
/// and, if it `changes` the IR, records itself in `module_passes`.
inline Pass<Program> logged(RunLog log, const PassInfo& info, Effect effect = Effect::keeps) {
  return module_pass<Program>(info, [log, effect, name = std::string(info.name)](Program ir, PassContext&) {
    log->push_back(name);
    if (effect == Effect::changes) ir.module_passes.push_back(name);
    return ir;
  });
}

}  // namespace passline::testing

namespace passline::testing {

template <fixed_string Name, int OptLevel, fixed_string... Required>
Function FunctionStep<Name, OptLevel, Required...>::operator()(Function fn, const Program& program,
                                                                 PassContext&) const {
  std::size_t already = 0;
  for (const Function& other : program.functions) {
    if (!other.ran.empty() && other.ran.back() == info.name) ++already;
  }
  fn.ran.push_back(std::string(info.name) + "@" + std::to_string(already));
  return fn;
}

}  // namespace passline::testing

export namespace passline::testing {

/// A directory of the test's own, made with mkdtemp(3) under $TMPDIR (or
/// /tmp), removed with what it holds when the test ends: tests touch only
/// what they create.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "passline-test-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot make a temporary directory");
    path_ = pattern;
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  ~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

}  // namespace passline::testing
