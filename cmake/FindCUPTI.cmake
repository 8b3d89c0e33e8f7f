# FindCUPTI: CUPTI and the NVIDIA perf libraries (libnvperf_host/target) of the CUDA toolkit.
#
# Provides CUPTI::cupti and the variables CUPTI_FOUND, CUPTI_INCLUDE_DIR, CUPTI_LIBRARY,
# CUPTI_LIBRARY_DIR (the folder that must be on the loader path at run time, because
# libcupti loads libnvperf_host.so by bare name).

find_package(CUDAToolkit REQUIRED)

find_path(CUPTI_INCLUDE_DIR cupti.h
  HINTS ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_TARGET_DIR}/extras/CUPTI/include)
find_library(CUPTI_LIBRARY NAMES cupti
  HINTS ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_TARGET_DIR}/extras/CUPTI/lib64)
find_library(CUPTI_NVPERF_HOST_LIBRARY NAMES nvperf_host
  HINTS ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_TARGET_DIR}/extras/CUPTI/lib64)
find_library(CUPTI_NVPERF_TARGET_LIBRARY NAMES nvperf_target
  HINTS ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_TARGET_DIR}/extras/CUPTI/lib64)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CUPTI
  REQUIRED_VARS CUPTI_LIBRARY CUPTI_INCLUDE_DIR CUPTI_NVPERF_HOST_LIBRARY CUPTI_NVPERF_TARGET_LIBRARY)

if(CUPTI_FOUND AND NOT TARGET CUPTI::cupti)
  get_filename_component(CUPTI_LIBRARY_DIR "${CUPTI_LIBRARY}" DIRECTORY)
  add_library(CUPTI::cupti SHARED IMPORTED)
  set_target_properties(CUPTI::cupti PROPERTIES
    IMPORTED_LOCATION "${CUPTI_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${CUPTI_INCLUDE_DIR};${CUDAToolkit_INCLUDE_DIRS}")
endif()
mark_as_advanced(CUPTI_INCLUDE_DIR CUPTI_LIBRARY CUPTI_NVPERF_HOST_LIBRARY CUPTI_NVPERF_TARGET_LIBRARY)
