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
             nlohmann-json3-dev libgtest-dev binutils libjs-chart.js chromium
             python3-dev pybind11-dev python3-pybind11)
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

# The main job: atomq demo. With a GPU it calibrates (quick grid), runs the histogram family on
# one-value and uniform inputs, analyzes and reports; without one it replays the profiles
# recorded on an H200 (analyzer/report/recorded/) with the bundled table, and says so.
set(atomq ${build}/bin/atomq)
execute_process(COMMAND ${atomq} demo -o ${build}/demo COMMAND_ERROR_IS_FATAL ANY)
message(STATUS "report: ${build}/demo/report.html and ${build}/demo/report.md")
