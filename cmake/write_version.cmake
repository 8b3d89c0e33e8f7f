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
# The model's version: a digest of what sets its verdicts (the model's sources and the bundled
# tables), so predictions and the results measured after them can show they came from one model
# (docs/validation.md, "Held-out protocol").
file(GLOB_RECURSE _atomq_model_files RELATIVE ${SOURCE_DIR}
  ${SOURCE_DIR}/model/src/* ${SOURCE_DIR}/model/include/* ${SOURCE_DIR}/calibration/tables/*.json)
list(SORT _atomq_model_files)
set(_atomq_model_text "")
foreach(f IN LISTS _atomq_model_files)
  file(SHA256 ${SOURCE_DIR}/${f} _h)
  string(APPEND _atomq_model_text "${f} ${_h}\n")
endforeach()
string(SHA256 _atomq_model_digest "${_atomq_model_text}")
string(SUBSTRING "${_atomq_model_digest}" 0 16 ATOMQ_MODEL_VERSION)
# configure_file leaves the file untouched when its text is unchanged: no needless rebuild.
configure_file(${CMAKE_CURRENT_LIST_DIR}/version.hpp.in ${OUTPUT} @ONLY)
