"""passline.load_plugin: a plugin's passes beside the C++ and Python ones,
its errors as PluginError, a name registered twice. Each case runs in a
Python of its own, as the registry it loads into is the process's."""
import os
import subprocess
import sys
import textwrap

EXAMPLE = os.environ["PASSLINE_EXAMPLE_PLUGIN"]
PLUGINS = os.environ["PASSLINE_TEST_PLUGIN_DIR"]


def run(code):
    """Runs `code` in a fresh interpreter; returns its stdout, or fails with its stderr."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=dict(os.environ), check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_example_plugin_passes_run_beside_python_ones():
    out = run(f"""
        import passline
        print(passline.load_plugin({EXAMPLE!r}))
        mod = passline.IRModule.parse("def @f(%x: i64) -> i64 {{ add(%x, mul(2, 3)) }}")

        @passline.module_pass(opt_level=0, required=["ExportAll"])
        def exported(mod, ctx):
            print("exported:", "#[export]" in str(mod))
            return mod

        with passline.PassContext(opt_level=2):
            mod = passline.Sequential([passline.create("FoldConstant"), exported,
                                       passline.create("CountFunctions", at_most=3)])(mod)
        print(str(mod).strip().splitlines()[-2].strip())
        print("CountFunctions" in passline.registered_passes())
    """)
    assert out.splitlines() == ["['CountFunctions', 'ExportAll', 'plugin-cleanup']", "exported: True",
                                "add(%x, 6)", "True"]


def test_a_plugin_pass_failing_is_a_pass_error():
    out = run(f"""
        import passline
        passline.load_plugin({EXAMPLE!r})
        mod = passline.IRModule.parse("def @f() -> i64 {{ 1 }}\\ndef @g() -> i64 {{ 2 }}")
        try:
            passline.parse_pipeline("CountFunctions{{at-most=1}}")(mod)
        except passline.PassError as error:
            print(error.pass_name, "|", error)
    """)
    assert out == "CountFunctions | pass 'CountFunctions' failed: the module has 2 functions, more than 1\n"


def test_errors_are_plugin_errors_and_register_nothing():
    out = run(f"""
        import passline
        before = passline.registered_passes()
        for name in ["test_plugin_throws", "test_plugin_other_api", "no_such_plugin"]:
            try:
                passline.load_plugin({PLUGINS!r} + "/" + name + ".so")
            except passline.PluginError as error:
                print(isinstance(error, passline.RegistryError), str(error).split("': ", 1)[1])
        print(passline.registered_passes() == before)
    """)
    assert out.splitlines() == [
        "True its registration failed: the plugin's registration gave up",
        "True it is for plugin API version 2, and this program loads version 1",
        "True no such file",
        "True"]


def test_two_plugins_with_one_name():
    out = run(f"""
        import passline
        passline.load_plugin({EXAMPLE!r})
        try:
            passline.load_plugin({PLUGINS!r} + "/test_plugin_twin.so")
        except passline.PluginError as error:
            print(error)
    """)
    assert out == (f"cannot load plugin '{PLUGINS}/test_plugin_twin.so': it registers pass 'ExportAll', "
                   f"which plugin '{EXAMPLE}' registered\n")


def test_nothing_of_a_plugin_is_there_before_it_is_loaded():
    out = run("""
        import passline
        print("ExportAll" in passline.registered_passes())
    """)
    assert out == "False\n"
