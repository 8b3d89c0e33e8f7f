# One command on a fresh Debian 12 machine (run from the repository root):
#   cmake -P cmake/bootstrap.cmake
# installs the Debian packages atomq builds with, configures and builds into build/, then
# runs the main job (see README). Settings it passes on to the configure step:
#   -DCMAKE_CUDA_ARCHITECTURES=89   (default: the installed GPU's, from nvidia-smi; else the
#                                    project's default, 90)
#   -DCMAKE_GENERATOR="Unix Makefiles" (default: $CMAKE_GENERATOR, else Ninja)
#   -DCMAKE_BUILD_TYPE=..., -DATOMQ_HOST_ONLY=ON (also automatic without a CUDA toolkit)
#   -DATOMQ_BUILD_DIR=DIR           (default: build/)
# -DATOMQ_RUN_MAIN_JOB=OFF stops after the build; -DATOMQ_BOOTSTRAP_DRY_RUN=ON prints the
# configure command and stops (nothing installed or built).
cmake_minimum_required(VERSION 3.25)
if(NOT DEFINED ATOMQ_RUN_MAIN_JOB)
  set(ATOMQ_RUN_MAIN_JOB ON)
endif()
get_filename_component(src "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(build "${src}/build")
if(DEFINED ATOMQ_BUILD_DIR)
  get_filename_component(build "${ATOMQ_BUILD_DIR}" ABSOLUTE BASE_DIR "${src}")
endif()

# The configure command: the generator, the architecture and the options given to this script.
function(atomq_configure_args out)
  set(generator Ninja)
  if(DEFINED CMAKE_GENERATOR)
    set(generator "${CMAKE_GENERATOR}")
  elseif(DEFINED ENV{CMAKE_GENERATOR})
    set(generator "$ENV{CMAKE_GENERATOR}")
  endif()
  set(args -S ${src} -B ${build} -G ${generator})
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    execute_process(COMMAND nvidia-smi --query-gpu=compute_cap --format=csv,noheader
      OUTPUT_VARIABLE caps RESULT_VARIABLE rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(rc EQUAL 0 AND caps MATCHES "^([0-9]+)\\.([0-9]+)")
      set(CMAKE_CUDA_ARCHITECTURES "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
      message(STATUS "the installed GPU is sm_${CMAKE_CUDA_ARCHITECTURES}: building for it")
    endif()
  endif()
  foreach(var CMAKE_CUDA_ARCHITECTURES CMAKE_BUILD_TYPE ATOMQ_HOST_ONLY)
    if(DEFINED ${var})
      list(APPEND args "-D${var}=${${var}}")
    endif()
  endforeach()
  set(${out} "${args}" PARENT_SCOPE)
endfunction()
atomq_configure_args(configure_args)
if(ATOMQ_BOOTSTRAP_DRY_RUN)
  list(JOIN configure_args " " shown)
  message(STATUS "configure: ${CMAKE_COMMAND} ${shown}")
  return()
endif()

set(packages ninja-build g++ python3 libeigen3-dev libcli11-dev libspdlog-dev libfmt-dev
             nlohmann-json3-dev libgtest-dev libvalijson-dev binutils libjs-chart.js chromium
             python3-dev pybind11-dev python3-pybind11 python3-venv)
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

if(NOT EXISTS /usr/local/cuda/bin/nvcc AND NOT ATOMQ_HOST_ONLY)
  message(STATUS "no CUDA toolkit at /usr/local/cuda: host-only build (model, tables, report, ncu import, "
                 "demo replay; install the CUDA 13 toolkit for the GPU commands)")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} ${configure_args} COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${build} COMMAND_ERROR_IS_FATAL ANY)
if(NOT ATOMQ_RUN_MAIN_JOB)
  return()
endif()

# The main job: atomq demo. With a GPU it calibrates (quick grid), runs the histogram family on
# one-value and uniform inputs, analyzes and reports; without one it replays the profiles
# recorded on an H200 (share/atomq/recorded/) with the bundled table, and says so.
set(atomq ${build}/bin/atomq)
execute_process(COMMAND ${atomq} demo -o ${build}/demo COMMAND_ERROR_IS_FATAL ANY)
message(STATUS "report: ${build}/demo/report.html and ${build}/demo/report.md")
