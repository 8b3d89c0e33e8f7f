# Install layout and the exported CMake package (find_package(atomq)):
#   bin/atomq, lib/libatomq_inject.so (found by atomq as bin/../lib), static libraries and
#   include/atomq/..., lib/cmake/atomq/, share/atomq/{tables,recorded} (atomq/common/data_dir.hpp
#   finds it as bin/../share/atomq). The build tree has the same share/atomq beside bin/.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(ATOMQ_INSTALL_DATADIR share/atomq)
set(ATOMQ_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/atomq)
set(ATOMQ_BUILD_DATA_DIR ${CMAKE_BINARY_DIR}/share/atomq)

# Public headers of a library: from the source tree when building, include/ when installed.
function(atomq_public_headers target dir)
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${dir}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  install(DIRECTORY ${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endfunction()

# A library of the exported package, named atomq::NAME there.
function(atomq_export target name)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  add_library(atomq::${name} ALIAS ${target})
  install(TARGETS ${target} EXPORT atomqTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endfunction()

# The data: staged beside the build's bin/ at every build, installed under share/atomq.
function(atomq_install_data)
  set(tables ${PROJECT_SOURCE_DIR}/calibration/tables)
  set(recorded ${PROJECT_SOURCE_DIR}/analyzer/report/recorded)
  set(ncu ${PROJECT_SOURCE_DIR}/analyzer/ncu)  # the section and rule for Nsight Compute
  add_custom_target(atomq_data ALL
    COMMAND ${CMAKE_COMMAND} -E copy_directory ${tables} ${ATOMQ_BUILD_DATA_DIR}/tables
    COMMAND ${CMAKE_COMMAND} -E copy_directory ${recorded} ${ATOMQ_BUILD_DATA_DIR}/recorded
    COMMAND ${CMAKE_COMMAND} -E copy_directory ${ncu} ${ATOMQ_BUILD_DATA_DIR}/ncu
    COMMENT "Staging atomq's data in share/atomq")
  install(DIRECTORY ${tables}/ DESTINATION ${ATOMQ_INSTALL_DATADIR}/tables)
  install(DIRECTORY ${recorded}/ DESTINATION ${ATOMQ_INSTALL_DATADIR}/recorded)
  install(DIRECTORY ${ncu}/ DESTINATION ${ATOMQ_INSTALL_DATADIR}/ncu)
endfunction()

function(atomq_install_package)
  install(EXPORT atomqTargets NAMESPACE atomq:: DESTINATION ${ATOMQ_INSTALL_CMAKEDIR})
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/atomqConfig.cmake.in
    ${CMAKE_BINARY_DIR}/atomqConfig.cmake INSTALL_DESTINATION ${ATOMQ_INSTALL_CMAKEDIR}
    PATH_VARS ATOMQ_INSTALL_DATADIR)
  write_basic_package_version_file(${CMAKE_BINARY_DIR}/atomqConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
  install(FILES ${CMAKE_BINARY_DIR}/atomqConfig.cmake ${CMAKE_BINARY_DIR}/atomqConfigVersion.cmake
    ${PROJECT_SOURCE_DIR}/cmake/FindCUPTI.cmake DESTINATION ${ATOMQ_INSTALL_CMAKEDIR})
  install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/CITATION.cff
    DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/atomq OPTIONAL)
endfunction()
