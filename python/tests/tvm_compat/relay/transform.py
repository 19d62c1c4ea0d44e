"""tvm.relay.transform: the reference IR's passes under their TVM names
(each a pass made by name, as TVM's functions make them), and the pass
decorators."""
from functools import partial

from passline import Pass as FunctionPass
from passline import create, function_pass, module_pass

DeadCodeElimination = partial(create, "DeadCodeElimination")
EliminateCommonSubexpr = partial(create, "EliminateCommonSubexpr")
FoldConstant = partial(create, "FoldConstant")
InferType = partial(create, "InferType")
Inline = partial(create, "Inline")
LambdaLift = partial(create, "LambdaLift")
SimplifyExpr = partial(create, "SimplifyExpr")
ToANormalForm = partial(create, "ToANormalForm")

__all__ = ["DeadCodeElimination", "EliminateCommonSubexpr", "FoldConstant", "FunctionPass", "InferType",
           "Inline", "LambdaLift", "SimplifyExpr", "ToANormalForm", "function_pass", "module_pass"]
