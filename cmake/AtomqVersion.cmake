# Version and commit recorded in every file atomq writes.
execute_process(COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
  OUTPUT_VARIABLE ATOMQ_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
execute_process(COMMAND git status --porcelain --untracked-files=no
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
  OUTPUT_VARIABLE _atomq_dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT ATOMQ_GIT_COMMIT)
  set(ATOMQ_GIT_COMMIT "unknown")
elseif(_atomq_dirty)
  set(ATOMQ_GIT_COMMIT "${ATOMQ_GIT_COMMIT}-dirty")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/version.hpp.in
  ${CMAKE_BINARY_DIR}/generated/atomq/version.hpp @ONLY)
add_library(atomq_version INTERFACE)
target_include_directories(atomq_version INTERFACE ${CMAKE_BINARY_DIR}/generated)
