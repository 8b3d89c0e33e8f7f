# Writes generated/atomq/version.hpp with the commit the sources are at now: run at every
# build (not only at configure), so a file atomq writes names the commit it was built from.
#   cmake -DSOURCE_DIR=... -DOUTPUT=... -DPROJECT_VERSION=... -P write_version.cmake
cmake_policy(SET CMP0007 NEW)
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
# The model's version: a digest of what sets its verdicts (the model, the table library that reads
# the calibration, the bundled tables, the run document's profile reader), so predictions and the
# results measured after them can show they came from one model (docs/validation.md, "Held-out
# protocol"). The files git knows (tracked, or new and not ignored), else every file of the folders.
set(_atomq_model_paths model calibration/include calibration/tables analyzer/run_document
    calibration/src/service_table.cpp calibration/src/service_table_reader.cpp calibration/src/l2_section.cpp
    calibration/src/dsmem_section.cpp calibration/src/load_section.cpp calibration/src/shared_spin_section.cpp
    calibration/src/launch_section.cpp calibration/src/service_table_sections_reader.cpp
    calibration/src/table_reader_detail.hpp)
execute_process(COMMAND git ls-files --cached --others --exclude-standard -- ${_atomq_model_paths}
  WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE _atomq_ls OUTPUT_VARIABLE _atomq_model_files ERROR_QUIET)
if(_atomq_ls EQUAL 0 AND _atomq_model_files)
  string(REPLACE "\n" ";" _atomq_model_files "${_atomq_model_files}")
else()
  set(_atomq_model_files "")
  foreach(p IN LISTS _atomq_model_paths)
    if(IS_DIRECTORY ${SOURCE_DIR}/${p})
      file(GLOB_RECURSE _f RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/${p}/*)
      list(APPEND _atomq_model_files ${_f})
    else()
      list(APPEND _atomq_model_files ${p})
    endif()
  endforeach()
endif()
list(REMOVE_ITEM _atomq_model_files "")
list(SORT _atomq_model_files)
set(_atomq_model_text "")
foreach(f IN LISTS _atomq_model_files)
  if(EXISTS ${SOURCE_DIR}/${f})  # a file git still lists but the tree deleted is not there
    file(SHA256 ${SOURCE_DIR}/${f} _h)
    string(APPEND _atomq_model_text "${f} ${_h}\n")
  endif()
endforeach()
string(SHA256 _atomq_model_digest "${_atomq_model_text}")
string(SUBSTRING "${_atomq_model_digest}" 0 16 ATOMQ_MODEL_VERSION)
# configure_file leaves the file untouched when its text is unchanged: no needless rebuild.
configure_file(${CMAKE_CURRENT_LIST_DIR}/version.hpp.in ${OUTPUT} @ONLY)
