// Report (instruments.cppm): one HTML page about a run.
//
// What the page shows is recorded from the hooks as the run goes: a step for
// each pass and pipeline that ran (as plan_text prints a plan), the IR's text
// after each pass that changed it (by fingerprint, as --print-changed tells
// change), the diffs, and the events of an in-memory Trace for the timeline.
// The page is written when the context exits. Its markup depends only on the
// run's passes and IR; the times go in one JSON block that the page's script
// draws the timeline and the time column from, so that two runs of the same
// pipeline differ in that block alone. The script and the styles are inline:
// the page opens from file:// with no network.
module;
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json.hpp>
#include <fmt/format.h>
module passline.instruments;

namespace passline {

namespace {

using Clock = std::chrono::steady_clock;

/// `text` escaped for HTML text and attribute values.
std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::size_t line_count(std::string_view text) {
  return static_cast<std::size_t>(std::ranges::count(text, '\n')) + (text.empty() || text.back() == '\n' ? 0 : 1);
}

/// `text`, cut at a line end near `limit` bytes, with a note of what was cut.
std::string cut(std::string_view text, std::size_t limit, std::string_view whole) {
  if (text.size() <= limit) return std::string(text);
  std::size_t end = text.rfind('\n', limit);
  end = end == std::string_view::npos ? limit : end + 1;
  return fmt::format("{}... cut here: {} more lines not shown ({})\n", text.substr(0, end),
                     line_count(text.substr(end)), whole);
}

}  // namespace

/// What the report records of a run.
struct Report::State {
  struct Step {
    PlannedStep planned;
    std::string name;
    std::string path;  // the pipelines around it and the pass: O2/FoldConstant
    double start = 0, duration = 0;  // microseconds since the context was entered
    bool failed = false;
    bool changed = false;
    std::optional<std::size_t> functions_changed;  // unknown for an IR whose functions do not print alone
    std::size_t size = 0;                          // lines of IR after it
    std::string diff;
    std::vector<std::string> required, preserves;
  };
  Clock::time_point start = Clock::now();
  Trace trace;
  std::vector<Step> steps;
  std::vector<std::size_t> open;  // steps of the passes and pipelines running, innermost last
  bool started = false;
  std::optional<std::uint64_t> fingerprint;  // of the IR as last recorded
  std::string text;                          // the IR as last recorded, whole
  std::size_t lines = 0;                     // in `text`
  std::vector<IRView::FunctionText> functions;  // and function by function, when it prints them
  std::string input;                         // the IR before the first pass
  std::size_t diff_bytes = 0;                // of all diffs kept
  decltype(PassContext::statistics) statistics;
  std::shared_ptr<Diagnostics> diagnostics;
  std::optional<std::size_t> failed_step;
  std::string error, reproducer;
  std::optional<Reduction> reduction;

  double since_start(Clock::time_point t) const {
    return std::chrono::duration<double, std::micro>(t - start).count();
  }

  /// Keeps the IR as it stands: its text, its size, its functions' texts.
  void keep(IRView ir) {
    text = ir.print();
    lines = line_count(text);
    if (ir.prints_functions()) functions = ir.functions();
  }

