// passline._core: the C++ library seen from Python. The reference IR (parse,
// print, its functions), passes and pipelines from the registry and from
// pipeline text, Python functions as passes, and PassContext as a `with`
// statement. The Python package `passline` wraps it in TVM's spelling.
#include "bindings.h"

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <stdexcept>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>
import passline;
import passline.support;
import passline.instruments;
import passline.ir;
import passline.pipelines;

namespace py = pybind11;

namespace {

using Module = passline::ir::Module;
using Pass = passline::Pass<Module>;

/// A Python value as a config or option value: bool, int, float or str.
passline::Value to_value(const py::handle& value) {
  if (py::isinstance<py::bool_>(value)) return passline::Value(value.cast<bool>());
  if (py::isinstance<py::int_>(value)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow != 0) {
      PyErr_SetString(PyExc_OverflowError, "a config or option value that is an int fits in 64 bits");
      throw py::error_already_set();
    }
    return passline::Value(static_cast<std::int64_t>(v));
  }
  if (py::isinstance<py::float_>(value)) return passline::Value(value.cast<double>());
  if (py::isinstance<py::str>(value)) return passline::Value(value.cast<std::string>());
  throw py::type_error("a config or option value is a bool, an int, a float or a str");
}

/// A config key or option name: a str.
std::string key_from(const py::handle& key) {
  if (!py::isinstance<py::str>(key)) {
    throw py::type_error("a config key or option name is a str, not " +
                         py::str(py::type::of(key).attr("__name__")).cast<std::string>());
  }
  return key.cast<std::string>();
}

py::object from_value(const passline::Value& value) {
  return std::visit([](const auto& v) { return py::object(py::cast(v)); }, value);
}

using passline::python::calling_python;
using passline::python::hold;
using passline::python::PythonError;
using passline::python::interpreter_alive;

// What Python may hold of what a pipeline runs with. Every map below is
// read and written with the GIL held.

/// The modules function passes are shown, each as long as Python holds it
/// (a count of the holders): the module as it was before the pass, which
/// the pass does not change (it returns its function).
std::unordered_map<const Module*, int> read_only_modules;

/// `before`, the module a function pass is shown, for Python: read-only
/// while any Python object holds it, whatever is done to the object.
py::object read_only_view(std::shared_ptr<const Module> before) {
  Module* const module = const_cast<Module*>(before.get());  // NOLINT: never changed, see check_writable
  ++read_only_modules[module];
  const std::shared_ptr<Module> view(module, [before = std::move(before)](Module* shown) {
    if (--read_only_modules[shown] == 0) read_only_modules.erase(shown);
  });
  return py::cast(view);
}

/// Raises TypeError unless `module` may be changed.
void check_writable(const py::object& module) {
  if (read_only_modules.contains(&module.cast<const Module&>())) {
    throw py::type_error("this IRModule is read-only: a function pass sees the module as it was before the pass "
                         "and returns its function");
  }
}

/// The copies of running contexts that Python was handed (see
/// context_for_python): read-only.
std::unordered_set<const passline::PassContext*> context_copies;

/// The contexts Python made that a pipeline called from Python runs under,
/// with how many such runs: none of their settings changes meanwhile.
std::unordered_map<const passline::PassContext*, int> running_contexts;

/// While it lives, `ctx` counts as running (take it with the GIL held).
class Running {
 public:
  explicit Running(const passline::PassContext& ctx) : ctx_(&ctx) { ++running_contexts[ctx_]; }
  Running(const Running&) = delete;
  Running& operator=(const Running&) = delete;
  ~Running() {
    if (--running_contexts[ctx_] == 0) running_contexts.erase(ctx_);
  }

 private:
  const passline::PassContext* ctx_;
};

/// The Python object that stands for the default context of whichever
/// thread uses it (TVM's `PassContext.current()` outside any `with`): its
/// own C++ object is never used, see `resolve`.
py::object* default_context_object = nullptr;

/// The context `ctx` stands for: the calling thread's default context for
/// the object that stands for it, else `ctx` itself.
passline::PassContext& resolve(const passline::PassContext& ctx) {
  if (default_context_object != nullptr && &default_context_object->cast<const passline::PassContext&>() == &ctx) {
    return passline::PassContext::thread_default();
  }
  return const_cast<passline::PassContext&>(ctx);  // NOLINT: every context Python holds is its own, not const
}

