"""TVM's Python names for passline's, and nothing else.

TVM's own pass tests (tests/python/relay/test_pass_manager.py and
test_pass_instrument.py) import this as `tvm`: every name here is one of
passline's under the name TVM gives it. No gating, hook or exception logic
lives here; what the tests check is passline's own behaviour.
"""
from passline import IRModule

from . import error, ir, relay, transform

__all__ = ["IRModule", "error", "ir", "relay", "transform"]