  struct Recorded {
    bool changed = false;               // its text
    std::string diff;                   // from the IR kept before
    std::optional<std::size_t> functions;  // how many changed, when it can tell
    std::string note;                   // of changed functions left out of the diff
  };
  /// Keeps the IR as it stands, and tells how it differs from the IR kept
  /// before: it changed if its text did, or, for an IR with a fingerprint,
  /// if that did (`by_fingerprint`, as --print-changed tells change).
  /// Functions are diffed until the diff reaches `diff_limit`; the rest are
  /// counted in the note.
  Recorded record(IRView ir, std::size_t diff_limit, bool by_fingerprint) {
    const std::string before_text = std::move(text);
    const std::vector<IRView::FunctionText> before_functions = std::move(functions);
    keep(ir);
    Recorded out;
    out.changed = by_fingerprint || text != before_text;
    if (text == before_text) {
      if (ir.prints_functions()) out.functions = 0;
      return out;
    }
    if (!ir.prints_functions()) {
      out.diff = support::unified_diff(before_text, text, "before", "after");
      return out;
    }
    std::map<std::string_view, std::string_view> before;
    for (const auto& f : before_functions) before.emplace(f.name, f.text);
    std::size_t count = 0, left_out = 0;
    auto add = [&](std::string_view old, std::string_view now, const std::string& name, std::string_view after_label) {
      ++count;
      if (out.diff.size() >= diff_limit) {
        ++left_out;
        return;
      }
      out.diff += support::unified_diff(old, now, "before: " + name, after_label);
    };
    for (const auto& f : functions) {
      const auto found = before.find(f.name);
      const std::string_view old = found == before.end() ? std::string_view() : found->second;
      if (found != before.end()) before.erase(found);
      if (old != f.text) add(old, f.text, f.name, "after: " + f.name);
    }
    for (const auto& [name, old] : before) add(old, "", std::string(name), "after: (removed)");  // functions the pass removed
    if (left_out > 0) {
      out.note = fmt::format("... and {} more changed function{}, not shown (the whole diff: --print-changed=diff)\n",
                             left_out, left_out == 1 ? "" : "s");
    }
    out.functions = count;
    return out;
  }
};

Report::Report(std::filesystem::path file, Options options)
    : file_(std::move(file)), options_(std::move(options)), state_(std::make_unique<State>()) {}
Report::~Report() = default;

void Report::enter_context() {
  // The first diff sets libgit2 up, which takes milliseconds: done before the
  // clock starts, so that the timeline shows the passes and not that.
  (void)support::unified_diff("", "\n", "", "");
  state_ = std::make_unique<State>();
  state_->trace.enter_context();
  output_ = std::make_unique<support::OutputFile>(file_);
}

void Report::show_reduction(Reduction reduction) {
  if (!state_) state_ = std::make_unique<State>();
  state_->reduction = std::move(reduction);
}

void Report::exit_context() {
  if (!output_) return;
  const std::unique_ptr<support::OutputFile> output = std::move(output_);
  output->write(html());
  output->commit();
}

void Report::before_pass(const PassInfo& info, IRView ir, const PassPlace& place) {
  State& s = *state_;
  if (!s.started) {
    s.started = true;
    s.statistics = PassContext::current().statistics;
    s.diagnostics = PassContext::current().diagnostics;
    s.fingerprint = ir.fingerprint();
    s.keep(ir);
    s.input = s.text;
  }
  State::Step step;
  step.planned = PlannedStep{.pass = pass_text(info.name, place.options), .depth = place.depth,
                             .pipeline = place.pipeline, .reason = place.reason,
                             .required_by = std::string(place.required_by),
                             .invalidated_by = std::string(place.invalidated_by)};
  step.name = std::string(info.name);
  step.path = s.open.empty() ? step.name : s.steps[s.open.back()].path + "/" + step.name;
  step.start = s.since_start(Clock::now());
  step.size = s.lines;
  for (std::string_view name : info.required) step.required.emplace_back(name);
  for (std::string_view name : info.preserves) step.preserves.emplace_back(name);
  s.steps.push_back(std::move(step));
  s.open.push_back(s.steps.size() - 1);
  s.trace.before_pass(info, ir, place);
}

void Report::after_pass(const PassInfo& info, IRView ir, const PassPlace& place) {
  State& s = *state_;
  s.trace.after_pass(info, ir, place);
  if (s.open.empty()) return;
  State::Step& step = s.steps[s.open.back()];
  s.open.pop_back();
  step.duration = s.since_start(Clock::now()) - step.start;
  step.size = s.lines;
  if (place.pipeline) return;
  const std::optional<std::uint64_t> fingerprint = ir.fingerprint();
  if (fingerprint && fingerprint == s.fingerprint) return;
  s.fingerprint = fingerprint;
  State::Recorded recorded = s.record(ir, options_.diff_limit, fingerprint.has_value());
  step.size = s.lines;
  if (!recorded.changed) return;
  step.changed = true;
  step.functions_changed = recorded.functions;
  if (s.diff_bytes >= options_.page_diff_budget) {
    step.diff = fmt::format("(not shown: the page's {} MiB of diffs are spent; the whole diff: --print-changed=diff)\n",
                            options_.page_diff_budget >> 20);
  } else {
    step.diff = cut(recorded.diff, options_.diff_limit, "the whole diff: --print-changed=diff") + recorded.note;
  }
  s.diff_bytes += step.diff.size();
}

void Report::after_failed_pass(const PassInfo& info, IRView ir, const PassPlace& place, std::exception_ptr error) {
  State& s = *state_;
  s.trace.after_failed_pass(info, ir, place, error);
  if (s.open.empty()) return;
  const std::size_t index = s.open.back();
  s.open.pop_back();
  State::Step& step = s.steps[index];
  step.duration = s.since_start(Clock::now()) - step.start;
  step.failed = true;
  step.size = s.lines;
  if (s.failed_step) return;  // the innermost pass that failed, once
  s.failed_step = index;
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    s.error = e.what();
  } catch (...) {
    s.error = "an exception that is not a std::exception";
  }
  s.reproducer = Reproducer::first_line(options_.comment, options_.tool, info, place, options_.settings) +
                 detail::with_newline(ir.print());
}

