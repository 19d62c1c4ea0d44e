# Licensed to the Apache Software Foundation (ASF) under one
# or more contributor license agreements.  See the NOTICE file
# distributed with this work for additional information
# regarding copyright ownership.  The ASF licenses this file
# to you under the Apache License, Version 2.0 (the
# "License"); you may not use this file except in compliance
# with the License.  You may obtain a copy of the License at
#
#   http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing,
# software distributed under the License is distributed on an
# "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY
# KIND, either express or implied.  See the License for the
# specific language governing permissions and limitations
# under the License.
"""Unit tests for relay pass manager."""
# passline: apache/tvm tests/python/relay/test_pass_manager.py (commit 4e010340),
# run on passline. `tvm` is tvm_compat, which only renames passline's names to
# TVM's. Every line changed from TVM's ends in a "passline:" comment saying
# why: Relay's tensor types, operators and nameless functions become the
# reference IR's (i64, add/neg/mul, functions named by their global), and
# what runs the functions on a device (executors, targets) goes.
import pytest

import tvm_compat as tvm  # passline: TVM's names onto passline's
from tvm_compat import relay  # passline: renamed import
from tvm_compat.relay import ExprFunctor
from tvm_compat.relay import Function, Call
from tvm_compat.relay import transform as _transform  # passline: renamed import
from passline import ir  # passline: the reference IR's expressions stand for Relay's


def get_var_func():
    x = ir.Var("x", "i64")  # passline: an i64 for the tensor (5, 10)
    gv = relay.GlobalVar("myAbs")
    func = ir.Function("myAbs", [x], ir.neg(x), "i64")  # passline: neg for abs; a function has its name
    return gv, func


def extract_var_func(mod, name):
    var = mod.get_global_var(name)
    func = mod[var]
    return var, func


def update_func(func):
    # Double the value of Constants and vars.
    class DoubleValues(ExprFunctor):
        def __init__(self):
            ExprFunctor.__init__(self)

        def visit_constant(self, const):
            return ir.add(const, const)  # passline: ir.add for relay.add

        def visit_var(self, var):
            return ir.add(var, var)  # passline: ir.add for relay.add

        def visit_operator(self, call):  # passline: an operator applied is an Operator, not a Call of an Op
            new_args = [self.visit(arg) for arg in call.args]
            return ir.Operator(call.op, new_args)  # passline: Operator(op, args)

        def visit_global_var(self, gvar):
            return gvar

        def visit_function(self, fn):
            new_body = self.visit(fn.body)
            return fn.with_body(new_body)  # passline: the same function with the new body

    double_value = DoubleValues()
    return double_value.visit(func)


class OptTester():
    """A helper class for testing the pass manager."""

    def __init__(self, mod):
        if not isinstance(mod, tvm.IRModule):
            raise TypeError("mod is expected to be the type of "
                            "tvm.IRModule")
        self.mod = mod

    def analysis(self):
        """Perform analysis for the current module."""
        pass

    @staticmethod
    def transform(node, ctx=None):
        """Perform optimization on node."""
        if isinstance(node, tvm.IRModule):
            # Add a function to the module and return an updated module.
            gv, func = get_var_func()
            mod = tvm.IRModule({gv: func})
            mod.update(node)
            return mod
        if isinstance(node, relay.Function):
            return update_func(node)

        raise TypeError("Found not supported node type.")


def check_func(func, ref_func):
    assert tvm.ir.structural_equal(func, ref_func)  # passline: functions built typed; no run_infer_type


