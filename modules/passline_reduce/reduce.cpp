// passline.reduce's functions that are not templates (reduce.cppm).
module;

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

module passline.reduce;

namespace passline::reduce {

// -- Pipelines as trees ----------------------------------------------------------

namespace {

void collect(const std::vector<Step>& steps, std::vector<std::string>& out) {
  for (const Step& step : steps) {
    if (step.nested) {
      collect(step.inner, out);
    } else {
      out.push_back(step.text);
    }
  }
}

/// The steps with the passes `keep` keeps from `index` on; a nest none of
/// whose passes is kept goes with them.
std::vector<Step> kept(const std::vector<Step>& steps, const std::vector<bool>& keep, std::size_t& index) {
  std::vector<Step> out;
  for (const Step& step : steps) {
    if (step.nested) {
      std::vector<Step> inner = kept(step.inner, keep, index);
      if (!inner.empty()) out.push_back(Step{.text = step.text, .nested = true, .inner = std::move(inner)});
    } else if (keep[index++]) {
      out.push_back(step);
    }
  }
  return out;
}

}  // namespace

std::vector<Step> kept_steps(const std::vector<Step>& steps, const std::vector<bool>& keep) {
  if (keep.size() != pass_count(steps)) throw std::invalid_argument("kept_steps: one flag per pass");
  std::size_t index = 0;
  return kept(steps, keep, index);
}

std::string pipeline_text(const std::vector<Step>& steps) {
  std::string text;
  for (const Step& step : steps) {
    if (!text.empty()) text += ',';
    text += step.nested ? step.text + "(" + pipeline_text(step.inner) + ")" : step.text;
  }
  return text;
}

std::size_t pass_count(const std::vector<Step>& steps) { return pass_texts(steps).size(); }

std::vector<std::string> pass_texts(const std::vector<Step>& steps) {
  std::vector<std::string> out;
  collect(steps, out);
  return out;
}


// -- Delta debugging -----------------------------------------------------------

std::vector<bool> delta(std::vector<bool> keep, const std::function<bool(const std::vector<bool>&)>& still_fails,
                        const std::function<bool()>& stop, Order order) {
  auto kept = [&] {
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < keep.size(); ++i) {
      if (keep[i]) at.push_back(i);
    }
    return at;
  };
  std::size_t chunk = std::max<std::size_t>(1, (kept().size() + 1) / 2);
  for (;;) {
    bool removed = false;
    const std::vector<std::size_t> items = kept();
    const std::size_t chunks = (items.size() + chunk - 1) / chunk;
    for (std::size_t k = 0; k < chunks && !stop(); ++k) {
      const std::size_t begin = (order == Order::first_to_last ? k : chunks - 1 - k) * chunk;
      std::vector<bool> candidate = keep;
      for (std::size_t i = begin; i < std::min(items.size(), begin + chunk); ++i) candidate[items[i]] = false;
      if (still_fails(candidate)) {
        keep = std::move(candidate);
        removed = true;
      }
    }
    if (stop()) break;
    if (chunk > 1) {
      chunk = (chunk + 1) / 2;
      continue;
    }
    if (!removed) break;  // one at a time, and nothing went: done
  }
  return keep;
}

// -- The reducer ---------------------------------------------------------------

Steps steps_named(const std::vector<std::string>& names) {
  if (names.empty()) return Steps{};
  for (const std::string& name : names) {
    if (std::ranges::find(step_names, name) == step_names.end()) {
      throw std::invalid_argument(fmt::format("steps are of '{}', not '{}'", fmt::join(step_names, "', '"), name));
    }
  }
  auto asked = [&](std::string_view step) { return std::ranges::find(names, step) != names.end(); };
  return Steps{.pipeline = asked("pipeline"), .functions = asked("functions"), .inside = asked("inside")};
}

// -- Progress ------------------------------------------------------------------

Progress::Progress(std::string tool, bool quiet)
    : tool_(std::move(tool)), quiet_(quiet), terminal_(::isatty(STDERR_FILENO) == 1) {}

void Progress::step(const Record& r, bool done) {
  if (quiet_ || (!done && !terminal_)) return;
  const std::string line = fmt::format("{}: reduce: {:<18} {:>3} passes, {:>7} operations, {:>5} runs, {:7.1f} s",
                                       tool_, r.step, r.passes, r.size, r.runs, r.seconds);
  if (terminal_) {
    fmt::print(stderr, "\r\033[K{}{}", line, done ? "\n" : "");
  } else {
    fmt::print(stderr, "{}\n", line);
  }
  open_ = terminal_ && !done;
  std::fflush(stderr);
}

void Progress::end() {
  if (open_) fmt::print(stderr, "\n");
  open_ = false;
}

}  // namespace passline::reduce