void Report::before_function(const PassInfo& info, std::string_view function) { state_->trace.before_function(info, function); }
void Report::after_function(const PassInfo& info, std::string_view function) { state_->trace.after_function(info, function); }
void Report::before_analysis(const AnalysisInfo& info, std::string_view unit) { state_->trace.before_analysis(info, unit); }
void Report::after_analysis(const AnalysisInfo& info, std::string_view unit) { state_->trace.after_analysis(info, unit); }

namespace {

constexpr std::string_view style = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em auto; max-width: 1200px; padding: 0 1em; color: #1b1f24; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #d0d7de; }
pre { background: #f6f8fa; padding: .6em; overflow-x: auto; font: 12px/1.35 ui-monospace, monospace; }
table { border-collapse: collapse; } td, th { padding: .2em .7em; border-bottom: 1px solid #eaeef2; text-align: left; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.failed td { background: #ffebe9; } .note { color: #57606a; }
summary { cursor: pointer; } details { margin: .3em 0; }
.failure { border: 1px solid #cf222e; background: #fff5f5; padding: .5em 1em; }
#diagnostics .error { color: #cf222e; } #diagnostics .warning { color: #9a6700; }
.diff .add { color: #116329; background: #e6ffec; } .diff .del { color: #82071e; background: #ffebe9; } .diff .hunk { color: #8250df; }
#timeline svg text { font: 11px ui-monospace, monospace; }
)css";

/// Draws the timeline and fills the time column from the `times` block.
constexpr std::string_view script = R"js(
(function () {
  const times = JSON.parse(document.getElementById('times').textContent);
  const failed = document.body.dataset.failed === undefined ? -1 : Number(document.body.dataset.failed);
  const ms = us => (us / 1000).toFixed(us < 10000 ? 3 : 1);
  for (const cell of document.querySelectorAll('td[data-step]')) {
    const step = times.steps[Number(cell.dataset.step)];
    if (step) cell.textContent = ms(step.duration);
  }
  const svgns = 'http://www.w3.org/2000/svg';
  const make = (name, attrs, parent) => {
    const e = document.createElementNS(svgns, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (parent) parent.appendChild(e);
    return e;
  };
  // The axis runs from the first pass to the last event: what the context did before is not the run's.
  const starts = [...times.steps.map(s => s.start), ...times.events.map(e => e.start)];
  const origin = starts.length ? Math.min(...starts) : 0;
  const end = Math.max(origin + 1, ...times.steps.map(s => s.start + s.duration), ...times.events.map(e => e.start + e.duration));
  const width = 1100, left = 90, row = 16;
  const depths = Math.max(1, ...times.steps.map(s => s.depth + 1));
  const threads = Math.max(0, ...times.events.map(e => e.thread + 1));
  const height = (depths + threads) * row + 30;
  const svg = make('svg', {width: width + left + 10, height: height, role: 'img', 'aria-label': 'timeline'});
  const x = t => left + ((t - origin) / (end - origin)) * width;
  const bar = (y, start, duration, label, title, colour) => {
    const g = make('g', {class: 'bar'}, svg);
    make('rect', {x: x(start), y: y, width: Math.max(1, x(start + duration) - x(start)), height: row - 2, fill: colour}, g);
    make('title', {}, g).textContent = title;
    if (x(start + duration) - x(start) > 7 * label.length) {
      const t = make('text', {x: x(start) + 3, y: y + row - 5}, g);
      t.textContent = label;
    }
  };
  make('text', {x: 0, y: row - 4}, svg).textContent = 'passes';
  times.steps.forEach((s, i) => {
    const colour = i === failed ? '#ff8182' : s.pipeline ? '#d0d7de' : '#9ecbff';
    bar(s.depth * row, s.start, s.duration, s.name, `${s.name}: ${ms(s.duration)} ms`, colour);
  });
  for (let t = 0; t < threads; ++t) make('text', {x: 0, y: (depths + t + 1) * row - 4}, svg).textContent = `thread ${t}`;
  for (const e of times.events) {
    const colour = e.category === 'analysis' ? '#ffd33d' : '#85e89d';
    const title = e.category === 'analysis' ? `${e.name} (analysis) of ${e.pass}` : `${e.pass} on ${e.name}`;
    bar((depths + e.thread) * row, e.start, e.duration, e.name, `${title}: ${ms(e.duration)} ms`, colour);
  }
  make('text', {x: left, y: height - 4}, svg).textContent = '0 ms';
  const last = make('text', {x: left + width, y: height - 4, 'text-anchor': 'end'}, svg);
  last.textContent = `${ms(end - origin)} ms`;
  document.getElementById('timeline-chart').appendChild(svg);
})();
)js";

/// A unified diff as HTML, its lines coloured.
std::string diff_html(std::string_view diff) {
  std::string out;
  std::size_t at = 0;
  while (at < diff.size()) {
    std::size_t end = diff.find('\n', at);
    end = end == std::string_view::npos ? diff.size() : end + 1;
    const std::string_view line = diff.substr(at, end - at);
    const bool header = line.starts_with("---") || line.starts_with("+++");
    const char* kind = header ? nullptr : line.starts_with('+') ? "add" : line.starts_with('-') ? "del"
                                                                  : line.starts_with("@@") ? "hunk" : nullptr;
    out += kind ? fmt::format("<span class=\"{}\">{}</span>", kind, escape(line)) : escape(line);
    at = end;
  }
  return out;
}

/// The IR's size after each pass, as a line over the steps.
std::string size_chart(const std::vector<std::size_t>& sizes) {
  if (sizes.empty()) return {};
  const std::size_t top = std::max<std::size_t>(1, *std::ranges::max_element(sizes));
  const int width = 600, height = 80;
  std::string points;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double x = sizes.size() == 1 ? 0 : static_cast<double>(i) * width / static_cast<double>(sizes.size() - 1);
    const double y = height - static_cast<double>(sizes[i]) * height / static_cast<double>(top);
    points += fmt::format("{}{:.1f},{:.1f}", points.empty() ? "" : " ", x + 5, y + 5);
  }
  return fmt::format(
      "<svg id=\"size-chart\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"IR size after each pass\">"
      "<polyline fill=\"none\" stroke=\"#0969da\" stroke-width=\"2\" points=\"{}\"/>"
      "<text x=\"8\" y=\"14\" font-size=\"11\">{} lines</text></svg>\n",
      width + 10, height + 10, points, top);
}

/// A pass of the dependency graph.
struct GraphNode {
  std::string name;
  std::vector<std::string> required, preserves;
};

/// The passes that ran, each once, with an arc from each pass to the passes
/// that require it (left) and from each pass to those whose work it keeps
/// (right, dashed).
std::string dependency_graph(const std::vector<GraphNode>& graph) {
  std::vector<const GraphNode*> passes;
  for (const GraphNode& node : graph) passes.push_back(&node);
  const auto index = [&](std::string_view name) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < passes.size(); ++i) {
      if (passes[i]->name == name) return i;
    }
    return std::nullopt;
  };
  const int row = 28, box = 200, mid = 300;
  std::string arcs, nodes;
  const auto y = [&](std::size_t i) { return static_cast<int>(i) * row + row / 2 + 4; };
  for (std::size_t i = 0; i < passes.size(); ++i) {
    nodes += fmt::format("<g class=\"node\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"4\" fill=\"#ddf4ff\" "
                         "stroke=\"#0969da\"/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"12\">{}</text></g>",
                         mid - box / 2, y(i) - 10, box, 20, mid, y(i) + 4, escape(passes[i]->name));
    for (const std::string& required : passes[i]->required) {
      if (const auto from = index(required)) {
        const int bend = mid - box / 2 - 12 * static_cast<int>(1 + (i > *from ? i - *from : *from - i));
        arcs += fmt::format("<path class=\"requires\" d=\"M{} {} C{} {} {} {} {} {}\" fill=\"none\" stroke=\"#0969da\" "
                            "marker-end=\"url(#arrow)\"><title>{} requires {}</title></path>",
                            mid - box / 2, y(*from), bend, y(*from), bend, y(i), mid - box / 2, y(i),
                            escape(passes[i]->name), escape(required));
      }
    }
    for (const std::string& kept : passes[i]->preserves) {
      const auto to = index(kept);
      if (!to || *to == i) continue;
      const int bend = mid + box / 2 + 12 * static_cast<int>(1 + (i > *to ? i - *to : *to - i));
      arcs += fmt::format("<path class=\"preserves\" d=\"M{} {} C{} {} {} {} {} {}\" fill=\"none\" stroke=\"#8250df\" "
                          "stroke-dasharray=\"4 3\"><title>{} preserves {}</title></path>",
                          mid + box / 2, y(i), bend, y(i), bend, y(*to), mid + box / 2, y(*to), escape(passes[i]->name),
                          escape(kept));
    }
  }
  return fmt::format(
      "<svg id=\"pass-graph\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"pass dependencies\">"
      "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" "
      "orient=\"auto-start-reverse\"><path d=\"M0 0 L10 5 L0 10 z\" fill=\"#0969da\"/></marker></defs>{}{}</svg>\n"
      "<p class=\"note\">Left, solid: required by (the arrow points at the pass that requires). "
      "Right, dashed: preserves (a pass keeps the other's work valid when it changes the IR).</p>\n",
      2 * mid, static_cast<int>(passes.size()) * row + 10, arcs, nodes);
}

/// `value` as JSON that no text inside it can end or change a `<script>`
/// element: `<`, `>` and `&` (which make `</script>` and `<!--`), and U+2028
/// and U+2029 (line ends to older JavaScript), written as `\u` escapes, which
/// JSON reads back as the same characters. They occur only within strings.
std::string script_json(const boost::json::value& value) {
  const std::string text = boost::json::serialize(value);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<' || c == '>' || c == '&') {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
    } else if (c == '\xe2' && i + 2 < text.size() && text[i + 1] == '\x80' && (text[i + 2] == '\xa8' || text[i + 2] == '\xa9')) {
      out += text[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string Report::html() const {
  const State& s = *state_;
  std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  page += "<title>passline report</title>\n<style>" + std::string(style) + "</style>\n</head>\n";
  page += s.failed_step ? fmt::format("<body data-failed=\"{}\">\n", *s.failed_step) : std::string("<body>\n");
  std::size_t passes = 0, changed = 0;
  for (const auto& step : s.steps) {
    passes += step.planned.pipeline ? 0 : 1;
    changed += step.changed ? 1 : 0;
  }
  if (s.reduction && s.steps.empty()) {
    const Reduction& r = *s.reduction;
    page += fmt::format("<h1>passline report</h1>\n<p id=\"summary\">A reduction of a failing run{}.</p>\n",
                        r.interrupted ? ", interrupted: the best found so far" : "");
  } else {
    page += fmt::format("<h1>passline report</h1>\n<p id=\"summary\">{} passes ran; {} changed the IR. {}</p>\n",
                        passes, changed, s.failed_step ? "The run failed." : "The run succeeded.");
  }
  if (s.reduction) {
    const Reduction& r = *s.reduction;
    page += "<section id=\"reduction\">\n<h2>Reduction</h2>\n";
    page += fmt::format("<p>What still fails: <strong id=\"symptom\">{}</strong>. Replay the reproducer: "
                        "<code id=\"replay\">{}</code></p>\n",
                        escape(r.symptom), escape(r.replay));
    page += "<table id=\"reduction-steps\">\n<tr><th>step</th><th class=\"num\">passes</th><th class=\"num\">"
            "operations</th><th class=\"num\">runs</th><th class=\"num\">seconds</th></tr>\n";
    for (const Reduction::Step& step : r.steps) {
      page += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                          "<td class=\"num\">{:.1f}</td></tr>\n",
                          escape(step.name), step.passes, step.size, step.runs, step.seconds);
    }
    page += "</table>\n";
    page += "<h3>The pipeline left</h3>\n<pre id=\"reduced-pipeline\">" + escape(r.pipeline) + "</pre>\n";
    page += "<h3>The reproducer</h3>\n<pre id=\"reduced-reproducer\">" +
            escape(cut(r.reproducer, options_.ir_limit, "the whole reproducer: the file --reduce wrote")) +
            "</pre>\n</section>\n";
    if (s.steps.empty()) return page + "</body>\n</html>\n";
  }

  if (s.failed_step) {
    const auto& step = s.steps[*s.failed_step];
    page += "<section id=\"failure\" class=\"failure\">\n<h2>Failure</h2>\n";
    page += fmt::format("<p>Pass <strong id=\"failed-pass\">{}</strong> (at {}) failed:</p>\n<pre id=\"error\">{}</pre>\n",
                        escape(step.name), escape(step.path), escape(s.error));
    if (options_.reproducer_file.empty()) {
      page += fmt::format("<p>Replay it: save the reproducer below as a file, say <code>repro</code>, then run "
                          "<code id=\"replay\">{} --run-reproducer repro</code>.</p>\n", escape(options_.tool));
    } else {
      page += fmt::format("<p>Replay it: <code id=\"replay\">{} --run-reproducer {}</code></p>\n", escape(options_.tool),
                          escape(support::shell_word(options_.reproducer_file)));
    }
    page += "<details><summary>The reproducer: the IR the pass failed on</summary><pre id=\"reproducer\">" +
            escape(cut(s.reproducer, options_.ir_limit, "the whole IR: --reproducer=FILE")) + "</pre></details>\n</section>\n";
  }

  const std::vector<Diagnostic> diagnostics = s.diagnostics ? s.diagnostics->entries() : std::vector<Diagnostic>{};
  if (!diagnostics.empty()) {
    page += "<section id=\"diagnostics\">\n<h2>Diagnostics</h2>\n<pre>";
    for (const Diagnostic& d : diagnostics) {
      page += fmt::format("<span class=\"{0}\">{1}{2}{0}: {3}</span>\n{4}", d.severity_name(), escape(d.location),
                          d.location.empty() ? "" : ": ", escape(d.message),
                          d.snippet.empty() ? std::string() : escape(detail::with_newline(d.snippet)));
    }
    page += "</pre>\n</section>\n";
  }

  std::vector<PlannedStep> plan;
  for (const auto& step : s.steps) plan.push_back(step.planned);
  page += "<section id=\"plan\">\n<h2>Plan</h2>\n<pre>" + escape(plan_text(plan)) + "</pre>\n</section>\n";
  page += "<section id=\"timeline\">\n<h2>Timeline</h2>\n<div id=\"timeline-chart\"></div>\n"
          "<p class=\"note\">Passes and pipelines on top, nested; then each thread's functions (green) and "
          "analyses (yellow). Hover over a bar for its name and time.</p>\n</section>\n";

  page += "<section id=\"passes\">\n<h2>Passes</h2>\n<table>\n<tr><th class=\"num\">#</th><th>pass</th>"
          "<th class=\"num\">time (ms)</th><th class=\"num\">functions changed</th>"
          "<th class=\"num\">IR lines after</th><th>statistics</th></tr>\n";
  using Counter = decltype(PassContext::statistics)::element_type::Counter;
  const std::vector<Counter> counters = s.statistics ? s.statistics->counters() : std::vector<Counter>{};
  std::vector<std::size_t> sizes;
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const auto& step = s.steps[i];
    if (step.planned.pipeline) continue;
    sizes.push_back(step.size);
    std::string stats;
    for (const auto& counter : counters) {
      if (counter.pass == step.name) stats += fmt::format("{}{} {}", stats.empty() ? "" : ", ", counter.value, escape(counter.name));
    }
    const std::string functions = step.functions_changed ? std::to_string(*step.functions_changed)
                                  : step.changed         ? std::string("changed")
                                                         : std::string("0");
    page += fmt::format("<tr{}><td class=\"num\">{}</td><td>{}</td><td class=\"num\" data-step=\"{}\"></td>"
                        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
                        step.failed ? " class=\"failed\"" : "", i + 1, escape(step.path), i,
                        step.failed ? "failed" : functions, step.size, stats);
  }
  page += "</table>\n<h3>IR size after each pass</h3>\n" + size_chart(sizes) + "</section>\n";

  page += "<section id=\"changes\">\n<h2>Changes</h2>\n";
  if (changed == 0) page += "<p>No pass changed the IR.</p>\n";
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const auto& step = s.steps[i];
    if (!step.changed) continue;
    const std::string what = step.functions_changed
                                 ? fmt::format("{} function{} changed", *step.functions_changed,
                                               *step.functions_changed == 1 ? "" : "s")
                                 : std::string("the IR changed");
    page += fmt::format("<details class=\"diff\"><summary>{}. {}: {}</summary><pre>{}</pre></details>\n", i + 1,
                        escape(step.path), what, diff_html(step.diff));
  }
  page += "<details id=\"ir-before\"><summary>The IR before the first pass</summary><pre>" +
          escape(cut(s.input, options_.ir_limit, "the whole IR: --print-before-all")) + "</pre></details>\n";
  page += "<details id=\"ir-after\"><summary>The IR after the last pass</summary><pre>" +
          escape(cut(s.text, options_.ir_limit, "the whole IR: the run's output")) + "</pre></details>\n</section>\n";

  std::vector<GraphNode> nodes;
  for (const auto& step : s.steps) {
    if (step.planned.pipeline || std::ranges::any_of(nodes, [&](const GraphNode& n) { return n.name == step.name; })) continue;
    nodes.push_back({step.name, step.required, step.preserves});
  }
  page += "<section id=\"graph\">\n<h2>Pass dependencies</h2>\n" + dependency_graph(nodes) + "</section>\n";

  boost::json::array steps, events;
  for (const auto& step : s.steps) {
    steps.push_back(boost::json::object{{"name", step.name}, {"depth", step.planned.depth},
                                        {"pipeline", step.planned.pipeline}, {"start", step.start},
                                        {"duration", step.duration}});
  }
  for (const Trace::Event& event : s.trace.events()) {
    if (event.category != "function" && event.category != "analysis") continue;
    events.push_back(boost::json::object{{"name", event.name}, {"category", event.category}, {"pass", event.pass},
                                         {"start", event.start}, {"duration", event.duration}, {"thread", event.thread}});
  }
  page += "<script type=\"application/json\" id=\"times\">" +
          script_json(boost::json::object{{"steps", std::move(steps)}, {"events", std::move(events)}}) + "</script>\n";
  page += "<script>" + std::string(script) + "</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace passline
