# One command on a fresh Debian 12 machine (run from the repository root):
#   cmake -P cmake/bootstrap.cmake
# installs the Debian packages atomq builds with, configures and builds into build/, then
# runs the main job (see README). -DATOMQ_RUN_MAIN_JOB=OFF stops after the build.
cmake_minimum_required(VERSION 3.25)
if(NOT DEFINED ATOMQ_RUN_MAIN_JOB)
  set(ATOMQ_RUN_MAIN_JOB ON)
endif()
get_filename_component(src "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(build "${src}/build")

set(packages ninja-build g++ python3 libeigen3-dev libcli11-dev libspdlog-dev libfmt-dev
             nlohmann-json3-dev libgtest-dev binutils)
set(missing "")
foreach(p IN LISTS packages)
  execute_process(COMMAND dpkg-query -W -f=\${Status} ${p}
    OUTPUT_VARIABLE status ERROR_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT status MATCHES "install ok installed")
    list(APPEND missing ${p})
  endif()
endforeach()
if(missing)
  execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(sudo "")
  if(NOT uid STREQUAL "0")
    set(sudo sudo)
  endif()
  message(STATUS "installing: ${missing}")
  execute_process(COMMAND ${sudo} apt-get update COMMAND_ERROR_IS_FATAL ANY)
  execute_process(COMMAND ${sudo} env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing}
    COMMAND_ERROR_IS_FATAL ANY)
endif()

if(NOT EXISTS /usr/local/cuda/bin/nvcc)
  message(FATAL_ERROR "the CUDA 13 toolkit is expected at /usr/local/cuda (nvcc, CUPTI)")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${src} -B ${build} -G Ninja COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${build} COMMAND_ERROR_IS_FATAL ANY)
if(NOT ATOMQ_RUN_MAIN_JOB)
  return()
endif()

# The main job: with a GPU, list it and calibrate it (quick grid); without one, say so and
# show the bundled H200 table instead.
set(atomq ${build}/bin/atomq)
execute_process(COMMAND ${atomq} devices RESULT_VARIABLE has_gpu)
if(has_gpu EQUAL 0)
  execute_process(COMMAND ${atomq} calibrate --quick -o ${build}/atomq-table-quick.json
    COMMAND_ERROR_IS_FATAL ANY)
else()
  message(STATUS "no GPU here: showing the bundled table measured on an H200")
  execute_process(COMMAND ${atomq} table show ${src}/calibration/tables/GH100.json
    COMMAND_ERROR_IS_FATAL ANY)
endif()
