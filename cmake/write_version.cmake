# Writes generated/atomq/version.hpp with the commit the sources are at now: run at every
# build (not only at configure), so a file atomq writes names the commit it was built from.
#   cmake -DSOURCE_DIR=... -DOUTPUT=... -DPROJECT_VERSION=... -P write_version.cmake
execute_process(COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY ${SOURCE_DIR}
  OUTPUT_VARIABLE ATOMQ_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
execute_process(COMMAND git status --porcelain --untracked-files=no
  WORKING_DIRECTORY ${SOURCE_DIR}
  OUTPUT_VARIABLE _atomq_dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT ATOMQ_GIT_COMMIT)
  set(ATOMQ_GIT_COMMIT "unknown")
elseif(_atomq_dirty)
  set(ATOMQ_GIT_COMMIT "${ATOMQ_GIT_COMMIT}-dirty")
endif()
# configure_file leaves the file untouched when its text is unchanged: no needless rebuild.
configure_file(${CMAKE_CURRENT_LIST_DIR}/version.hpp.in ${OUTPUT} @ONLY)
