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

# The compiled parts of fmt and spdlog are built once here (common/src/logging_library.cpp), so
# the binaries need no libspdlog/libfmt at run time (the GPU machine has neither) and no
# translation unit compiles their implementation again.
add_library(atomq_logging STATIC ${PROJECT_SOURCE_DIR}/common/src/logging_library.cpp)
target_compile_definitions(atomq_logging PUBLIC SPDLOG_FMT_EXTERNAL SPDLOG_COMPILED_LIB)
get_target_property(_spdlog_inc spdlog::spdlog_header_only INTERFACE_INCLUDE_DIRECTORIES)
get_target_property(_fmt_inc fmt::fmt INTERFACE_INCLUDE_DIRECTORIES)
target_include_directories(atomq_logging SYSTEM PUBLIC ${_spdlog_inc} ${_fmt_inc})
target_link_libraries(atomq_logging PUBLIC Threads::Threads)
# PIC for the injection library and the Python module; its symbols are not exported from them
# (a profiled program may link another fmt).
set_target_properties(atomq_logging PROPERTIES POSITION_INDEPENDENT_CODE ON)
target_link_options(atomq_logging INTERFACE "LINKER:--exclude-libs,libatomq_logging.a")
atomq_export(atomq_logging logging)
