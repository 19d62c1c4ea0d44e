# Configures, builds and runs the project CONSUMER_DIR against the package
# installed in WORK_DIR/prefix (the test install.prefix), in WORK_DIR. Its Release flags are
# RELEASE_FLAGS (-O0: the test checks what the package builds and runs, not
# how fast).
file(REMOVE_RECURSE ${WORK_DIR}/build)

function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "failed: ${ARGN}\n${out}")
  endif()
  message(STATUS "${out}")
endfunction()

step(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/build -G Ninja
  -DCMAKE_BUILD_TYPE=Release
  "-DCMAKE_CXX_FLAGS_RELEASE=${RELEASE_FLAGS}"
  -DCMAKE_CXX_COMPILER=${CXX}
  -DCMAKE_CXX_COMPILER_CLANG_SCAN_DEPS=${SCAN_DEPS}
  "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
  "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}"
  -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
  -DEXPECT_MLIR=${EXPECT_MLIR}
  -DPLUGIN_DIR=${PLUGIN_DIR}
  -DYOUR_OWN_TOOL_DIR=${YOUR_OWN_TOOL_DIR}
  -DYOUR_OWN_MLIR_OPT_DIR=${YOUR_OWN_MLIR_OPT_DIR})
step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
step(${WORK_DIR}/build/consumer)
step(${WORK_DIR}/build/ir_consumer)
step(${WORK_DIR}/build/reduce_consumer)
step(${WORK_DIR}/prefix/bin/passline-opt --list-passes)
if(EXPECT_MLIR)
  step(${WORK_DIR}/build/mlir_consumer)
  step(${WORK_DIR}/prefix/bin/passline-mlir-opt --list-config)
endif()

# The example plugins (examples/plugin, a project of their own built in the
# consumer's), loaded into the installed drivers.
function(step_expecting pattern)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT result EQUAL 0 OR NOT out MATCHES "${pattern}")
    message(FATAL_ERROR "failed, or its output does not match '${pattern}': ${ARGN}\n${out}")
  endif()
  message(STATUS "${out}")
endfunction()
step_expecting("CountFunctions +- functions"
  ${WORK_DIR}/prefix/bin/passline-opt ${PLUGIN_DIR}/../ir/arith.ir --load-pass-plugin=${WORK_DIR}/build/plugin/example_plugin.so
  --passes=plugin-cleanup --stats)
if(EXPECT_MLIR)
  step_expecting("Pass statistics report[^\n]*\n=+-+=+\ncount-ops\n  \\(S\\) [0-9]+ operations"
    ${WORK_DIR}/prefix/bin/passline-mlir-opt ${CONSUMER_DIR}/../../mlir/corpus/func_arith.mlir
    --load-pass-plugin=${WORK_DIR}/build/plugin/mlir_plugin.so --passes=count-and-clean -mlir-pass-statistics)
endif()
