"""passline from Python: TVM's pass API over passline's C++ pass manager.

    import passline

    @passline.module_pass(opt_level=1)
    def tag(mod, ctx):
        return mod

    with passline.PassContext(opt_level=3, disabled_pass=["Inline"]):
        mod = passline.Sequential([passline.create("InferType"), tag])(mod)
"""
import os
import resource
import signal
import subprocess
import tempfile

from ._core import (ConfigError, FileError, IRError, IRModule, Pass, PassContext, PassError,
                    PassInfo, PipelineError, PipelineSyntaxError, PluginError, RegistryError,
                    RequirementError, VerificationError, load_plugin, parse_pipeline, registered_passes,
                    structural_equal)
from . import _core
from . import instrument, ir
from .instrument import pass_instrument

__all__ = ["ConfigError", "FileError", "IRError", "IRModule", "Pass", "PassContext", "PassError",
           "PassInfo", "PipelineError", "PipelineSyntaxError", "PluginError", "RegistryError",
           "RequirementError", "VerificationError", "Sequential", "create", "function_pass", "instrument", "ir",
           "load_plugin", "module_pass",
           "parse_pipeline", "pass_instrument", "reduce", "Reduction", "register_pass", "registered_passes",
           "structural_equal"]


def create(name, **options):
    """The C++ pass or pipeline registered as `name`, with options
    (`max_size=8` sets the option `max-size`)."""
    return _core.create_pass(name, {key.replace("_", "-"): value for key, value in options.items()})


def Sequential(passes=None, opt_level=0, name="sequential", required=None):
    """A pipeline of passes, C++ and Python alike, as TVM's: it gates each of
    its passes by the context (opt level, required and disabled passes); the
    passes in `required` run before it where they do not hold."""
    return _core.sequential(list(passes or []), name, opt_level, required)


def _make_pass(pass_arg, opt_level, name, required, function_level):
    method = "transform_function" if function_level else "transform_module"

    def wrap(target):
        if isinstance(target, type):
            def create_class_pass(*args, **kwargs):
                instance = target(*args, **kwargs)
                return _core.python_pass(getattr(instance, method), name or target.__name__, opt_level,
                                         list(required or []), function_level)
            create_class_pass.__name__ = target.__name__
            create_class_pass.__doc__ = target.__doc__
            return create_class_pass
        if not callable(target):
            raise TypeError(f"{'function' if function_level else 'module'}_pass takes a function or a class")
        return _core.python_pass(target, name or target.__name__, opt_level, list(required or []),
                                 function_level)

    if pass_arg is not None:
        return wrap(pass_arg)
    return wrap


def module_pass(pass_func=None, opt_level=0, name=None, required=None):
    """A module pass from a function `f(mod, ctx) -> mod`, or from a class
    with `transform_module(self, mod, ctx)`, as in TVM."""
    return _make_pass(pass_func, opt_level, name, required, False)


def function_pass(pass_func=None, opt_level=0, name=None, required=None):
    """A function pass from a function `f(func, mod, ctx) -> func`, or from a
    class with `transform_function(self, func, mod, ctx)`, as in TVM."""
    return _make_pass(pass_func, opt_level, name, required, True)


def register_pass(pass_obj):
    """Registers a pass by its name: pipeline text and C++ pipelines can use it."""
    _core.register_pass(pass_obj)
    return pass_obj


class Reduction:
    """What `reduce` found: the smallest failing run.

    `pipeline`: its passes as pipeline text; `module`: its IRModule;
    `reproducer`: both as a file `passline-opt --run-reproducer` replays;
    `records`: the sizes after each step (dicts of step, passes, size, runs,
    seconds); `runs`: the tries judged; `interrupted`: True if Ctrl-C ended
    it, with the best found so far."""

    def __init__(self, found):
        self.pipeline = found["pipeline"]
        self.module = found["module"]
        self.reproducer = found["reproducer"]
        self.records = found["records"]
        self.runs = found["runs"]
        self.interrupted = found["interrupted"]

    def __repr__(self):
        first, last = self.records[0], self.records[-1]
        return (f"<passline.Reduction {first['passes']} -> {last['passes']} passes, "
                f"{first['size']} -> {last['size']} operations, {self.runs} runs>")


def reduce(mod, pipeline, still_fails=None, *, command=None, timeout=10.0, steps=None, quiet=True):
    """Shrinks a failing run, the `pipeline` (text) on `mod`, to the smallest
    that still fails, as `passline-opt --reduce` does: the pipeline's passes
    (required ones put back where needed), then the functions (emptied, then
    dropped), then inside them; returns a Reduction.

    What still failing means is either `still_fails(pipeline_text, mod)`, a
    predicate called in this process, or `command`, a shell command run in a
    child process (killed after `timeout` seconds) with the path of a
    reproducer added, whose nonzero exit says it still fails. `steps`: some
    of "pipeline", "functions", "inside" (all by default). The pipeline is
    planned under the current PassContext. Raises PipelineError if the run
    does not fail to begin with."""
    if (still_fails is None) == (command is None):
        raise TypeError("reduce takes still_fails or command, one of them")
    timeout = float(timeout)
    if not 0 < timeout <= 86400:
        raise ValueError(f"reduce: timeout is a number of seconds above 0 and at most 86400 (a day), not {timeout!r}")
    stopped = [False]
    if command is None:
        return Reduction(_core._reduce(mod, pipeline, still_fails, lambda: stopped[0], list(steps or []), quiet))
    with tempfile.TemporaryDirectory(prefix="passline-reduce-") as work:
        judge = _CommandJudge(command, timeout, work, stopped)
        return Reduction(_core._reduce(mod, pipeline, judge, lambda: stopped[0], list(steps or []), quiet))


class _CommandJudge:
    """`reduce`'s judge by command: each try's reproducer written to a file
    in `work`, the command run on it in a process group of its own (stdin
    from /dev/null, no core dumps), killed with its group after `timeout`
    seconds; a nonzero exit says the try still fails. Ctrl-C kills the try
    under way and stops the reduction (`stopped`) with its best so far."""

    def __init__(self, command, timeout, work, stopped):
        self.argv = ["/bin/sh", "-c", command + ' "$1"', "sh", os.path.join(work, "try.ir")]
        self.timeout, self.work, self.stopped = timeout, work, stopped

    def __call__(self, pipeline, mod):
        with open(self.argv[-1], "w") as try_file:
            try_file.write(_core._reproducer(pipeline, mod))
        with open(os.path.join(self.work, "out"), "wb") as out, open(os.path.join(self.work, "log"), "wb") as log:
            child = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=out, stderr=log,
                                     start_new_session=True, preexec_fn=_no_core_dumps)
            try:
                return child.wait(timeout=self.timeout) > 0
            except subprocess.TimeoutExpired:
                return False
            except KeyboardInterrupt:
                self.stopped[0] = True
                return False
            finally:
                if child.returncode is None:
                    os.killpg(child.pid, signal.SIGKILL)
                    child.wait()


def _no_core_dumps():
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
