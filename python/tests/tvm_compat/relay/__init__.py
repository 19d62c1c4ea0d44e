"""tvm.relay's pass API under passline's names: relay.build_config is
TVM's older name of PassContext."""
from passline import PassContext as build_config

from . import transform

__all__ = ["build_config", "transform"]
