# Compile-fail tests: code that must NOT compile, with the expected diagnostic.
#
# A case is one source file. Its header says what the compiler must print:
#   // expect-error: <CMake regex>     (one or more; every one must match)
#   // max-lines: <N>                  (diagnostic line budget, default 12)
#   // max-errors: <N>                 (how many `error:` lines at most, default 1)
#   // also-in: sequential compiled registry
#                                      (variants: the case's pass or pipeline used
#                                      inside each of these, see use.h; each must
#                                      fail with the same budget)
#   // expect-error-in-<context>: <CMake regex>
#                                      (what a variant must print instead)
# The lines that must fail sit under `#ifdef PASSLINE_COMPILE_FAIL`. The same file
# without that macro is the case's twin and must compile, so that a broken include
# or a typo cannot pass as an expected failure.
#
# Both are EXCLUDE_FROM_ALL object libraries, built by the test through the build
# tool; the tests share one resource lock because they drive the same build tree.

set(PASSLINE_COMPILE_FAIL_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/RunCompileFail.cmake)

function(passline_compile_fail source)
  get_filename_component(name ${source} NAME_WE)
  get_filename_component(path ${source} ABSOLUTE)
  file(STRINGS ${path} also REGEX "^// also-in: ")
  string(REGEX REPLACE "^// also-in: " "" also "${also}")
  separate_arguments(contexts UNIX_COMMAND "${also}")
  foreach(context IN LISTS contexts)
    set(target compile_fail_${name}_in_${context})
    add_library(${target} OBJECT EXCLUDE_FROM_ALL ${path})
    target_link_libraries(${target} PRIVATE ${ARGN})
    string(TOUPPER ${context} upper)
    target_compile_definitions(${target} PRIVATE PASSLINE_COMPILE_FAIL PASSLINE_IN_${upper} PASSLINE_IN_CONTEXT)
    add_test(NAME compile_fail.${name}.in_${context}
      COMMAND ${CMAKE_COMMAND}
        -DBUILD_DIR=${CMAKE_BINARY_DIR}
        -DTARGET=${target}
        -DSOURCE=${path}
        -DKIND=fail
        -DCONTEXT=${context}
        -P ${PASSLINE_COMPILE_FAIL_SCRIPT})
    set_tests_properties(compile_fail.${name}.in_${context} PROPERTIES
      LABELS compile-fail
      RESOURCE_LOCK passline-build-tree
      COST 5  # one at a time, a minute in all: started early, beside the long tests
      TIMEOUT 120)
  endforeach()
  foreach(kind fail twin)
    set(target compile_fail_${name}_${kind})
    add_library(${target} OBJECT EXCLUDE_FROM_ALL ${path})
    target_link_libraries(${target} PRIVATE ${ARGN})
    if(kind STREQUAL "fail")
      target_compile_definitions(${target} PRIVATE PASSLINE_COMPILE_FAIL)
    endif()
    add_test(NAME compile_fail.${name}.${kind}
      COMMAND ${CMAKE_COMMAND}
        -DBUILD_DIR=${CMAKE_BINARY_DIR}
        -DTARGET=${target}
        -DSOURCE=${path}
        -DKIND=${kind}
        -P ${PASSLINE_COMPILE_FAIL_SCRIPT})
    set_tests_properties(compile_fail.${name}.${kind} PROPERTIES
      LABELS compile-fail
      RESOURCE_LOCK passline-build-tree
      COST 5  # one at a time, a minute in all: started early, beside the long tests
      TIMEOUT 120)
  endforeach()
endfunction()
