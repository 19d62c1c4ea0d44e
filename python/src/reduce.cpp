// passline.reduce from Python: a failing run of the reference IR reduced by
// passline.reduce, judged by a Python predicate in this process or by a
// command in a child process (as passline-opt --reduce=command judges).
#include "bindings.h"

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include <unistd.h>
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
std::string expand(const std::string& text) {
  return passline::reduce::planned_passes(passline::parse_pipeline(text, passline::pipelines::registry()),
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
  m.def(
      "_reduce",
      [](const Module& module, const std::string& pipeline, const py::object& still_fails, const std::string& command,
         double timeout, const std::vector<std::string>& steps, bool quiet) {
        namespace rd = passline::reduce;
        const rd::Steps taken = rd::steps_named(steps);  // before any run: a name that is not a step's is a ValueError
        const rd::TemporaryDirectory scratch("passline-reduce");
        const std::filesystem::path try_file = scratch.path() / "try.ir";
        auto judge = [&](const std::string& candidate_pipeline, const Module& candidate) -> bool {
          if (!still_fails.is_none()) return still_fails(candidate_pipeline, candidate).cast<bool>();
          {
            passline::support::OutputFile file(try_file.string());
            file.write(reproducer(candidate_pipeline, candidate));
            file.commit();
          }
          const rd::Exit exit = rd::run_child({"/bin/sh", "-c", command + " \"$1\"", "sh", try_file.string()}, timeout,
                                              scratch.path() / "log");
          return exit.kind == rd::Exit::Kind::exited && exit.code != 0;
        };
        const std::string original = expand(pipeline);
        if (!judge(original, module)) throw passline::PipelineError("the run does not fail: nothing to reduce");
        // Ctrl-C ends the reduction with its best so far (the KeyboardInterrupt is not raised).
        bool interrupted = false;
        rd::Progress progress("passline.reduce", quiet);
        rd::Reduced<Module> reduced = rd::reduce<Module>(
            original, module,
            [&](const std::string& p, const Module& candidate) {
              if (interrupted || PyErr_CheckSignals() != 0) {
                PyErr_Clear();
                interrupted = true;
                return false;
              }
              return judge(p, candidate);
            },
            [](const std::string&, const Module&) {}, progress, rd::Outside{}, taken);
        py::list records;
        for (const rd::Record& r : reduced.records) {
          records.append(py::dict(py::arg("step") = r.step, py::arg("passes") = r.passes, py::arg("size") = r.size,
                                  py::arg("runs") = r.runs, py::arg("seconds") = r.seconds));
        }
        return py::dict(py::arg("pipeline") = reduced.pipeline, py::arg("module") = reduced.ir,
                        py::arg("records") = records, py::arg("runs") = reduced.runs,
                        py::arg("interrupted") = interrupted,
                        py::arg("reproducer") = reproducer(reduced.pipeline, reduced.ir));
      },
      py::arg("module"), py::arg("pipeline"), py::arg("still_fails"), py::arg("command"), py::arg("timeout"),
      py::arg("steps"), py::arg("quiet"));
}

}  // namespace passline::python
