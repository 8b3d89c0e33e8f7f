# Third-party dependencies: Debian packages only (see README), nothing is downloaded.
if(ATOMQ_WITH_CUDA)
  find_package(CUDAToolkit REQUIRED)
  find_package(CUPTI REQUIRED)
endif()
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(spdlog REQUIRED)
find_package(fmt REQUIRED)
find_package(Threads REQUIRED)

# spdlog and fmt are used header-only, so the binaries need no libspdlog/libfmt at run time
# (the GPU machine has neither).
add_library(atomq_logging INTERFACE)
target_compile_definitions(atomq_logging INTERFACE SPDLOG_FMT_EXTERNAL FMT_HEADER_ONLY)
get_target_property(_spdlog_inc spdlog::spdlog_header_only INTERFACE_INCLUDE_DIRECTORIES)
get_target_property(_fmt_inc fmt::fmt INTERFACE_INCLUDE_DIRECTORIES)
target_include_directories(atomq_logging SYSTEM INTERFACE ${_spdlog_inc} ${_fmt_inc})
target_link_libraries(atomq_logging INTERFACE Threads::Threads)
atomq_export(atomq_logging logging)
