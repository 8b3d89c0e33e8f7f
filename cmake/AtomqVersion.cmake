# Version and commit recorded in every file atomq writes. The header is written at configure
# time and again at every build (cmake/write_version.cmake), so the commit is the build's.
set(_atomq_version_header ${CMAKE_BINARY_DIR}/generated/atomq/version.hpp)
set(_atomq_version_args -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DOUTPUT=${_atomq_version_header}
    -DPROJECT_VERSION=${PROJECT_VERSION})
execute_process(COMMAND ${CMAKE_COMMAND} ${_atomq_version_args} -P ${CMAKE_CURRENT_LIST_DIR}/write_version.cmake)
add_custom_target(atomq_version_header
  COMMAND ${CMAKE_COMMAND} ${_atomq_version_args} -P ${CMAKE_CURRENT_LIST_DIR}/write_version.cmake
  BYPRODUCTS ${_atomq_version_header}
  COMMENT "atomq version header (the sources' commit)")
add_library(atomq_version INTERFACE)
target_include_directories(atomq_version INTERFACE $<BUILD_INTERFACE:${CMAKE_BINARY_DIR}/generated>)
atomq_export(atomq_version version)
add_dependencies(atomq_version atomq_version_header)
