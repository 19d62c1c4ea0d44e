# Warnings for every passline target; errors when PASSLINE_WERROR is on (CI).
function(passline_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(PASSLINE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