/// A context for Python: the Python object of one that Python made (Python
/// owns it, so it lives as long as anything holds it); for a thread's
/// default context, the object that stands for every thread's; else a
/// read-only copy that Python owns. Never a reference to a context on C++'s
/// stack or in a thread's storage, which Python could keep past its life.
py::object context_for_python(passline::PassContext& ctx) {
  const py::detail::type_info* type = py::detail::get_type_info(typeid(passline::PassContext));
  if (const py::handle own = py::detail::find_registered_python_instance(&ctx, type)) {
    return py::reinterpret_steal<py::object>(own);
  }
  if (&ctx == &passline::PassContext::thread_default()) {
    if (default_context_object == nullptr) {
      // Made once, kept to the end of the process (as the default contexts are).
      default_context_object = new py::object(py::cast(std::make_shared<passline::PassContext>()));  // NOLINT
    }
    return *default_context_object;
  }
  const std::shared_ptr<passline::PassContext> copy(new passline::PassContext(ctx.derive()),
                                                    [](passline::PassContext* context) {
                                                      context_copies.erase(context);
                                                      delete context;  // NOLINT(cppcoreguidelines-owning-memory)
                                                    });
  context_copies.insert(copy.get());
  return py::cast(copy);
}

/// Raises unless the settings of `ctx` may change: not a copy handed to a
/// pass, not a context a pipeline runs under.
void check_changeable(const passline::PassContext& ctx) {
  if (context_copies.contains(&ctx)) {
    throw std::runtime_error("this PassContext is a read-only copy of the one a pipeline runs under: make a "
                             "PassContext of your own to change settings");
  }
  if (running_contexts.contains(&ctx)) {
    throw std::runtime_error("this PassContext is in use by a running pipeline: its settings cannot change "
                             "until the pipeline returns");
  }
}

/// What a Python pass returned, as a `T`; else a TypeError naming the pass.
template <class T>
T returned(const py::object& result, const std::string& pass, const char* expected) {
  if (!py::isinstance<T>(result)) {
    PyErr_SetString(PyExc_TypeError, ("pass '" + pass + "' returned " +
                                      py::str(py::type::of(result).attr("__name__")).cast<std::string>() +
                                      ", not " + expected).c_str());
    throw py::error_already_set();
  }
  return result.cast<T>();
}

/// The PassInfo of a Python pass; the pass keeps its own copy of the names.
Pass python_pass(const py::function& fn, const std::string& name, int opt_level,
                 const std::vector<std::string>& required, bool function_level) {
  const std::vector<std::string_view> names(required.begin(), required.end());
  const passline::PassInfo info{.name = name, .opt_level = opt_level, .required = names};
  // A pass registered by name outlives the interpreter: see hold().
  std::shared_ptr<py::object> held = hold(fn);
  if (function_level) {
    // The pass sees the module as it was before the pass, whole and
    // read-only, one copy a run; its result takes its function's place.
    return passline::function_pass<Module>(
        info, [held, name](passline::ir::Function fn, std::shared_ptr<const Module> before, passline::PassContext& ctx) {
          py::gil_scoped_acquire gil;
          return calling_python([&] {
            py::object module = read_only_view(std::move(before));
            return returned<passline::ir::Function>((*held)(fn, module, context_for_python(ctx)), name, "a Function");
          });
        });
  }
  return passline::module_pass<Module>(info, [held, name](Module module, passline::PassContext& ctx) {
    py::gil_scoped_acquire gil;
    return calling_python(
        [&] { return returned<Module>((*held)(std::move(module), context_for_python(ctx)), name, "an IRModule"); });
  });
}

/// A pass's PassInfo as Python keeps it: its own copy of the names.
struct OwnedPassInfo {
  std::string name;
  int opt_level = 0;
  std::vector<std::string> required;
  explicit OwnedPassInfo(const passline::PassInfo& info)
      : name(info.name), opt_level(info.opt_level), required(info.required.begin(), info.required.end()) {}
  OwnedPassInfo(std::string name, int opt_level, std::vector<std::string> required)
      : name(std::move(name)), opt_level(opt_level), required(std::move(required)) {}
};

