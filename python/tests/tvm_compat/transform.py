"""tvm.transform under passline's names; PrintIR is the pass of that name."""
from functools import partial

from passline import Pass as FunctionPass
from passline import Pass as ModulePass
from passline import Pass
from passline import PassContext, PassInfo, Sequential, create, function_pass, module_pass

__all__ = ["FunctionPass", "ModulePass", "Pass", "PassContext", "PassInfo", "PrintIR", "Sequential",
           "function_pass", "module_pass"]

PrintIR = partial(create, "PrintIR")
