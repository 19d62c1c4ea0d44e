# Runs COMMAND (a ;-list) and checks that its standard output equals the file
# EXPECTED byte for byte and that it exits with EXIT_CODE (default 0).
# On a mismatch it prints both, so a failing example says what changed.
if(NOT DEFINED EXIT_CODE)
  set(EXIT_CODE 0)
endif()
execute_process(COMMAND ${COMMAND}
  RESULT_VARIABLE result
  OUTPUT_VARIABLE actual
  ERROR_VARIABLE errors)
file(READ ${EXPECTED} expected)
if(NOT result STREQUAL "${EXIT_CODE}")
  message(FATAL_ERROR "exit code ${result}, expected ${EXIT_CODE}\nstderr:\n${errors}\nstdout:\n${actual}")
endif()
if(NOT actual STREQUAL expected)
  message(FATAL_ERROR "output differs from ${EXPECTED}\n--- expected\n${expected}\n--- actual\n${actual}")
endif()
