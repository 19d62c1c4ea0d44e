// Trace (instruments.cppm): Chrome trace events, written with Boost.JSON.
module;
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <boost/json.hpp>
#include <fmt/format.h>
module passline.instruments;

namespace passline {

void Trace::enter_context() {
  const std::lock_guard lock(mutex_);
  start_ = Clock::now();
  done_.clear();
  passes_.clear();
  functions_.clear();
  functions_.emplace_back(std::this_thread::get_id(), std::vector<Open>{});
  if (file_.empty()) return;
  output_ = std::make_unique<support::OutputFile>(file_);
}

void Trace::exit_context() {
  if (!output_) return;
  const std::unique_ptr<support::OutputFile> output = std::move(output_);
  output->write(json());
  output->commit();
}

double Trace::since_start(Clock::time_point t) const {
  return std::chrono::duration<double, std::micro>(t - start_).count();
}

std::size_t Trace::thread_number() {
  const std::thread::id self = std::this_thread::get_id();
  for (std::size_t i = 0; i < functions_.size(); ++i) {
    if (functions_[i].first == self) return i;
  }
  functions_.emplace_back(self, std::vector<Open>{});
  return functions_.size() - 1;
}

void Trace::before_pass(const PassInfo& info, IRView, const PassPlace& place) {
  const std::lock_guard lock(mutex_);
  Event event{.name = std::string(info.name),
              .category = place.pipeline ? "pipeline" : "pass",
              .pass = {},
              .thread = thread_number()};
  passes_.push_back({std::move(event), Clock::now()});
}

void Trace::close(std::vector<Open>& open, Clock::time_point end) {
  if (open.empty()) return;
  Open innermost = std::move(open.back());
  open.pop_back();
  innermost.event.start = since_start(innermost.start);
  innermost.event.duration = std::chrono::duration<double, std::micro>(end - innermost.start).count();
  done_.push_back(std::move(innermost.event));
}

void Trace::close_pass() {
  const auto end = Clock::now();
  const std::lock_guard lock(mutex_);
  close(passes_, end);
}

void Trace::before_function(const PassInfo& info, std::string_view function) {
  const auto now = Clock::now();
  const std::lock_guard lock(mutex_);
  const std::size_t thread = thread_number();
  Event event{.name = std::string(function), .category = "function", .pass = std::string(info.name), .thread = thread};
  functions_[thread].second.push_back({std::move(event), now});
}

void Trace::after_function(const PassInfo&, std::string_view) {
  const auto end = Clock::now();
  const std::lock_guard lock(mutex_);
  close(functions_[thread_number()].second, end);
}

void Trace::before_analysis(const AnalysisInfo& info, std::string_view unit) {
  const auto now = Clock::now();
  const std::lock_guard lock(mutex_);
  const std::size_t thread = thread_number();
  Event event{.name = std::string(info.name), .category = "analysis", .pass = std::string(unit), .thread = thread};
  functions_[thread].second.push_back({std::move(event), now});
}

void Trace::after_analysis(const AnalysisInfo&, std::string_view) {
  const auto end = Clock::now();
  const std::lock_guard lock(mutex_);
  close(functions_[thread_number()].second, end);
}

std::vector<Trace::Event> Trace::events() const {
  std::vector<Event> events;
  {
    const std::lock_guard lock(mutex_);
    events = done_;
  }
  std::ranges::sort(events, [](const Event& a, const Event& b) {
    return std::tie(a.start, a.thread, a.name) < std::tie(b.start, b.thread, b.name);
  });
  return events;
}

std::string Trace::json() const {
  namespace json = boost::json;
  json::array trace_events;
  std::size_t threads = 0;
  {
    const std::lock_guard lock(mutex_);
    threads = functions_.size();
  }
  for (std::size_t t = 0; t < threads; ++t) {
    trace_events.push_back(json::object{
        {"name", "thread_name"},
        {"ph", "M"},
        {"pid", 1},
        {"tid", t},
        {"args", json::object{{"name", t == 0 ? std::string("thread 0 (runs the pipeline)") : fmt::format("thread {}", t)}}}});
  }
  for (const Event& event : events()) {
    const bool function = event.category == "function";
    const bool on_function = event.category == "analysis" && !event.pass.empty();
    std::string name = function      ? fmt::format("{} on {}", event.pass, event.name)
                       : on_function ? fmt::format("{} on {}", event.name, event.pass)
                                     : event.name;
    json::object out{{"name", std::move(name)},
                     {"cat", event.category},
                     {"ph", "X"},
                     {"ts", event.start},
                     {"dur", event.duration},
                     {"pid", 1},
                     {"tid", event.thread}};
    if (function) out["args"] = json::object{{"pass", event.pass}, {"function", event.name}};
    trace_events.push_back(std::move(out));
  }
  return json::serialize(json::object{{"traceEvents", std::move(trace_events)}, {"displayTimeUnit", "ms"}}) + "\n";
}

}  // namespace passline
