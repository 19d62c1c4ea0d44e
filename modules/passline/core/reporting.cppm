// Diagnostics: how passes report problems with the IR without throwing.
//
// A pass that finds something to say (a type error with its location, a
// division by zero it will not fold) reports it to the context's sink and goes
// on; the caller decides what errors mean. Contexts derived from one another
// share one sink, and the sink is safe to use from parallel function passes.
module;
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
export module passline:reporting;

export namespace passline {

enum class Severity { note, warning, error };

/// One report: `location` is `file:line:col` or empty when there is none.
struct Diagnostic {
  Severity severity = Severity::error;
  std::string location = {};
  std::string message = {};
  /// The source line and a caret under the spot, when there is a position.
  std::string snippet = {};
};

/// Collects diagnostics and, if set, hands each to a handler as it arrives.
class Diagnostics {
 public:
  void report(Diagnostic diagnostic) {
    std::lock_guard lock(mutex_);
    if (diagnostic.severity == Severity::error) ++errors_;
    if (handler_) handler_(diagnostic);
    entries_.push_back(std::move(diagnostic));
  }
  void error(std::string location, std::string message) {
    report({Severity::error, std::move(location), std::move(message)});
  }
  void warning(std::string location, std::string message) {
    report({Severity::warning, std::move(location), std::move(message)});
  }

  /// Called for each diagnostic as it is reported (under a lock: keep it short).
  void set_handler(std::function<void(const Diagnostic&)> handler) {
    std::lock_guard lock(mutex_);
    handler_ = std::move(handler);
  }

  std::vector<Diagnostic> entries() const {
    std::lock_guard lock(mutex_);
    return entries_;
  }
  std::size_t error_count() const {
    std::lock_guard lock(mutex_);
    return errors_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<Diagnostic> entries_;
  std::size_t errors_ = 0;
  std::function<void(const Diagnostic&)> handler_;
};

/// Counters that passes keep (`--stats`): how many constants FoldConstant
/// folded, how many lets DeadCodeElimination dropped. A pass adds to a
/// counter it names; counts add up across functions and threads, so the
/// totals are the same on any number of threads. Shared like Diagnostics.
class Statistics {
 public:
  struct Counter {
    std::string pass;
    std::string name;
    std::int64_t value = 0;
  };

  void add(std::string_view pass, std::string_view name, std::int64_t amount = 1) {
    if (amount == 0) return;
    std::lock_guard lock(mutex_);
    for (Counter& counter : counters_) {
      if (counter.pass == pass && counter.name == name) {
        counter.value += amount;
        return;
      }
    }
    counters_.push_back({std::string(pass), std::string(name), amount});
  }

  /// The counters, sorted by pass and then name.
  std::vector<Counter> counters() const {
    std::lock_guard lock(mutex_);
    std::vector<Counter> sorted = counters_;
    std::ranges::sort(sorted, [](const Counter& a, const Counter& b) {
      return a.pass != b.pass ? a.pass < b.pass : a.name < b.name;
    });
    return sorted;
  }

  /// The counters as LLVM's `-stats` prints them.
  std::string report() const {
    std::string out =
        "===-------------------------------------------------------------------------===\n"
        "                          ... Statistics Collected ...\n"
        "===-------------------------------------------------------------------------===\n\n";
    for (const Counter& counter : counters()) {
      out += fmt::format("{:>8} {:<24} - {}\n", counter.value, counter.pass, counter.name);
    }
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<Counter> counters_;
};

}  // namespace passline