/// The module an instrument is shown, for Python: None for an IR that is not
/// the reference IR's.
py::object module_of(passline::IRView ir) {
  const Module* module = ir.get<Module>();
  return module ? py::cast(*module) : py::none();
}

/// A Python object with any of TVM's instrument hooks (enter_pass_ctx,
/// exit_pass_ctx, should_run, run_before_pass, run_after_pass), as a C++
/// instrument. Hooks are called with the GIL held; what they raise passes
/// on as it is, as an instrument's exception does in C++.
class PythonInstrument final : public passline::Instrument {
 public:
  explicit PythonInstrument(py::object hooks) : hooks_(hold(std::move(hooks))) {}

  void enter_context() override { call("enter_pass_ctx"); }
  void exit_context() override { call("exit_pass_ctx"); }
  bool should_run(const passline::PassInfo& info, passline::IRView ir, const passline::PassPlace&) override {
    py::gil_scoped_acquire gil;
    if (!py::hasattr(*hooks_, "should_run")) return true;
    return calling_python([&] { return hooks_->attr("should_run")(module_of(ir), OwnedPassInfo(info)).cast<bool>(); });
  }
  void before_pass(const passline::PassInfo& info, passline::IRView ir, const passline::PassPlace&) override {
    call("run_before_pass", ir, info);
  }
  void after_pass(const passline::PassInfo& info, passline::IRView ir, const passline::PassPlace&) override {
    call("run_after_pass", ir, info);
  }
  /// passline's hook beyond TVM's: the pass raised; `error` is its message.
  void after_failed_pass(const passline::PassInfo& info, passline::IRView ir, const passline::PassPlace&,
                         std::exception_ptr error) override {
    py::gil_scoped_acquire gil;
    if (!py::hasattr(*hooks_, "run_after_failed_pass")) return;
    std::string message;
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      message = e.what();
    } catch (...) {
      message = "unknown exception";
    }
    calling_python([&] { hooks_->attr("run_after_failed_pass")(module_of(ir), OwnedPassInfo(info), message); });
  }

 public:
  py::object object() const { return *hooks_; }

 private:
  void call(const char* hook) {
    if (!interpreter_alive) return;  // a context left entered, exited at the thread's or the process's end
    py::gil_scoped_acquire gil;
    if (py::hasattr(*hooks_, hook)) calling_python([&] { hooks_->attr(hook)(); });
  }
  void call(const char* hook, passline::IRView ir, const passline::PassInfo& info) {
    py::gil_scoped_acquire gil;
    if (py::hasattr(*hooks_, hook)) calling_python([&] { hooks_->attr(hook)(module_of(ir), OwnedPassInfo(info)); });
  }

  std::shared_ptr<py::object> hooks_;
};

/// The hooks a Python instrument may have, TVM's and passline's.
constexpr const char* instrument_hooks[] = {"enter_pass_ctx", "exit_pass_ctx", "should_run", "run_before_pass",
                                            "run_after_pass", "run_after_failed_pass"};

/// Raises TypeError unless `hooks` is an instrument: a C++ one, or an
/// object (not a class) with at least one of the hooks.
void check_instrument(const py::handle& hooks) {
  if (py::isinstance<passline::Instrument>(hooks)) return;
  const std::string type = py::str(py::type::of(hooks).attr("__name__"));
  if (py::isinstance<py::type>(hooks)) {
    throw py::type_error("an instrument is an instance, not the class '" +
                         py::str(hooks.attr("__name__")).cast<std::string>() + "': write " +
                         py::str(hooks.attr("__name__")).cast<std::string>() + "()");
  }
  for (const char* hook : instrument_hooks) {
    if (py::hasattr(hooks, hook)) return;
  }
  throw py::type_error("an instrument is a passline.instrument.Instrument or an object with one of the hooks "
                       "enter_pass_ctx, exit_pass_ctx, should_run, run_before_pass, run_after_pass, "
                       "run_after_failed_pass; not " + type);
}

/// A setting of PassContext for Python: the getter of `member`, or with
/// `from` (a Python value to the member's), its setter, which refuses while
/// the context may not change (check_changeable).
template <class T>
auto context_setting(T passline::PassContext::*member) {
  return [member](const passline::PassContext& self) { return resolve(self).*member; };
}
template <class Arg, class T, class From>
auto context_setting(T passline::PassContext::*member, From from) {
  return [member, from](passline::PassContext& self, Arg value) {
    passline::PassContext& ctx = resolve(self);
    check_changeable(ctx);
    ctx.*member = from(value);
  };
}

