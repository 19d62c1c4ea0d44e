// passline's C++ instruments from Python. Each is the C++ instrument itself,
// which PassContext(instruments=[...]) takes as it is; what one prints goes
// to a Python file (sys.stderr unless given), so that pytest's capture and
// notebooks see it.
#include "bindings.h"

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
import passline;
import passline.instruments;
import passline.ir;
import passline.ir.passes;  // ir::verify_each
import passline.pipelines;

namespace py = pybind11;

namespace passline::python {
namespace {

/// Writes to `file`'s write(), or to sys.stderr as it is at the time of the
/// write when `file` is None; from any thread, taking the GIL.
Output python_output(py::object file) {
  std::shared_ptr<py::object> held = hold(std::move(file));
  return [held](std::string_view text) {
    py::gil_scoped_acquire gil;
    calling_python([&] {
      py::object target = held->is_none() ? py::module_::import("sys").attr("stderr") : *held;
      py::object piece = py::reinterpret_steal<py::object>(
          PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace"));
      if (!piece) throw py::error_already_set();
      target.attr("write")(piece);
    });
  };
}

PrintChanged::Mode mode_named(const std::string& mode) {
  if (mode == "full") return PrintChanged::Mode::full;
  if (mode == "quiet") return PrintChanged::Mode::quiet;
  if (mode == "diff") return PrintChanged::Mode::diff;
  throw py::value_error("PrintChanged mode is 'full', 'quiet' or 'diff', not '" + mode + "'");
}

py::dict timing_entry(const PassTimings::Entry& entry) {
  py::list children;
  for (const PassTimings::Entry& child : entry.children) children.append(timing_entry(child));
  py::dict out;
  out["name"] = entry.name;
  out["wall"] = entry.wall;
  out["self"] = entry.self();
  out["count"] = entry.count;
  out["children"] = children;
  return out;
}

}  // namespace

void bind_instruments(py::module_& m) {
  py::class_<Instrument, std::shared_ptr<Instrument>>(
      m, "Instrument",
      "The base of passline's C++ instruments, and of your own: a subclass defines any of TVM's hooks "
      "(enter_pass_ctx, exit_pass_ctx, should_run, run_before_pass, run_after_pass) and passline's "
      "run_after_failed_pass.")
      .def(py::init<>());

  py::class_<TimePasses, Instrument, std::shared_ptr<TimePasses>>(
      m, "PassTimingInstrument", "Times every pass and pipeline (`--time-passes`), nested as they ran.")
      .def(py::init<>())
      .def("render", [](const TimePasses& t) {
             return t.timings()->top().empty() ? std::string() : t.timings()->report();
           }, "The report as text, slowest first at each level; empty if nothing ran.")
      .def("timings", [](const TimePasses& t) {
             py::list out;
             for (const PassTimings::Entry& entry : t.timings()->top()) out.append(timing_entry(entry));
             return out;
           }, "The passes at the top, each a dict: name, wall and self (seconds), count, children.");

  py::class_<PrintIR, Instrument, std::shared_ptr<PrintIR>>(
      m, "PrintIR", "Prints the IR before or after the passes named, or every pass.")
      .def(py::init([](std::vector<std::string> before, std::vector<std::string> after, bool before_all,
                       bool after_all, py::object file) {
             return std::make_shared<PrintIR>(PrintIR::Options{.before = std::move(before),
                                                               .after = std::move(after),
                                                               .before_all = before_all,
                                                               .after_all = after_all},
                                              python_output(std::move(file)));
           }),
           py::kw_only(), py::arg("before") = std::vector<std::string>{},
           py::arg("after") = std::vector<std::string>{}, py::arg("before_all") = false,
           py::arg("after_all") = false, py::arg("file") = py::none());

  py::class_<PrintChanged, Instrument, std::shared_ptr<PrintChanged>>(
      m, "PrintChanged", "The IR at the start, then after each pass that changed it (`--print-changed`).")
      .def(py::init([](const std::string& mode, py::object file) {
             return std::make_shared<PrintChanged>(mode_named(mode), python_output(std::move(file)));
           }),
           py::arg("mode") = "full", py::arg("file") = py::none());

  py::class_<Trace, Instrument, std::shared_ptr<Trace>>(
      m, "Trace", "A Chrome trace of passes, functions and analyses, kept in memory or written to a file.")
      .def(py::init([](const py::object& path) {
             if (path.is_none()) return std::make_shared<Trace>();
             return std::make_shared<Trace>(path.cast<std::filesystem::path>());
           }),
           py::arg("path") = py::none())
      .def("json", &Trace::json, "The trace as Chrome trace-event JSON.");
  py::class_<Report, Instrument, std::shared_ptr<Report>>(
      m, "Report",
      "One HTML page about a run, written to `path` when the context exits: the plan, a timeline, each pass's "
      "time and effect, each change as a diff, the pass graph, and a failure with its replay.")
      .def(py::init([](const std::filesystem::path& path) { return std::make_shared<Report>(path); }), py::arg("path"))
      .def("html", &Report::html, "The page as it stands.");

  py::class_<DumpDir, Instrument, std::shared_ptr<DumpDir>>(
      m, "DumpDir", "The input, then the IR after each pass, as numbered files in a directory.")
      .def(py::init<std::filesystem::path, std::string>(), py::arg("directory"), py::arg("extension") = ".ir");

  py::class_<VerifyEach, Instrument, std::shared_ptr<VerifyEach>>(
      m, "VerifyEach", "Verifies the IR after each pass; a broken IR raises, naming the pass.")
      .def(py::init([] { return ir::verify_each(); }));

  using VerifyPreserved = passline::VerifyPreserved<ir::Module>;
  py::class_<VerifyPreserved, Instrument, std::shared_ptr<VerifyPreserved>>(
      m, "VerifyPreserved",
      "After each pass that changed the IR, checks the analyses and passes it claims to preserve against a fresh "
      "computation; a false claim raises VerificationError, naming the pass.")
      .def(py::init([] { return std::make_shared<VerifyPreserved>(&passline::pipelines::registry()); }));

  py::class_<OptBisect, Instrument, std::shared_ptr<OptBisect>>(
      m, "OptBisect", "Runs only the first `limit` optional passes, and says which ran (`--opt-bisect-limit`).")
      .def(py::init([](std::int64_t limit, py::object file) {
             return std::make_shared<OptBisect>(limit, python_output(std::move(file)));
           }),
           py::arg("limit"), py::arg("file") = py::none());
}

}  // namespace passline::python
