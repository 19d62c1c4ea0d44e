// The parts of passline._core: passes, pipelines and contexts (core.cpp),
// functions and expressions of the reference IR (expr.cpp), and the C++
// instruments (instruments.cpp).
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <memory>

namespace passline::python {

/// False once the interpreter has begun to finalize (set from Python's
/// atexit): what C++ still holds then (passes in the registry, released at
/// exit) lets its Python objects go unreleased.
inline std::atomic<bool> interpreter_alive{true};

/// A Python object held from C++, released with the GIL held from any thread.
inline std::shared_ptr<pybind11::object> hold(pybind11::object object) {
  return {new pybind11::object(std::move(object)), [](pybind11::object* held) {
            if (interpreter_alive) {
              pybind11::gil_scoped_acquire gil;
              delete held;
            } else {
              held->release();
              delete held;
            }
          }};
}

/// Binds Function (name, attributes, parameters, body) and the expression
/// classes (Var, Constant, Let, ...) into `m`.
void bind_expressions(pybind11::module_& m);

/// Binds the C++ instruments (PassTimingInstrument, PrintIR, PrintChanged,
/// Trace, DumpDir, VerifyEach, OptBisect) into `m`, on the base class
/// `Instrument` that PassContext takes as it is.
void bind_instruments(pybind11::module_& m);

}  // namespace passline::python
