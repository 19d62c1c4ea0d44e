"""tvm.relay's pass API under passline's names: relay.build_config is
TVM's older name of PassContext; the expression classes are the reference
IR's."""
from passline import PassContext as build_config
from passline.ir import Call, ExprFunctor, Function, GlobalVar

from . import transform

__all__ = ["Call", "ExprFunctor", "Function", "GlobalVar", "build_config", "transform"]
