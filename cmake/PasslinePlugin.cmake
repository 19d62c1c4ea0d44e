# Plugins (docs/plugins.md): passline_add_plugin builds one, passline_export_for_plugins
# makes a program or an extension module a host for them.

# `target` and the libraries it links, transitively, into `out`: a target
# that imports a module must link the module's library itself (CMake finds
# the modules of imported targets through direct links only).
function(_passline_link_closure target out)
  set(found ${${out}})
  if(NOT TARGET ${target} OR ${target} IN_LIST found)
    return()
  endif()
  list(APPEND found ${target})
  get_target_property(links ${target} INTERFACE_LINK_LIBRARIES)
  foreach(link IN LISTS links)
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" link "${link}")
    _passline_link_closure(${link} found)
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

# passline_add_plugin(NAME SOURCES source... IR target)
#
# A passline plugin: a shared library NAME.so of passes, loaded at run time
# by passline-opt, passline-mlir-opt (--load-pass-plugin), Python
# (passline.load_plugin) or passline::load_plugin. IR is the library whose
# IR its passes are for, and whose modules it imports: passline::pipelines
# (or passline::ir_passes, passline::ir) for the reference IR, passline::mlir
# for MLIR, or a target of your own IR's.
#
# The plugin is compiled against those libraries' interfaces but does not
# link them: it calls passline's code, and the IR's, in the program that
# loads it, which exports them (as LLVM's opt does for its plugins), so that
# a process has one passline, with one process-wide registry and one table
# of config keys. Build it with the compiler, standard library and passline
# the program was built with: the program checks all three when it loads it.
function(passline_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "IR" "SOURCES")
  if(NOT arg_SOURCES OR NOT arg_IR)
    message(FATAL_ERROR "passline_add_plugin(${name} SOURCES ... IR target): SOURCES and IR are required")
  endif()
  # Compiled with the IR's modules and usage requirements (NAME_objects,
  # where compile settings of your own go), linked without its code: the
  # library holds the plugin's objects alone.
  add_library(${name}_objects OBJECT ${arg_SOURCES})
  target_compile_features(${name}_objects PRIVATE cxx_std_20)
  set(closure "")
  _passline_link_closure(${arg_IR} closure)
  target_link_libraries(${name}_objects PRIVATE ${closure})
  set_target_properties(${name}_objects PROPERTIES POSITION_INDEPENDENT_CODE ON)
  add_library(${name} MODULE $<TARGET_OBJECTS:${name}_objects>)
  set_target_properties(${name} PROPERTIES PREFIX "" LINKER_LANGUAGE CXX)
endfunction()

# passline_export_for_plugins(TARGET [LIBRARIES library...])
#
# Makes TARGET a host for plugins: a program exports its symbols
# (-rdynamic); a shared library (a Python extension) keeps its symbols
# visible, and must make them global (passline::support::share_symbols_of)
# before it loads a plugin. Either links the whole of passline and of each
# static LIBRARY (the IR's), so that a plugin finds every function of
# theirs it calls.
function(passline_export_for_plugins target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "LIBRARIES")
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "EXECUTABLE")
    set_target_properties(${target} PROPERTIES ENABLE_EXPORTS ON)
  else()
    set_target_properties(${target} PROPERTIES CXX_VISIBILITY_PRESET default VISIBILITY_INLINES_HIDDEN OFF)
  endif()
  foreach(library passline::passline ${arg_LIBRARIES})
    target_link_options(${target} PRIVATE "LINKER:--whole-archive" "$<TARGET_FILE:${library}>" "LINKER:--no-whole-archive")
  endforeach()
endfunction()