/// The type name of a Python value, for messages.
std::string type_name(const py::handle& value) {
  return py::str(py::type::of(value).attr("__name__")).cast<std::string>();
}

/// One of TVM's list arguments (required_pass, disabled_pass): None for
/// none, else an iterable of pass names.
std::vector<std::string> names_from(const py::handle& names, const char* what) {
  std::vector<std::string> out;
  if (names.is_none()) return out;
  if (py::isinstance<py::str>(names)) {
    throw py::type_error(std::string(what) + " is a list of pass names, not a str: write [" +
                         py::repr(names).cast<std::string>() + "]");
  }
  if (!py::isinstance<py::iterable>(names)) {
    throw py::type_error(std::string(what) + " is a list of pass names or None, not " + type_name(names));
  }
  for (const py::handle& name : names) {
    if (!py::isinstance<py::str>(name)) {
      throw py::type_error(std::string(what) + " holds pass names (str), not " + type_name(name));
    }
    out.push_back(name.cast<std::string>());
  }
  return out;
}

/// An instrument as C++ runs it: one of passline's C++ instruments as it is;
/// an object with TVM's hooks (a Python subclass of Instrument included)
/// through PythonInstrument.
std::shared_ptr<passline::Instrument> instrument_from(const py::handle& hooks) {
  check_instrument(hooks);
  if (py::isinstance<passline::Instrument>(hooks)) {
    auto instrument = hooks.cast<std::shared_ptr<passline::Instrument>>();
    const passline::Instrument& object = *instrument;
    if (typeid(object) != typeid(passline::Instrument)) return instrument;  // a C++ instrument
  }
  return std::make_shared<PythonInstrument>(py::reinterpret_borrow<py::object>(hooks));
}

/// PassContext's instruments argument: None for none, else a list.
std::vector<std::shared_ptr<passline::Instrument>> instruments_from(const py::handle& instruments) {
  std::vector<std::shared_ptr<passline::Instrument>> out;
  if (instruments.is_none()) return out;
  if (!py::isinstance<py::list>(instruments) && !py::isinstance<py::tuple>(instruments)) {
    throw py::type_error("instruments is a list of instruments or None, not " + type_name(instruments));
  }
  for (const py::handle& hooks : instruments) out.push_back(instrument_from(hooks));
  return out;
}

/// TVM's PassContext(trace=f): f(mod, info, is_before) before and after
/// every pass that runs.
class TraceCallback final : public passline::Instrument {
 public:
  explicit TraceCallback(py::object fn) : fn_(hold(std::move(fn))) {}
  void before_pass(const passline::PassInfo& info, passline::IRView ir, const passline::PassPlace&) override {
    call(info, ir, true);
  }
  void after_pass(const passline::PassInfo& info, passline::IRView ir, const passline::PassPlace&) override {
    call(info, ir, false);
  }

 private:
  void call(const passline::PassInfo& info, passline::IRView ir, bool before) {
    py::gil_scoped_acquire gil;
    calling_python([&] { (*fn_)(module_of(ir), OwnedPassInfo(info), before); });
  }
  std::shared_ptr<py::object> fn_;
};

/// A function's name as TVM's API gives it: a str, or a GlobalVar (`mod[gvar]`).
std::string function_name_of(const py::handle& key) {
  if (py::isinstance<py::str>(key)) return key.cast<std::string>();
  if (py::hasattr(key, "name")) return py::str(key.attr("name")).cast<std::string>();
  throw py::type_error("a function is named by a str or a GlobalVar, not " + type_name(key));
}

/// Puts `fn` in `module`: in the place of the function of its name, else at the end.
void put(Module& module, passline::ir::Function fn) {
  if (const std::ptrdiff_t at = module.find(fn.name); at >= 0) {
    module.functions[static_cast<std::size_t>(at)] = std::move(fn);
  } else {
    module.functions.push_back(std::move(fn));
  }
}

/// A context entered from Python on this thread: the Python object, kept
/// alive while it is entered, and its scope.
struct Entered {
  std::shared_ptr<py::object> context;
  std::unique_ptr<passline::PassContext::Scope> scope;
};

