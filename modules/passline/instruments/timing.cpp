// PassTimings and TimePasses (instruments.cppm): `--time-passes`.
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

std::string PassTimings::report() const {
  const double total_time = total();
  std::string out =
      "===-------------------------------------------------------------------------===\n"
      "                      ... Pass execution timing report ...\n"
      "===-------------------------------------------------------------------------===\n";
  out += fmt::format("  Total Execution Time: {:.6f} seconds\n\n", total_time);
  out += "   -----Wall Time-----    -----Self Time-----   Count  Name\n";
  auto percent = [&](double t) { return total_time > 0 ? 100 * t / total_time : 0.0; };
  auto slowest_first = [](const Entry& parent) {
    std::vector<const Entry*> children;
    for (const Entry& child : parent.children) children.push_back(&child);
    std::ranges::sort(children, [](const Entry* a, const Entry* b) {
      return a->wall != b->wall ? a->wall > b->wall : a->name < b->name;
    });
    return children;
  };
  auto write = [&](auto& self, const Entry& entry, std::size_t depth) -> void {
    out += fmt::format("  {:10.6f} ({:5.1f}%)  {:10.6f} ({:5.1f}%)  {:6}  {}{}\n", entry.wall, percent(entry.wall),
                       entry.self(), percent(entry.self()), entry.count, std::string(2 * depth, ' '), entry.name);
    for (const Entry* child : slowest_first(entry)) self(self, *child, depth + 1);
  };
  for (const Entry* entry : slowest_first(root_)) write(write, *entry, 0);
  out += fmt::format("  {:10.6f} (100.0%)                                   Total\n", total_time);
  return out;
}

void TimePasses::before_pass(const PassInfo& info, IRView, const PassPlace&) {
  PassTimings::Entry& parent = open_.empty() ? timings_->root_ : *open_.back().entry;
  auto it = std::ranges::find(parent.children, info.name, &PassTimings::Entry::name);
  PassTimings::Entry& entry = it != parent.children.end() ? *it : parent.children.emplace_back(std::string(info.name));
  open_.push_back({&entry, Clock::now()});
}

void TimePasses::before_analysis(const AnalysisInfo&, std::string_view) {
  const auto now = Clock::now();
  const std::lock_guard lock(analysis_mutex_);
  analysis_starts_.emplace_back(std::this_thread::get_id(), now);
}

void TimePasses::after_analysis(const AnalysisInfo& info, std::string_view) {
  const auto now = Clock::now();
  const std::lock_guard lock(analysis_mutex_);
  const std::thread::id thread = std::this_thread::get_id();
  auto self = analysis_starts_.end();
  for (auto it = analysis_starts_.begin(); it != analysis_starts_.end(); ++it) {
    if (it->first == thread) self = it;  // the innermost on this thread
  }
  if (self == analysis_starts_.end()) return;
  const double seconds = std::chrono::duration<double>(now - self->second).count();
  analysis_starts_.erase(self);
  if (open_.empty()) return;  // asked for outside any pass
  PassTimings::Entry& parent = *open_.back().entry;
  const std::string name = std::string(info.name) + " (analysis)";
  auto it = std::ranges::find(parent.children, name, &PassTimings::Entry::name);
  PassTimings::Entry& entry = it != parent.children.end() ? *it : parent.children.emplace_back(name);
  entry.wall += seconds;
  ++entry.count;
}

void TimePasses::close() {
  if (open_.empty()) return;
  const Open open = open_.back();
  open_.pop_back();
  const double seconds = std::chrono::duration<double>(Clock::now() - open.start).count();
  open.entry->wall += seconds;
  ++open.entry->count;
  if (open_.empty()) timings_->root_.wall += seconds;
}

}  // namespace passline
