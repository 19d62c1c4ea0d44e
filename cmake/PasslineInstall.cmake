# Installs the library with its module interface sources and a CMake package, so
# that another project can `find_package(passline)` and `import passline;`.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PASSLINE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/passline)

install(TARGETS passline EXPORT passlineTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  FILE_SET CXX_MODULES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/passline)
install(EXPORT passlineTargets
  NAMESPACE passline::
  DESTINATION ${PASSLINE_CMAKE_DIR}
  CXX_MODULES_DIRECTORY cxx-modules)

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
  DESTINATION ${PASSLINE_CMAKE_DIR})