/// The contexts entered from Python on this thread, innermost last.
thread_local std::vector<Entered> entered;

/// Leaves the innermost context entered on this thread, which must be `ctx`:
/// a `with` block exits what it entered, on the thread that entered it. An
/// exit hook's exception goes on as itself (PassContext::Scope::exit).
void leave(const passline::PassContext& ctx) {
  if (entered.empty()) {
    throw std::runtime_error("PassContext.__exit__ without a matching __enter__ on this thread");
  }
  if (&resolve(entered.back().context->cast<const passline::PassContext&>()) != &ctx) {
    throw std::runtime_error("PassContext.__exit__ of a context that is not the innermost one entered on this "
                             "thread: contexts exit in the reverse order of their __enter__");
  }
  Entered leaving = std::move(entered.back());  // keeps the context alive while its instruments exit
  entered.pop_back();
  leaving.scope->exit();
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "passline's C++ core: the reference IR, passes, pipelines and contexts";
  py::module_::import("atexit").attr("register")(py::cpp_function([] {
    // Contexts still entered on this thread exit now, while Python can run
    // their instruments' hooks; then C++ lets go of Python objects unreleased.
    while (!entered.empty()) {
      entered.back().scope.reset();
      entered.pop_back();
    }
    interpreter_alive = false;
  }));
  passline::python::bind_instruments(m);

  // C++'s error classes, as Python's: PipelineError (a RuntimeError) and
  // those derived from it, with what each knows as attributes.
  static py::exception<passline::ir::IRError> ir_error(m, "IRError", PyExc_ValueError);
  static py::exception<passline::PipelineError> error(m, "PipelineError", PyExc_RuntimeError);
  static py::exception<passline::PassError> pass_error(m, "PassError", error.ptr());
  static py::exception<passline::VerificationError> verification_error(m, "VerificationError", error.ptr());
  static py::exception<passline::PipelineSyntaxError> syntax_error(m, "PipelineSyntaxError", error.ptr());
  static py::exception<passline::ConfigError> config_error(m, "ConfigError", error.ptr());
  static py::exception<passline::RegistryError> registry_error(m, "RegistryError", error.ptr());
  static py::exception<passline::RequirementError> requirement_error(m, "RequirementError", error.ptr());
  static py::exception<passline::PluginError> plugin_error(m, "PluginError", registry_error.ptr());
  static py::exception<passline::support::FileError> file_error(m, "FileError", error.ptr());
  py::register_exception_translator([](std::exception_ptr p) {
    // Raises an instance of `type` made from `message`, with `attributes` set.
    auto raise = [](const py::handle& type, const std::string& message, const py::dict& attributes) {
      py::object instance = type(message);
      for (const auto& [name, value] : attributes) py::setattr(instance, name, value);
      PyErr_SetObject(type.ptr(), instance.ptr());
      return instance;
    };
    try {
      if (p) std::rethrow_exception(p);
    } catch (const PythonError& e) {
      e.restore();  // raised in Python, back to Python as itself
    } catch (const passline::ir::IRError& e) {
      raise(ir_error, e.what(),
            py::dict(py::arg("message") = e.message(), py::arg("line") = e.position().line,
                     py::arg("column") = e.position().column));
    } catch (const passline::PassError& e) {
      // A Python pass's own exception goes on as itself, with its traceback,
      // as TVM re-raises it; a note (PEP 678) names the pass and its path.
      try {
        std::rethrow_if_nested(e);
      } catch (const PythonError& cause) {
        std::string note = "raised in pass '" + e.pass() + "'";
        if (e.path() != e.pass()) note += " (at " + e.path() + ")";
        if (py::hasattr(cause.value(), "add_note")) cause.value().attr("add_note")(note);
        cause.restore();
        return;
      } catch (...) {  // NOLINT(bugprone-empty-catch): a C++ cause is in the message
      }
      raise(pass_error, e.what(), py::dict(py::arg("pass_name") = e.pass(), py::arg("path") = e.path()));
    } catch (const passline::VerificationError& e) {
      raise(verification_error, e.what(), py::dict(py::arg("pass_name") = e.pass()));
    } catch (const passline::PipelineSyntaxError& e) {
      raise(syntax_error, std::string(e.what()) + "\n" + e.caret(),
            py::dict(py::arg("column") = e.column(), py::arg("caret") = e.caret()));
    } catch (const passline::ConfigError& e) {
      raise(config_error, e.what(), py::dict());
    } catch (const passline::PluginError& e) {
      raise(plugin_error, e.what(), py::dict());
    } catch (const passline::RegistryError& e) {
      raise(registry_error, e.what(), py::dict());
    } catch (const passline::RequirementError& e) {
      raise(requirement_error, e.what(), py::dict());
    } catch (const passline::support::FileError& e) {
      raise(file_error, e.what(), py::dict());
    } catch (const passline::PipelineError& e) {
      raise(error, e.what(), py::dict());
    }
  });

  passline::python::bind_expressions(m);
  passline::python::bind_reduce(m);

  py::class_<Module, std::shared_ptr<Module>>(m, "IRModule", py::dynamic_attr())
      .def(py::init([](const py::object& functions) {
             Module module;
             auto add = [&](passline::ir::Function fn) {
               if (module.find(fn.name) >= 0) throw py::value_error("function '@" + fn.name + "' is given twice");
               module.functions.push_back(std::move(fn));
             };
             if (functions.is_none()) return module;
             if (py::isinstance<py::dict>(functions)) {
               // TVM's IRModule({GlobalVar or name: function}): each function takes its key's name.
               for (const auto& [key, value] : functions.cast<py::dict>()) {
                 auto fn = value.cast<passline::ir::Function>();
                 fn.name = passline::python::checked_name(function_name_of(key), "a function's name");
                 add(std::move(fn));
               }
               return module;
             }
             for (const py::handle& fn : functions) add(fn.cast<passline::ir::Function>());
             return module;
           }),
           py::arg("functions") = py::none(),
           "A module of the given functions, in order; or, as TVM's, of a dict {GlobalVar or name: Function}, "
           "each function under its key's name.")
      .def_static("from_expr", [](passline::ir::Function fn) {
             fn.name = "main";
             Module module;
             module.functions.push_back(std::move(fn));
             return module;
           }, py::arg("func"), "A module of one function, named main, as TVM's IRModule.from_expr.")
      .def("update", [](const py::object& self, const Module& other) {
             check_writable(self);
             auto& module = self.cast<Module&>();
             for (const passline::ir::Function& fn : other.functions) put(module, fn);
           }, py::arg("other"), "Adds the functions of `other`, replacing those of the same names, as TVM's.")
      .def("get_global_var", [](const Module& module, const std::string& name) {
             if (module.find(name) < 0) throw py::value_error("the module has no function '@" + name + "'");
             return py::module_::import("passline.ir").attr("GlobalVar")(name);
           }, py::arg("name"), "The GlobalVar of the function of that name, as TVM's; ValueError if none.")
      .def_static("parse", [](std::string text, std::string name, std::size_t threads) {
                    return passline::ir::parse(std::move(text), std::move(name), threads);
                  }, py::arg("text"), py::arg("name") = "<string>", py::arg("threads") = 1,
                  py::call_guard<py::gil_scoped_release>(),
                  "Parses a module of the reference IR (a large one on `threads` threads, the same "
                  "module and errors); errors keep file, line, column and caret.")
      .def("__str__", [](const Module& module) { return passline::ir::print(module); })
      .def("astext", [](const Module& module) { return passline::ir::print(module); })
      .def_readonly("functions", &Module::functions)
      .def("__getitem__", [](const Module& module, const py::object& key) {
        const std::string name = function_name_of(key);
        const std::ptrdiff_t at = module.find(name);
        if (at < 0) throw py::key_error(name);
        return module.functions[static_cast<std::size_t>(at)];
      })
      .def("__setitem__", [](const py::object& self, const std::string& name, passline::ir::Function fn) {
        check_writable(self);
        passline::python::checked_name(name, "a function's name");
        auto& module = self.cast<Module&>();
        fn.name = name;
        put(module, std::move(fn));
      }, "Replaces the function of that name, or adds it at the end; the function takes the name.")
      .def("__delitem__", [](const py::object& self, const std::string& name) {
        check_writable(self);
        auto& module = self.cast<Module&>();
        const std::ptrdiff_t at = module.find(name);
        if (at < 0) throw py::key_error(name);
        module.functions.erase(module.functions.begin() + at);
      })
      .def("__contains__", [](const Module& module, const std::string& name) { return module.find(name) >= 0; })
      .def("__len__", [](const Module& module) { return module.functions.size(); })
      .def("same_as", [](const Module& a, const Module& b) { return passline::ir::identical(a, b); }, py::arg("other"),
           "Whether the two modules hold the very same functions (bodies shared, names and attributes equal), "
           "as TVM's same_as: a pass that changed nothing returns a module the same as its input. Cheap: "
           "it compares pointers, never bodies.")
      .def("verify", [](const Module& module) { passline::ir::verify(module); },
           "Raises IRError at the first ill-formed spot (an unknown global, a wrong argument count, ...).");

  py::class_<OwnedPassInfo>(m, "PassInfo")
      .def(py::init([](int opt_level, std::string name, const py::object& required) {
             return OwnedPassInfo(std::move(name), opt_level, names_from(required, "required"));
           }), py::arg("opt_level"), py::arg("name"), py::arg("required") = py::none(),
           "A pass's name, opt level and required passes, as TVM's PassInfo.")
      .def_readonly("name", &OwnedPassInfo::name)
      .def_readonly("opt_level", &OwnedPassInfo::opt_level)
      .def_readonly("required", &OwnedPassInfo::required)
      .def("__repr__", [](const OwnedPassInfo& i) { return "<passline.PassInfo " + i.name + ">"; });

  py::class_<passline::PassContext, std::shared_ptr<passline::PassContext>>(m, "PassContext")
      .def(py::init([](int opt_level, const py::object& required, const py::object& disabled,
                       const py::object& instruments, const py::object& config, const py::object& trace) {
             auto ctx = std::make_shared<passline::PassContext>();
             ctx->opt_level = opt_level;
             ctx->instruments = instruments_from(instruments);
             if (!trace.is_none()) {
               if (!PyCallable_Check(trace.ptr())) {
                 throw py::type_error("trace is a function f(mod, info, is_before) or None, not " + type_name(trace));
               }
               ctx->instruments.push_back(std::make_shared<TraceCallback>(trace));
             }
             ctx->required = names_from(required, "required_pass");
             ctx->disabled = names_from(disabled, "disabled_pass");
             if (!config.is_none()) {
               if (!py::isinstance<py::dict>(config)) {
                 throw py::type_error("config is a dict of config keys and values or None, not " + type_name(config));
               }
               for (const auto& [key, value] : config.cast<py::dict>()) ctx->config.set(key_from(key), to_value(value));
             }
             return ctx;
           }),
           py::arg("opt_level") = 2, py::arg("required_pass") = py::none(), py::arg("disabled_pass") = py::none(),
           py::arg("instruments") = py::none(), py::arg("config") = py::none(), py::arg("trace") = py::none(),
           "TVM's PassContext: the opt level, passes required and disabled whatever it, instruments, config "
           "values, and trace(mod, info, is_before) called around every pass.")
      .def_property("opt_level", context_setting(&passline::PassContext::opt_level),
                    context_setting<int>(&passline::PassContext::opt_level, [](int level) { return level; }))
      .def_property("required_pass", context_setting(&passline::PassContext::required),
                    context_setting<const py::object&>(&passline::PassContext::required,
                                    [](const py::object& names) { return names_from(names, "required_pass"); }))
      .def_property("disabled_pass", context_setting(&passline::PassContext::disabled),
                    context_setting<const py::object&>(&passline::PassContext::disabled,
                                    [](const py::object& names) { return names_from(names, "disabled_pass"); }))
      .def("config", [](const passline::PassContext& self) {
        const passline::PassContext& ctx = resolve(self);
        py::dict values;
        for (const auto& [key, value] : ctx.config.values()) values[py::str(key)] = from_value(value);
        return values;
      })
      .def("__enter__", [](const py::object& self) {
        passline::PassContext& ctx = resolve(self.cast<passline::PassContext&>());
        auto scope = std::make_unique<passline::PassContext::Scope>(ctx);
        entered.push_back({hold(self), std::move(scope)});
        return self;
      })
      .def("__exit__", [](passline::PassContext& self, const py::args&) { leave(resolve(self)); })
      .def("override_instruments", [](passline::PassContext& self, const py::object& instruments) {
             passline::PassContext& ctx = resolve(self);
             check_changeable(ctx);
             ctx.override_instruments(instruments_from(instruments));
           }, py::arg("instruments"),
           "Replaces the instruments, as TVM's: the old ones exit, the new ones enter. A hook that raises "
           "clears the context's instruments, and its exception goes on as itself.")
      .def_static("list_configs", [] {
        py::dict keys;
        for (const auto& key : passline::ConfigKeys::global().list()) {
          py::dict info;
          info["type"] = std::string(key.type_name());
          info["default"] = from_value(key.default_value);
          info["description"] = key.description;
          keys[py::str(key.name)] = info;
        }
        return keys;
      }, "The registered config keys, each a dict: type, default, description.")
      .def_property_readonly("instruments", [](const passline::PassContext& self) -> py::object {
        const passline::PassContext& ctx = resolve(self);
        if (ctx.instruments.empty()) return py::none();  // as TVM's context without instruments
        py::list out;
        for (const auto& instrument : ctx.instruments) {
          if (auto* hooks = dynamic_cast<PythonInstrument*>(instrument.get())) {
            out.append(hooks->object());
          } else {
            out.append(py::cast(instrument));
          }
        }
        return out;
      })
      .def_static("current", [] { return context_for_python(passline::PassContext::current()); },
                  "The innermost context entered on this thread (the object entered), or a read-only copy of "
                  "the default context.");

  py::class_<Pass>(m, "Pass")
      .def_property_readonly("info", [](const Pass& p) { return OwnedPassInfo(p.info()); })
      .def("__call__", [](const Pass& pass, Module module) {
             passline::PassContext& ctx = passline::PassContext::current();
             const Running running(ctx);
             const py::gil_scoped_release release;
             return pass(std::move(module), ctx);
           }, py::arg("mod"))
      .def("__call__", [](const Pass& pass, Module module, passline::PassContext& given) {
             passline::PassContext& ctx = resolve(given);
             const Running running(ctx);
             const py::gil_scoped_release release;
             return pass(std::move(module), ctx);
           }, py::arg("mod"), py::arg("ctx"))
      .def("text", &Pass::text)
      .def("__repr__", [](const Pass& p) { return "<passline.Pass " + p.text() + ">"; });

  m.def("create_pass", [](const std::string& name, const py::dict& options) {
    std::vector<std::pair<std::string, passline::Value>> values;
    for (const auto& [key, value] : options) values.emplace_back(key_from(key), to_value(value));
    return passline::pipelines::registry().create(name, values);
  }, py::arg("name"), py::arg("options") = py::dict());
  m.def("parse_pipeline", [](const std::string& text) {
    return passline::parse_pipeline(text, passline::pipelines::registry());
  });
  m.def("sequential", [](std::vector<Pass> passes, const std::string& name, int opt_level, const py::object& required) {
    const std::vector<std::string> owned = names_from(required, "required");
    const std::vector<std::string_view> names(owned.begin(), owned.end());  // the pipeline copies them
    return passline::pipelines::registry().sequential(std::move(passes),
                                                      {.name = name, .opt_level = opt_level, .required = names});
  }, py::arg("passes"), py::arg("name") = "sequential", py::arg("opt_level") = 0, py::arg("required") = py::none());
  m.def("python_pass", &python_pass, py::arg("fn"), py::arg("name"), py::arg("opt_level"), py::arg("required"),
        py::arg("function_level"));
  m.def("register_pass", [](const Pass& pass) {
    passline::pipelines::registry().add(pass.info().name, pass);
  });
  m.def("load_plugin", [](const std::string& path) {
    // A plugin calls passline's code here, in this module: its symbols are
    // made visible to the libraries loaded after it, once.
    static const bool shared = (passline::support::share_symbols_of(reinterpret_cast<const void*>(&leave)), true);
    (void)shared;
    const auto plugin = passline::load_plugin(path, passline::pipelines::registry());
    return plugin.passes;
  }, py::arg("path"),
        "Loads the passes of the plugin at `path` (docs/plugins.md) into the registry that create, parse_pipeline "
        "and register_pass use, and returns the names it registered. Raises PluginError, naming the plugin and why, "
        "and registers nothing, if it cannot.");
  m.def("registered_passes", [] {
    std::vector<std::string> names;
    for (std::string_view name : passline::pipelines::registry().names()) names.emplace_back(name);
    return names;
  });
}
