// The parts of passline._core: passes, pipelines and contexts (core.cpp),
// functions and expressions of the reference IR (expr.cpp), and the C++
// instruments (instruments.cpp).
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>

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

/// A Python exception on its way through C++: its message is what Python
/// would print last ("RuntimeError: message"), and it goes back to Python as
/// the very exception raised, with its traceback (restore()).
class PythonError : public std::runtime_error {
 public:
  explicit PythonError(pybind11::error_already_set& error)
      : std::runtime_error(describe(error)), value_(hold(error.value())) {
    if (error.trace()) PyException_SetTraceback(value_->ptr(), error.trace().ptr());
  }
  /// Sets the exception as Python's current error.
  void restore() const { PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(value_->ptr())), value_->ptr()); }
  const pybind11::object& value() const { return *value_; }

 private:
  static std::string describe(pybind11::error_already_set& error) {
    const std::string type = pybind11::str(error.type().attr("__name__"));
    const std::string message = pybind11::str(error.value());
    return message.empty() ? type : type + ": " + message;
  }
  std::shared_ptr<pybind11::object> value_;
};

/// Calls `f`, turning a Python exception into a PythonError.
template <class F>
decltype(auto) calling_python(F&& f) {
  try {
    return f();
  } catch (pybind11::error_already_set& error) {
    throw PythonError(error);
  }
}

/// `name`, if the text format can write it and read it back; else a
/// ValueError that calls it `what` ("a Var's name").
std::string checked_name(std::string name, const char* what);

/// Binds Function (name, attributes, parameters, body) and the expression
/// classes (Var, Constant, Let, ...) into `m`.
void bind_expressions(pybind11::module_& m);

/// Binds the C++ instruments (PassTimingInstrument, PrintIR, PrintChanged,
/// Trace, DumpDir, VerifyEach, OptBisect) into `m`, on the base class
/// `Instrument` that PassContext takes as it is.
void bind_instruments(pybind11::module_& m);

/// Binds `_reduce`, what passline.reduce calls (python/passline/__init__.py).
void bind_reduce(pybind11::module_& m);

}  // namespace passline::python