def test_module_pass():
    x = ir.Var("x", "i64")  # passline: i64 for the tensor type
    y = ir.Var("y", "i64")  # passline: i64 for the tensor type
    v_add = relay.GlobalVar("myAdd")
    func = ir.Function("myAdd", [x, y], x + y, "i64")  # passline: a function has its name
    mod = tvm.IRModule({v_add: func})

    pass_name = "module_pass_test"
    opt_level = 0
    opt_tester = OptTester(mod)
    pass_ctx = None

    @tvm.transform.module_pass(opt_level=opt_level, name=pass_name)
    def transform(expr, ctx):
        return opt_tester.transform(expr, ctx)

    def test_pass_registration():
        mod_pass = transform
        assert isinstance(mod_pass, tvm.transform.ModulePass)
        pass_info = mod_pass.info
        assert pass_info.name == pass_name
        assert pass_info.opt_level == opt_level

    def test_pass_registration_no_decorator():
        def direct_transform(expr, ctx):
            return opt_tester.transform(expr, ctx)
        mod_pass = tvm.transform.module_pass(direct_transform, opt_level=3)
        assert isinstance(mod_pass, tvm.transform.ModulePass)
        pass_info = mod_pass.info
        assert pass_info.name == "direct_transform"
        assert pass_info.opt_level == 3

    def test_pass_run():
        module_pass = transform
        assert pass_name in str(module_pass)

        updated_mod = module_pass(mod)
        assert isinstance(updated_mod, tvm.IRModule)

        # Check the abs function in the updated module.
        v_abs, myabs = get_var_func()
        new_v_add = updated_mod.get_global_var(v_abs.name_hint)
        new_abs = updated_mod[new_v_add]
        check_func(new_abs, myabs)

        # Check the add function in the updated module.
        v_abs, myabs = get_var_func()
        new_v_add = updated_mod.get_global_var(v_add.name_hint)
        new_add = updated_mod[new_v_add]
        check_func(new_add, func)

        # Check the add function in the python transformed module.
        ret = opt_tester.transform(mod, pass_ctx)
        transformed_v_add = ret.get_global_var(v_add.name_hint)
        transformed_add = mod[transformed_v_add]
        check_func(new_add, transformed_add)

        # passline: executing the function (executors on targets) is Relay's, not the pass manager's

    test_pass_registration()
    test_pass_registration_no_decorator
    test_pass_run()


def test_function_class_pass():
    @relay.transform.function_pass(opt_level=1)
    class TestReplaceFunc:
        """Simple test function to replace one argument to another."""
        def __init__(self, new_func):
            self.new_func = new_func

        def transform_function(self, func, mod, ctx):
            return self.new_func

    x = ir.Var("x", "i64")  # passline: i64 for shape (10, 20)
    f1 = ir.Function("f1", [x], x, "i64")  # passline: a function has its name
    f2 = ir.Function("f2", [x], ir.neg(x), "i64")  # passline: neg for log
    fpass = TestReplaceFunc(f1)
    assert fpass.info.opt_level == 1
    assert fpass.info.name == "TestReplaceFunc"
    mod = tvm.IRModule.from_expr(f2)
    mod = fpass(mod)
    # wrap in expr
    mod2 = tvm.IRModule.from_expr(f1)
    assert tvm.ir.structural_equal(mod["main"], mod2["main"])


def test_function_pass():
    x = ir.Var("x", "i64")  # passline: i64 for the tensor type
    v_log = relay.GlobalVar("myLog")
    log = ir.Function("myLog", [x], ir.neg(x), "i64")  # passline: neg for log; a function has its name
    mod = tvm.IRModule({v_log: log})

    pass_name = "function_pass_test"
    opt_level = 1
    opt_tester = OptTester(mod)
    pass_ctx = None

    @_transform.function_pass(opt_level=opt_level, name=pass_name)
    def transform(expr, mod, ctx):
        return opt_tester.transform(expr, ctx)

    def get_ref_log():
        ref_log = ir.Function("myLog", [x], ir.neg(ir.add(x, x)), "i64")  # passline: neg for log
        return ref_log

    def test_pass_registration():
        function_pass = transform
        assert isinstance(function_pass, _transform.FunctionPass)
        pass_info = function_pass.info
        assert pass_info.name == pass_name
        assert pass_info.opt_level == opt_level

    def test_pass_registration_no_decorator():
        def direct_transform(expr, ctx):
            return opt_tester.transform(expr, ctx)
        mod_pass = _transform.function_pass(direct_transform, opt_level=0)
        assert isinstance(mod_pass, _transform.FunctionPass)
        pass_info = mod_pass.info
        assert pass_info.name == "direct_transform"
        assert pass_info.opt_level == 0

    def test_pass_run():
        function_pass = transform
        assert pass_name in str(function_pass)

        updated_mod = function_pass(mod)
        assert isinstance(updated_mod, tvm.IRModule)

        # Check the log function in the updated module.
        new_v_log = updated_mod.get_global_var(v_log.name_hint)
        new_log = updated_mod[new_v_log]
        check_func(new_log, get_ref_log())

        # Check the log function in the python transformed function.
        ret = opt_tester.transform(log, pass_ctx)
        check_func(new_log, ret)

        # passline: executing the function (executors on targets) is Relay's, not the pass manager's

    test_pass_registration()
    test_pass_registration_no_decorator()
    test_pass_run()


