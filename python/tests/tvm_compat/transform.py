"""tvm.transform under passline's names."""
from passline import Pass as FunctionPass
from passline import Pass as ModulePass
from passline import Pass
from passline import PassContext, PassInfo, Sequential, function_pass, module_pass

__all__ = ["FunctionPass", "ModulePass", "Pass", "PassContext", "PassInfo", "Sequential", "function_pass",
           "module_pass"]
