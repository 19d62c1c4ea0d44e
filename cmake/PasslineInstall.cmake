# Installs the library, the reference IR with its passes and pipelines, and
# passline-opt, with the module interface sources and a CMake package, so that
# another project can `find_package(passline)` and `import passline;` (target
# passline::passline), `import passline.ir;` (passline::ir), `import
# passline.ir.passes;` (passline::ir_passes) or `import passline.pipelines;`
# (passline::pipelines); with MLIR 19, passline.mlir too (below).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PASSLINE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/passline)

set_target_properties(passline_ir PROPERTIES EXPORT_NAME ir)
set_target_properties(passline_ir_passes PROPERTIES EXPORT_NAME ir_passes)
set_target_properties(passline_pipelines PROPERTIES EXPORT_NAME pipelines)
install(TARGETS passline passline_ir passline_ir_passes passline_pipelines EXPORT passlineTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  FILE_SET CXX_MODULES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/passline
  FILE_SET parts DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/passline)
install(TARGETS passline-opt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT passlineTargets
  NAMESPACE passline::
  DESTINATION ${PASSLINE_CMAKE_DIR}
  CXX_MODULES_DIRECTORY cxx-modules)

# passline.mlir (built with MLIR 19) is the package's component `mlir`:
# find_package(passline COMPONENTS mlir) finds MLIR 19 (and LLVM) and defines
# passline::mlir (`import passline.mlir;`); passline-mlir-opt is installed
# beside passline-opt. Its own export set, so that a project without MLIR
# finds the rest of the package as before.
if(PASSLINE_HAVE_MLIR)
  set_target_properties(passline_mlir PROPERTIES EXPORT_NAME mlir)
  install(TARGETS passline_mlir EXPORT passlineMlirTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    FILE_SET CXX_MODULES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/passline)
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