def test_module_class_pass():
    @tvm.transform.module_pass(opt_level=1)
    class TestPipeline:
        """Simple test function to replace one argument to another."""
        def __init__(self, new_mod, replace):
            self.new_mod = new_mod
            self.replace = replace

        def transform_module(self, mod, ctx):
            if self.replace:
                return self.new_mod
            return mod

    x = ir.Var("x", "i64")  # passline: i64 for shape (10, 20)
    m1 = tvm.IRModule.from_expr(ir.Function("f", [x], x, "i64"))  # passline: a function has its name
    m2 = tvm.IRModule.from_expr(ir.Function("f", [x], ir.neg(x), "i64"))  # passline: neg for log
    fpass = TestPipeline(m2, replace=True)
    assert fpass.info.name == "TestPipeline"
    mod3 = fpass(m1)
    assert mod3.same_as(m2)
    mod4 = TestPipeline(m2, replace=False)(m1)
    assert mod4.same_as(m1)


def test_pass_info():
    info = tvm.transform.PassInfo(opt_level=1, name="xyz")
    assert info.opt_level == 1
    assert info.name == "xyz"


def test_sequential_pass():
    x = ir.Var("x", "i64")  # passline: i64 for the tensor type
    y = ir.Var("y", "i64")  # passline: i64 for the tensor type
    v_sub = relay.GlobalVar("mySub")
    sub = ir.Function("mySub", [x, y], ir.sub(x, y), "i64")  # passline: a function has its name

    z = ir.Var("z", "i64")  # passline: i64 for the tensor type
    v_log = relay.GlobalVar("myLog")
    log = ir.Function("myLog", [z], ir.neg(z), "i64")  # passline: neg for log; a function has its name

    mod = tvm.IRModule({v_sub: sub, v_log: log})

    def get_ref_log():
        ref_log = ir.Function("myLog", [x], ir.neg(ir.add(x, x)), "i64")  # passline: neg for log
        return ref_log

    def get_ref_sub():
        ref_sub = ir.Function("mySub", [x, y],  # passline: a function has its name
                              ir.sub(  # passline: ir.sub for relay.subtract
                                  ir.add(x, x), ir.add(y, y)), "i64")  # passline: ir.add for relay.add
        return ref_sub

    def get_ref_abs():
        a = ir.Var("a", "i64")  # passline: i64 for the tensor type
        ref_abs = ir.Function("myAbs", [a], ir.neg(ir.add(a, a)), "i64")  # passline: neg for abs
        return ref_abs

    # Register a module pass.
    opt_tester = OptTester(mod)
    pass_ctx = None

    @tvm.transform.module_pass(opt_level=1)
    def mod_transform(expr, ctx):
        return opt_tester.transform(expr, ctx)

    module_pass = mod_transform

    # Register a function pass.
    @_transform.function_pass(opt_level=1)
    def func_transform(expr, mod, ctx):
        return opt_tester.transform(expr, ctx)

    function_pass = func_transform

    def test_pass_registration():
        passes = [module_pass, function_pass]
        opt_level = 2
        pass_name = "sequential"
        sequential = tvm.transform.Sequential(passes=passes, opt_level=opt_level)
        pass_info = sequential.info
        assert pass_info.name == pass_name
        assert pass_info.opt_level == opt_level

    def test_no_pass():
        passes = []
        sequential = tvm.transform.Sequential(opt_level=1, passes=passes)
        ret_mod = sequential(mod)
        mod_func = ret_mod[v_sub]
        check_func(sub, mod_func)

    def test_only_module_pass():
        passes = [module_pass]
        sequential = tvm.transform.Sequential(opt_level=1, passes=passes)
        with relay.build_config(required_pass=["mod_transform"]):
            ret_mod = sequential(mod)
        # Check the subtract function.
        sub_var, new_sub = extract_var_func(ret_mod, v_sub.name_hint)
        check_func(new_sub, sub)

        # Check the abs function is added.
        abs_var, abs_func = get_var_func()
        abs_var, new_abs = extract_var_func(ret_mod, abs_var.name_hint)
        check_func(new_abs, abs_func)

    def test_only_function_pass():
        # Check the subtract function.
        passes = [function_pass]
        sequential = tvm.transform.Sequential(opt_level=1, passes=passes)
        with relay.build_config(required_pass=["func_transform"]):
            ret_mod = sequential(mod)
        _, new_sub = extract_var_func(ret_mod, v_sub.name_hint)
        check_func(new_sub, get_ref_sub())

        # Check the log function.
        log_var, new_log = extract_var_func(ret_mod, v_log.name_hint)
        check_func(new_log, get_ref_log())

    def test_multiple_passes():
        # Reset the current module since mod has been polluted by the previous
        # function pass.
        mod = tvm.IRModule({v_sub: sub, v_log: log})
        passes = [module_pass, function_pass]
        sequential = tvm.transform.Sequential(opt_level=1, passes=passes)
        required = ["mod_transform", "func_transform"]
        with relay.build_config(required_pass=required):
            ret_mod = sequential(mod)

        # Check the abs function is added.
        abs_var, abs_func = get_var_func()
        abs_var, new_abs = extract_var_func(ret_mod, abs_var.name_hint)
        check_func(new_abs, get_ref_abs())

        # Check the subtract function is modified correctly.
        _, new_sub = extract_var_func(ret_mod, v_sub.name_hint)
        check_func(new_sub, get_ref_sub())

        # Check the log function is modified correctly.
        _, new_log = extract_var_func(ret_mod, v_log.name_hint)
        check_func(new_log, get_ref_log())

        # passline: executing the functions (executors on targets) is Relay's, not the pass manager's

    test_pass_registration()
    test_no_pass()
    test_only_module_pass()
    test_only_function_pass()
    test_multiple_passes()


