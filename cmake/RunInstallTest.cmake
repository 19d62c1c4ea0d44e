# Installs the build tree BUILD_DIR into WORK_DIR/prefix, then configures, builds
# and runs the project CONSUMER_DIR against it.
file(REMOVE_RECURSE ${WORK_DIR})

function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "failed: ${ARGN}\n${out}")
  endif()
  message(STATUS "${out}")
endfunction()

step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
step(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/build -G Ninja
  -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_CXX_COMPILER=${CXX}
  -DCMAKE_CXX_COMPILER_CLANG_SCAN_DEPS=${SCAN_DEPS}
  "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
  "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}"
  -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
  -DEXPECT_MLIR=${EXPECT_MLIR})
step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
step(${WORK_DIR}/build/consumer)
step(${WORK_DIR}/build/ir_consumer)
step(${WORK_DIR}/prefix/bin/passline-opt --list-passes)
if(EXPECT_MLIR)
  step(${WORK_DIR}/build/mlir_consumer)
  step(${WORK_DIR}/prefix/bin/passline-mlir-opt --list-config)
endif()
