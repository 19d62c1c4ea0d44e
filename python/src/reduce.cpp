// passline.reduce from Python: a failing run of the reference IR reduced by
// passline.reduce, judged by a Python predicate in this process (the
// package's judge by command is one: passline/__init__.py runs the command).
#include "bindings.h"

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

import passline;
import passline.support;
import passline.ir;
import passline.ir.reduce;
import passline.pipelines;
import passline.reduce;

namespace py = pybind11;

namespace passline::python {

namespace {

using Module = passline::ir::Module;

/// The passes of `text` as the current context plans them, required ones written out.
std::vector<passline::reduce::Step> planned(const std::string& text) {
  return passline::reduce::planned_steps(passline::parse_pipeline(text, passline::pipelines::registry()),
                                         passline::PassContext::current());
}

/// A reproducer as passline-opt writes it: its replay line, then the module.
std::string reproducer(const std::string& pipeline, const Module& module) {
  std::string text = "// passline-opt reproducer: " + passline::support::shell_word("--passes=" + pipeline) + "\n" +
                     passline::ir::print(module);
  if (!text.ends_with('\n')) text += '\n';
  return text;
}

}  // namespace

void bind_reduce(py::module_& m) {
  m.def("_reproducer", &reproducer, py::arg("pipeline"), py::arg("module"));
  m.def(
      "_reduce",
      [](const Module& module, const std::string& pipeline, const py::object& still_fails, const py::object& stopped,
         const std::vector<std::string>& steps, bool quiet) {
        namespace rd = passline::reduce;
        const rd::Steps taken = rd::steps_named(steps);  // before any run: a name that is not a step's is a ValueError
        auto judge = [&](const std::string& candidate_pipeline, const Module& candidate) {
          return still_fails(candidate_pipeline, candidate).cast<bool>();
        };
        const std::vector<rd::Step> original = planned(pipeline);
        if (!judge(rd::pipeline_text(original), module)) throw passline::PipelineError("the run does not fail: nothing to reduce");
        // Ctrl-C ends the reduction with its best so far (the KeyboardInterrupt is not raised);
        // so does the judge, saying so (`stopped`).
        bool interrupted = false;
        const rd::Stop stop = [&] {
          if (!interrupted && PyErr_CheckSignals() != 0) {
            PyErr_Clear();
            interrupted = true;
          }
          return interrupted || stopped().cast<bool>();
        };
        rd::Progress progress("passline.reduce", quiet);
        rd::Reduced<Module> reduced = rd::reduce<Module>(original, module, rd::judged_by<Module>(judge), progress,
                                                         {.stop = stop, .steps = taken});
        py::list records;
        for (const rd::Record& r : reduced.records) {
          records.append(py::dict(py::arg("step") = r.step, py::arg("passes") = r.passes, py::arg("size") = r.size,
                                  py::arg("runs") = r.runs, py::arg("seconds") = r.seconds));
        }
        return py::dict(py::arg("pipeline") = reduced.pipeline, py::arg("module") = reduced.ir,
                        py::arg("records") = records, py::arg("runs") = reduced.runs,
                        py::arg("interrupted") = reduced.interrupted,
                        py::arg("reproducer") = reproducer(reduced.pipeline, reduced.ir));
      },
      py::arg("module"), py::arg("pipeline"), py::arg("still_fails"), py::arg("stopped"), py::arg("steps"),
      py::arg("quiet"));
}

}  // namespace passline::python
