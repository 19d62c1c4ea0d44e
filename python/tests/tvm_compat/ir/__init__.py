"""tvm.ir under passline's names."""
from passline import structural_equal

from . import instrument

__all__ = ["instrument", "structural_equal"]
