"""Pass instruments, as `tvm.ir.instrument` has them: a decorator for your
own, and passline's C++ instruments, which print to a Python file
(`sys.stderr` unless `file=` says otherwise).

    from passline import instrument

    timing = instrument.PassTimingInstrument()
    with passline.PassContext(instruments=[timing, instrument.PrintChanged(mode="diff")]):
        mod = passline.create("O2")(mod)
    print(timing.render())
"""
from ._core import (DumpDir, Instrument, OptBisect, PassTimingInstrument, PrintChanged,
                    PrintIR, Report, Trace, VerifyEach, VerifyPreserved)

__all__ = ["DumpDir", "Instrument", "OptBisect", "PassTimingInstrument", "PrintAfterAll",
           "PrintBeforeAll", "PrintChanged", "PrintIR", "Report", "Trace", "VerifyEach", "VerifyPreserved",
           "pass_instrument"]


def pass_instrument(pi_cls=None):
    """Marks a class as a pass instrument, as TVM's decorator does
    (`@pass_instrument` or `@pass_instrument()`): its instances go in
    `PassContext(instruments=[...])`, and any of the hooks enter_pass_ctx(),
    exit_pass_ctx(), should_run(mod, info), run_before_pass(mod, info),
    run_after_pass(mod, info) and passline's run_after_failed_pass(mod,
    info, message) are called. A subclass of `Instrument` is one too."""
    def mark(cls):
        if not isinstance(cls, type):
            raise TypeError("pass_instrument decorates a class, not " + type(cls).__name__)
        return cls

    if pi_cls is None:
        return mark
    return mark(pi_cls)


def PrintBeforeAll(file=None):
    """Prints the IR before every pass."""
    return PrintIR(before_all=True, file=file)


def PrintAfterAll(file=None):
    """Prints the IR after every pass."""
    return PrintIR(after_all=True, file=file)