def test_sequential_with_scoping():
    c_data = 1  # passline: an i64 for the tensor (1, 2, 3)
    def before():
        c = ir.const(c_data)  # passline: ir.const for relay.const
        x = ir.Var("x", "i64")  # passline: i64 for the tensor type
        y = ir.add(c, c)  # passline: ir.add for relay.add
        y = ir.mul(y, ir.const(2))  # passline: ir.mul, ir.const for relay.multiply, relay.const
        y = ir.add(x, y)  # passline: ir.add for relay.add
        z = ir.add(y, c)  # passline: ir.add for relay.add
        z1 = ir.add(y, c)  # passline: ir.add for relay.add
        z2 = ir.add(z, z1)  # passline: ir.add for relay.add
        return ir.Function("main", [x], z2, "i64")  # passline: a function has its name

    def expected():
        x = ir.Var("x", "i64")  # passline: i64 for the tensor type
        c_folded = (c_data + c_data) * 2
        y = ir.add(x, ir.const(c_folded))  # passline: ir.add, ir.const for relay.add, relay.const
        z = ir.add(x, ir.const(c_folded + c_data))  # passline: the reference IR's passes also fold (x + 4) + 1 into x + 5
        z1 = ir.add(z, z)  # passline: ir.add for relay.add
        return ir.Function("main", [x], z1, "i64")  # passline: a function has its name

    seq = tvm.transform.Sequential([
        relay.transform.InferType(),
        relay.transform.FoldConstant(),
        relay.transform.EliminateCommonSubexpr(),
        relay.transform.SimplifyExpr()  # passline: for AlterOpLayout, which the reference IR does not have
    ])

    mod = tvm.IRModule({"main": before()})
    with relay.build_config(opt_level=3):
        mod = seq(mod)  # passline: no target to enter

    zz = mod["main"]
    zexpected = relay.transform.InferType()(tvm.IRModule({"main": expected()}))["main"]  # passline: run_infer_type is InferType on a module of the function
    assert tvm.ir.structural_equal(zz, zexpected)


def test_print_ir(capfd):
    x = ir.Var("x", "i64")  # passline: i64 for the tensor type
    y = ir.add(x, x)  # passline: ir.add for relay.add
    y = ir.mul(y, ir.const(2))  # passline: ir.mul, ir.const for relay.multiply, relay.const
    func = ir.Function("main", [x], y, "i64")  # passline: a function has its name

    seq = tvm.transform.Sequential([
        relay.transform.InferType(),
        relay.transform.FoldConstant(),
        tvm.transform.PrintIR(),
        relay.transform.DeadCodeElimination()
    ])

    mod = tvm.IRModule({"main": func})
    with relay.build_config(opt_level=3):
        mod = seq(mod)

    out = capfd.readouterr().err

    assert "PrintIR" in out
    assert "mul" in out  # passline: the reference IR's mul for Relay's multiply

__TRACE_COUNTER__ = 0

def _tracer(module, info, is_before):
    global __TRACE_COUNTER__
    if bool(is_before):
        __TRACE_COUNTER__ += 1

def test_print_debug_callback():
    global __TRACE_COUNTER__
    x = ir.Var("x", "i64")  # passline: i64 for the tensor type
    y = ir.add(x, x)  # passline: ir.add for relay.add
    y = ir.mul(y, ir.const(2))  # passline: ir.mul, ir.const for relay.multiply, relay.const
    func = ir.Function("main", [x], y, "i64")  # passline: a function has its name

    seq = tvm.transform.Sequential([
        relay.transform.InferType(),
        relay.transform.FoldConstant(),
        relay.transform.DeadCodeElimination()
    ])

    assert __TRACE_COUNTER__ == 0
    mod = tvm.IRModule({"main": func})

    with relay.build_config(opt_level=3, trace=_tracer):
        mod = seq(mod)

    assert __TRACE_COUNTER__ == 4


if __name__ == "__main__":
    pytest.main()
