"""tvm.ir.instrument under passline's names."""
from passline.instrument import Instrument as PassInstrument
from passline.instrument import PassTimingInstrument, pass_instrument

__all__ = ["PassInstrument", "PassTimingInstrument", "pass_instrument"]
