// PassGraph (instruments.cppm): `--print-pass-graph`.
module;
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>
module passline.instruments;

namespace passline {

std::string PassGraph::dot() const {
  std::string out = "digraph passes {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n";
  auto id = [](int i) { return fmt::format("p{}", i); };
  // Clusters, innermost written inside their parents; the run order goes
  // through them, from the last pass before a pipeline to its first.
  struct Ends {
    int first = -1;
    int last = -1;
  };
  auto write = [&](auto& self, int parent, std::string indent) -> Ends {
    Ends ends;
    auto link = [&](int from, int to) {
      if (from >= 0 && to >= 0) out += fmt::format("{}{} -> {};\n", indent, id(from), id(to));
    };
    for (std::size_t i = 0; i < steps_.size(); ++i) {
      if (steps_[i].parent != parent) continue;
      Ends step{static_cast<int>(i), static_cast<int>(i)};
      if (steps_[i].pipeline) {
        out += fmt::format("{}subgraph cluster_{} {{\n{}  label=\"{}\";\n", indent, i, indent,
                           steps_[i].name);
        step = self(self, static_cast<int>(i), indent + "  ");
        out += indent + "}\n";
      } else {
        out += fmt::format("{}{} [label=\"{}\"];\n", indent, id(i), steps_[i].name);
      }
      if (step.first < 0) continue;  // an empty pipeline
      link(ends.last, step.first);
      if (ends.first < 0) ends.first = step.first;
      ends.last = step.last;
    }
    return ends;
  };
  write(write, -1, "  ");
  // Each prerequisite to the next pass of its name's requirer that ran after it.
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    if (steps_[i].required_by.empty()) continue;
    for (std::size_t j = i + 1; j < steps_.size(); ++j) {
      if (!steps_[j].pipeline && steps_[j].name == steps_[i].required_by) {
        out += fmt::format("  {} -> {} [style=dashed, label=\"required by\"];\n", id(static_cast<int>(i)),
                           id(static_cast<int>(j)));
        break;
      }
    }
  }
  return out + "}\n";
}

}  // namespace passline
