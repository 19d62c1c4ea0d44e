# Runs one compile-fail case or its twin (see PasslineCompileFail.cmake).
# Inputs: BUILD_DIR, TARGET, SOURCE, KIND (fail|twin).

# Inputs: CONTEXT, for a variant that uses the case inside a pipeline or registry.

file(STRINGS ${SOURCE} header REGEX "^// (expect-error[-a-z]*|max-lines|max-errors):")
set(expected "")
set(expected_here "")
set(max_lines 12)
set(max_errors 1)
foreach(line IN LISTS header)
  if(line MATCHES "^// expect-error: (.*)$")
    list(APPEND expected "${CMAKE_MATCH_1}")
  elseif(DEFINED CONTEXT AND line MATCHES "^// expect-error-in-${CONTEXT}: (.*)$")
    list(APPEND expected_here "${CMAKE_MATCH_1}")
  elseif(line MATCHES "^// max-lines: ([0-9]+)")
    set(max_lines ${CMAKE_MATCH_1})
  elseif(line MATCHES "^// max-errors: ([0-9]+)")
    set(max_errors ${CMAKE_MATCH_1})
  endif()
endforeach()

execute_process(
  COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET}
  RESULT_VARIABLE result
  OUTPUT_VARIABLE output
  ERROR_VARIABLE output)

if(expected_here)
  set(expected "${expected_here}")
endif()

if(KIND STREQUAL "twin")
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "the twin of ${SOURCE} must compile, but:\n${output}")
  endif()
  message(STATUS "twin compiles: ${SOURCE}")
  return()
endif()

if(NOT expected)
  message(FATAL_ERROR "${SOURCE} has no '// expect-error:' line")
endif()
if(result EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but it must not")
endif()

# Keep only what the compiler said: drop the build tool's progress lines and
# the echoed command line.
string(REPLACE ";" "\\;" output "${output}")
string(REPLACE "\n" ";" lines "${output}")
set(diagnostic "")
set(line_count 0)
set(error_count 0)
set(command_line_next FALSE)
foreach(line IN LISTS lines)
  if(command_line_next)
    set(command_line_next FALSE)
    continue()
  endif()
  if(line MATCHES "^FAILED: ")
    set(command_line_next TRUE)
    continue()
  endif()
  if(line MATCHES "^\\[[0-9]+/[0-9]+\\] " OR line MATCHES "^ninja: " OR line STREQUAL "")
    continue()
  endif()
  string(APPEND diagnostic "${line}\n")
  math(EXPR line_count "${line_count} + 1")
  if(line MATCHES ": error: ")
    math(EXPR error_count "${error_count} + 1")
  endif()
endforeach()

foreach(regex IN LISTS expected)
  if(NOT diagnostic MATCHES "${regex}")
    message(FATAL_ERROR "${SOURCE}: the diagnostic does not match '${regex}':\n${diagnostic}")
  endif()
endforeach()
if(line_count GREATER max_lines)
  message(FATAL_ERROR "${SOURCE}: ${line_count} diagnostic lines, budget ${max_lines}:\n${diagnostic}")
endif()
if(error_count GREATER max_errors)
  message(FATAL_ERROR "${SOURCE}: ${error_count} errors, at most ${max_errors} allowed:\n${diagnostic}")
endif()
message(STATUS "fails as expected (${line_count} lines, ${error_count} errors): ${SOURCE}\n${diagnostic}")
