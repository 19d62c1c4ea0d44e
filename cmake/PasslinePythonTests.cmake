# The one environment every test that starts Python gets: Python is started
# through ${PASSLINE_PYTHON_TEST}, a launcher that runs Debian's interpreter
# with the package's build directory on its path and, under the `sanitize`
# preset, AddressSanitizer's runtime preloaded (the interpreter is not built
# with it; the extension and plugins are) with its options. (The `tsan`
# preset runs no test that loads the extension: its Python, lit's, runs
# without ThreadSanitizer's runtime.) The launcher's
# directory comes first on every test's PATH, so a script that runs `python3`
# gets it too; `python.environment` checks that no test starts Python another
# way.
#
# The preload is the interpreter's alone: its sitecustomize takes it out of
# the environment that Python's own children inherit (LLVM's lit, a tool
# built with the sanitizer's static runtime, a reference tool built without).
if(DEFINED Python_EXECUTABLE)
  set(passline_python_interpreter ${Python_EXECUTABLE})
elseif(EXISTS /usr/bin/python3)
  set(passline_python_interpreter /usr/bin/python3)
else()
  find_program(passline_python_interpreter python3 REQUIRED)
endif()

set(passline_python_preload "")
set(passline_python_sanitizer_options "")
if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=[^ ]*address")
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libclang_rt.asan-x86_64.so
                  OUTPUT_VARIABLE passline_python_preload OUTPUT_STRIP_TRAILING_WHITESPACE)
  # Python's own allocations are never freed at exit: no leak reports. A use
  # of a dead stack frame is reported, as a context kept past the frame that
  # made it would be.
  set(passline_python_sanitizer_options "ASAN_OPTIONS=detect_leaks=0:detect_stack_use_after_return=1")
endif()

set(passline_python_env_dir ${PROJECT_BINARY_DIR}/python-env)
set(PASSLINE_PYTHON_TEST ${passline_python_env_dir}/bin/python3)
set(PASSLINE_PYTHON_TEST_PATH ${passline_python_env_dir}/bin)
file(CONFIGURE OUTPUT ${passline_python_env_dir}/site/sitecustomize.py CONTENT [=[
# passline's tests: what the launcher set for this interpreter alone (the
# sanitizer runtime preloaded, its options) is not handed on to the programs
# it starts: they get the environment the launcher was given. A Python it
# starts as `sys.executable` is the launcher, and gets it again.
import os
import sys

sys.executable = "@PASSLINE_PYTHON_TEST@"
if "PASSLINE_PYTHON_PRELOAD" in os.environ:
    for name in ("LD_PRELOAD", "ASAN_OPTIONS"):
        outer = os.environ.pop("PASSLINE_PYTHON_OUTER_" + name, None)
        if outer is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = outer
    del os.environ["PASSLINE_PYTHON_PRELOAD"]
]=] @ONLY)
file(CONFIGURE OUTPUT ${passline_python_env_dir}/bin/python3 CONTENT [=[
#!/bin/sh
# passline's tests start Python here (cmake/PasslinePythonTests.cmake).
PYTHONPATH="@passline_python_env_dir@/site:@PROJECT_BINARY_DIR@/python${PYTHONPATH:+:$PYTHONPATH}"
PYTHONDONTWRITEBYTECODE=1
export PYTHONPATH PYTHONDONTWRITEBYTECODE
preload="@passline_python_preload@"
if [ -n "$preload" ]; then
  # Each variable set here is given back to Python's children as it was.
  [ -n "${LD_PRELOAD+set}" ] && export PASSLINE_PYTHON_OUTER_LD_PRELOAD="$LD_PRELOAD"
  [ -n "${ASAN_OPTIONS+set}" ] && export PASSLINE_PYTHON_OUTER_ASAN_OPTIONS="$ASAN_OPTIONS"
  export PASSLINE_PYTHON_PRELOAD="$preload" LD_PRELOAD="$preload"
  options="@passline_python_sanitizer_options@"
  [ -n "$options" ] && export "$options"
fi
exec "@passline_python_interpreter@" "$@"
]=] @ONLY)
file(CHMOD ${passline_python_env_dir}/bin/python3
     PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

# Puts the launcher's directory first on the PATH of every test added in
# `dir` and the directories below it: call once, after the tests are added.
function(passline_python_test_path dir)
  get_property(tests DIRECTORY ${dir} PROPERTY TESTS)
  foreach(test IN LISTS tests)
    set_property(TEST ${test} DIRECTORY ${dir} APPEND PROPERTY ENVIRONMENT_MODIFICATION
                 "PATH=path_list_prepend:${PASSLINE_PYTHON_TEST_PATH}")
  endforeach()
  get_property(subdirectories DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdirectory IN LISTS subdirectories)
    passline_python_test_path(${subdirectory})
  endforeach()
endfunction()
