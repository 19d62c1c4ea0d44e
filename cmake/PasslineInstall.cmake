# Installs the library, the reducer, the driver, the reference IR with its
# passes, pipelines and reduction, and passline-opt, with the module interface
# sources and a CMake package, so that another project can
# `find_package(passline)` and `import passline;` (target passline::passline),
# `import passline.reduce;` (passline::reduce), `import passline.driver;`
# (passline::driver: a tool for its own IR), `import passline.ir;`
# (passline::ir), `import passline.ir.passes;` (passline::ir_passes), `import
# passline.ir.reduce;` (passline::ir_reduce) or `import passline.pipelines;`
# (passline::pipelines); with MLIR 19, passline.mlir and passline.mlir.reduce
# too (below).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PASSLINE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/passline)

set_target_properties(passline_ir PROPERTIES EXPORT_NAME ir)
set_target_properties(passline_ir_passes PROPERTIES EXPORT_NAME ir_passes)
set_target_properties(passline_pipelines PROPERTIES EXPORT_NAME pipelines)
set_target_properties(passline_reduce PROPERTIES EXPORT_NAME reduce)
set_target_properties(passline_driver PROPERTIES EXPORT_NAME driver)
set_target_properties(passline_ir_reduce PROPERTIES EXPORT_NAME ir_reduce)
# Each module's interface (and the parts it includes) in a directory of its
# own, include/passline/<target>: three of them are reduce.cppm.
function(passline_install_module target export)
  get_target_property(sets ${target} INTERFACE_HEADER_SETS)
  set(parts "")
  if(sets)
    set(parts FILE_SET parts DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/passline/${target})
  endif()
  install(TARGETS ${target} EXPORT ${export}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    FILE_SET CXX_MODULES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/passline/${target}
    ${parts})
endfunction()
foreach(target passline passline_reduce passline_driver passline_ir passline_ir_passes passline_ir_reduce
               passline_pipelines)
  passline_install_module(${target} passlineTargets)
endforeach()
install(TARGETS passline-opt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT passlineTargets
  NAMESPACE passline::
  DESTINATION ${PASSLINE_CMAKE_DIR}
  CXX_MODULES_DIRECTORY cxx-modules)

# passline.mlir (built with MLIR 19) is the package's component `mlir`:
# find_package(passline COMPONENTS mlir) finds MLIR 19 (and LLVM) and defines
# passline::mlir (`import passline.mlir;`), passline::mlir_reduce
# (`import passline.mlir.reduce;`) and passline::mlir_opt (`import
# passline.mlir.opt;`: a passline-mlir-opt of your own); passline-mlir-opt is installed
# beside passline-opt. Its own export set, so that a project without MLIR
# finds the rest of the package as before.
if(PASSLINE_HAVE_MLIR)
  set_target_properties(passline_mlir PROPERTIES EXPORT_NAME mlir)
  set_target_properties(passline_mlir_reduce PROPERTIES EXPORT_NAME mlir_reduce)
  set_target_properties(passline_mlir_opt PROPERTIES EXPORT_NAME mlir_opt)
  passline_install_module(passline_mlir passlineMlirTargets)
  passline_install_module(passline_mlir_reduce passlineMlirTargets)
  passline_install_module(passline_mlir_opt passlineMlirTargets)
  install(TARGETS passline-mlir-opt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(EXPORT passlineMlirTargets
    NAMESPACE passline::
    DESTINATION ${PASSLINE_CMAKE_DIR}
    CXX_MODULES_DIRECTORY cxx-modules-mlir)
endif()

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/passlineConfig.cmake.in
  ${PROJECT_BINARY_DIR}/passlineConfig.cmake
  INSTALL_DESTINATION ${PASSLINE_CMAKE_DIR})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/passlineConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/passlineConfig.cmake
  ${PROJECT_BINARY_DIR}/passlineConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/PasslinePlugin.cmake
  DESTINATION ${PASSLINE_CMAKE_DIR})
