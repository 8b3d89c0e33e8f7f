# The tests that need the CUDA toolkit to build (a host-only build leaves them out): GPU tests,
# the test programs, the collector's unit tests, the layering checks (they configure the whole
# tree) and the SASS tests.
# gpu: need a GPU; each test skips with its reason when there is none. CTest reports a
# skipped GoogleTest as skipped (not passed) through SKIP_REGULAR_EXPRESSION.
add_executable(atomq_gpu_tests
  gpu/atomic_stream_test.cpp
  gpu/sass_test.cpp)
target_link_libraries(atomq_gpu_tests PRIVATE atomq_microbench atomq_calibration GTest::gtest_main)
target_compile_definitions(atomq_gpu_tests PRIVATE
  ATOMQ_GPU_CLI_PATH="$<TARGET_FILE:atomq-gpu>")
add_dependencies(atomq_gpu_tests atomq-gpu)
gtest_discover_tests(atomq_gpu_tests PROPERTIES LABELS gpu
  SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]" DISCOVERY_TIMEOUT 60)

add_test(NAME integration.calibrate_quick
  COMMAND ${ATOMQ_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/integration/check_calibrate.py
          ${ATOMQ_CLI} ${CMAKE_CURRENT_BINARY_DIR}/integration_work)
set_tests_properties(integration.calibrate_quick PROPERTIES LABELS "integration;gpu"
  SKIP_RETURN_CODE 77)
add_test(NAME integration.hist_bench_quick
  COMMAND ${ATOMQ_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/integration/check_hist_bench.py
          ${ATOMQ_CLI} ${CMAKE_CURRENT_BINARY_DIR}/integration_work/hist_bench)
set_tests_properties(integration.hist_bench_quick PROPERTIES LABELS "integration;gpu"
  SKIP_RETURN_CODE 77)

include(${CMAKE_CURRENT_SOURCE_DIR}/gpu/histogram.cmake)

# Analyzer: a small multi-kernel CUDA program with known atomic counts (profiled in-process
# and by injection), the in-process GPU test, and the injection integration test.
add_executable(multi_kernel_app gpu/targets/multi_kernel_app.cu)
target_link_libraries(multi_kernel_app PRIVATE atomq_collector CUDA::cudart_static CUDA::cuda_driver)
set_target_properties(multi_kernel_app PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin
  BUILD_RPATH "${CUPTI_LIBRARY_DIR}")

# Known active lanes per shared atomic (e from the data-bytes counter).
add_executable(lanes_app gpu/targets/lanes_app.cu)
target_link_libraries(lanes_app PRIVATE CUDA::cudart_static)
set_target_properties(lanes_app PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
add_test(NAME integration.analyze_lanes
  COMMAND ${ATOMQ_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/integration/check_lanes.py
          ${ATOMQ_CLI} $<TARGET_FILE:lanes_app> ${CMAKE_CURRENT_BINARY_DIR}/integration_work/lanes)
set_tests_properties(integration.analyze_lanes PROPERTIES LABELS "integration;gpu" SKIP_RETURN_CODE 77)

# Programs that fork, reset the device, fault, die: injection must survive each (GPU).
add_executable(hostile_app gpu/targets/hostile_app.cu)
target_link_libraries(hostile_app PRIVATE CUDA::cudart_static CUDA::cuda_driver)
set_target_properties(hostile_app PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
add_test(NAME integration.analyze_hostile
  COMMAND ${ATOMQ_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/integration/check_hostile.py
          ${ATOMQ_CLI} $<TARGET_FILE:hostile_app> ${CMAKE_CURRENT_BINARY_DIR}/integration_work/hostile)
set_tests_properties(integration.analyze_hostile PROPERTIES LABELS "integration;gpu" SKIP_RETURN_CODE 77 TIMEOUT 1200)

# Kernels in a shared library: their SASS comes from the code objects the driver loaded (GPU).
add_library(library_kernels SHARED gpu/targets/library_kernels.cu)
target_link_libraries(library_kernels PRIVATE CUDA::cudart)
set_target_properties(library_kernels PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
add_executable(library_app gpu/targets/library_app.cu)
target_link_libraries(library_app PRIVATE library_kernels CUDA::cudart)
set_target_properties(library_app PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin
  BUILD_RPATH "\$ORIGIN/../lib")  # the build folder may be copied elsewhere
add_test(NAME integration.analyze_library
  COMMAND ${ATOMQ_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/integration/check_library.py
          ${ATOMQ_CLI} $<TARGET_FILE:library_app> ${CMAKE_CURRENT_BINARY_DIR}/integration_work/library)
set_tests_properties(integration.analyze_library PROPERTIES LABELS "integration;gpu" SKIP_RETURN_CODE 77)

# A histogram kernel launched directly and from a CUDA graph: both profiled alike (GPU).
add_executable(graph_app gpu/targets/graph_app.cu)
target_link_libraries(graph_app PRIVATE CUDA::cudart_static)
set_target_properties(graph_app PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
add_test(NAME integration.analyze_graph
  COMMAND ${ATOMQ_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/integration/check_graph.py
          ${ATOMQ_CLI} $<TARGET_FILE:graph_app> ${CMAKE_CURRENT_BINARY_DIR}/integration_work/graph)
set_tests_properties(integration.analyze_graph PROPERTIES LABELS "integration;gpu" SKIP_RETURN_CODE 77)

# A GPU check in Python (tests/integration/SCRIPT ATOMQ ARGUMENT WORK): skipped (77) with its reason
# where the GPU, a tool or PyTorch it needs is missing. WORK is integration_work/ and the name
# without its "analyze_".
function(atomq_python_gpu_check name script argument)
  string(REGEX REPLACE "^analyze_" "" work ${name})
  add_test(NAME integration.${name}
    COMMAND ${ATOMQ_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/integration/${script}
            ${ATOMQ_CLI} ${argument} ${CMAKE_CURRENT_BINARY_DIR}/integration_work/${work})
  set_tests_properties(integration.${name} PROPERTIES LABELS "integration;gpu" SKIP_RETURN_CODE 77 TIMEOUT 900)
endfunction()

# A third-party program: PyTorch replaying a CUDA graph with scatter_add_ (GPU, PyTorch).
atomq_python_gpu_check(analyze_torch_graph check_torch_graph.py ${CMAKE_CURRENT_SOURCE_DIR}/gpu/targets/torch_graph.py)
atomq_python_gpu_check(analyze_torch_nvtx check_torch_nvtx.py ${CMAKE_CURRENT_SOURCE_DIR}/gpu/targets/torch_nvtx.py)

# Two workers started by a launcher, one GPU each where there are two: one merged run (GPU).
add_executable(rank_app gpu/targets/rank_app.cu)
target_link_libraries(rank_app PRIVATE CUDA::cudart_static)
set_target_properties(rank_app PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
add_executable(rank_launcher gpu/targets/rank_launcher.cpp)
set_target_properties(rank_launcher PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
add_test(NAME integration.analyze_ranks
  COMMAND ${ATOMQ_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/integration/check_ranks.py
          ${ATOMQ_CLI} $<TARGET_FILE:rank_launcher> $<TARGET_FILE:rank_app> ${CMAKE_CURRENT_BINARY_DIR}/integration_work/ranks)
set_tests_properties(integration.analyze_ranks PROPERTIES LABELS "integration;gpu" SKIP_RETURN_CODE 77)

# Every GPU of a host calibrated side by side, one table each (GPU; skipped below two GPUs).
add_test(NAME integration.calibrate_all_devices
  COMMAND ${ATOMQ_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/integration/check_all_devices.py
          ${ATOMQ_CLI} $<TARGET_FILE:rank_app> ${CMAKE_CURRENT_BINARY_DIR}/integration_work/all_devices)
set_tests_properties(integration.calibrate_all_devices PROPERTIES LABELS "integration;gpu" SKIP_RETURN_CODE 77)

# Atomic sites of known conflict, aggregation and CAS retries (per-instruction counts).
add_executable(sites_app gpu/targets/sites_app.cu)
target_link_libraries(sites_app PRIVATE CUDA::cudart_static)
target_compile_options(sites_app PRIVATE -lineinfo)  # call-site lines for its atomic sites
set_target_properties(sites_app PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
add_test(NAME integration.analyze_sites
  COMMAND ${ATOMQ_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/integration/check_sites.py
          ${ATOMQ_CLI} $<TARGET_FILE:sites_app> ${CMAKE_CURRENT_BINARY_DIR}/integration_work/sites)
set_tests_properties(integration.analyze_sites PROPERTIES LABELS "integration;gpu" SKIP_RETURN_CODE 77)

# Per-launch truth: two CAS-loop kernels, each on a uniform and a one-value input, for
# tools/per_launch_check.py (every derived launch's attempts per update against a run that
# measures that launch; docs/model.md, "Measured and derived launches", has its figures).
add_executable(storm_app gpu/targets/storm_app.cu)
target_link_libraries(storm_app PRIVATE CUDA::cudart_static)
target_compile_options(storm_app PRIVATE -lineinfo)
set_target_properties(storm_app PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)

# k-means accumulation and stream compaction with their usual fixes (a program tried as a new user
# would; its recorded run is tests/unit/model/fixtures/accumulate_app-*.json).
add_executable(accumulate_app gpu/targets/accumulate_app.cu)
target_link_libraries(accumulate_app PRIVATE CUDA::cudart_static)
target_compile_options(accumulate_app PRIVATE -lineinfo)
set_target_properties(accumulate_app PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)

# Four more patterns (int max, word count, 64-bit histogram, double sum), each with its fix and
# an ablation (docs/validation.md, "New programs").
add_executable(atomics_mix_app gpu/targets/atomics_mix_app.cu)
target_link_libraries(atomics_mix_app PRIVATE CUDA::cudart_static)
target_compile_options(atomics_mix_app PRIVATE -lineinfo)
set_target_properties(atomics_mix_app PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)

# Global ops beyond 32-bit adds (f64, half pairs, exch, 64-bit tickets, xor): each read from the
# SASS and served by its own calibrated cells, or a named stand-in (GPU).
add_executable(global_ops_app gpu/targets/global_ops_app.cu)
target_link_libraries(global_ops_app PRIVATE CUDA::cudart_static)
set_target_properties(global_ops_app PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
add_test(NAME integration.analyze_global_ops
  COMMAND ${ATOMQ_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/integration/check_global_ops.py
          ${ATOMQ_CLI} $<TARGET_FILE:global_ops_app> ${CMAKE_CURRENT_BINARY_DIR}/integration_work/global_ops)
set_tests_properties(integration.analyze_global_ops PROPERTIES LABELS "integration;gpu" SKIP_RETURN_CODE 77)

add_executable(atomq_analyzer_gpu_tests gpu/in_process_profile_test.cpp)
target_link_libraries(atomq_analyzer_gpu_tests PRIVATE atomq_collector atomq_microbench GTest::gtest_main)
set_target_properties(atomq_analyzer_gpu_tests PROPERTIES BUILD_RPATH "${CUPTI_LIBRARY_DIR}")
gtest_discover_tests(atomq_analyzer_gpu_tests PROPERTIES LABELS gpu
  SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]" DISCOVERY_TIMEOUT 60)

# The L2 atomic-stream benchmark: its SASS and its loads, read with the collector's counters.
add_executable(atomq_l2_gpu_tests gpu/l2_atomic_test.cpp)
target_link_libraries(atomq_l2_gpu_tests PRIVATE atomq_collector atomq_microbench GTest::gtest_main)
target_compile_definitions(atomq_l2_gpu_tests PRIVATE ATOMQ_GPU_CLI_PATH="$<TARGET_FILE:atomq-gpu>")
add_dependencies(atomq_l2_gpu_tests atomq-gpu)
set_target_properties(atomq_l2_gpu_tests PROPERTIES BUILD_RPATH "${CUPTI_LIBRARY_DIR}")
gtest_discover_tests(atomq_l2_gpu_tests PROPERTIES LABELS gpu
  SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]" DISCOVERY_TIMEOUT 60)

add_executable(atomq_analyzer_unit_tests unit/metric_list_test.cpp unit/injected_run_test.cpp
  unit/loaded_code_test.cpp unit/recordings_current_test.cpp)
target_link_libraries(atomq_analyzer_unit_tests PRIVATE atomq_collector GTest::gtest_main)
# A real cubin for the ELF symbol reader of the loaded-code store (no GPU needed).
set(library_kernels_cubin ${CMAKE_CURRENT_BINARY_DIR}/library_kernels.cubin)
add_custom_command(OUTPUT ${library_kernels_cubin}
  COMMAND ${CMAKE_CUDA_COMPILER} -cubin -arch=sm_90 -o ${library_kernels_cubin}
          ${CMAKE_CURRENT_SOURCE_DIR}/gpu/targets/library_kernels.cu
  DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/gpu/targets/library_kernels.cu
  COMMENT "cubin of library_kernels.cu")
add_custom_target(library_kernels_cubin DEPENDS ${library_kernels_cubin})
add_dependencies(atomq_analyzer_unit_tests library_kernels_cubin)
target_compile_definitions(atomq_analyzer_unit_tests PRIVATE
  ATOMQ_FIXTURE_DIR="${CMAKE_CURRENT_SOURCE_DIR}/fixtures" ATOMQ_TEST_CUBIN="${library_kernels_cubin}"
  ATOMQ_SOURCE_DIR="${PROJECT_SOURCE_DIR}" ATOMQ_INJECT_LIBRARY="$<TARGET_FILE:atomq_inject>")
add_dependencies(atomq_analyzer_unit_tests atomq_inject)
set_target_properties(atomq_analyzer_unit_tests PROPERTIES BUILD_RPATH "${CUPTI_LIBRARY_DIR}")
gtest_discover_tests(atomq_analyzer_unit_tests PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60)

add_test(NAME integration.analyze_injected
  COMMAND ${ATOMQ_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/integration/check_analyze.py
          ${ATOMQ_CLI} $<TARGET_FILE:multi_kernel_app> ${CMAKE_CURRENT_BINARY_DIR}/integration_work)
set_tests_properties(integration.analyze_injected PROPERTIES LABELS "integration;gpu"
  SKIP_RETURN_CODE 77)
include(${CMAKE_CURRENT_SOURCE_DIR}/layering.cmake)

# The SASS listing parser and the atomic classifier: committed listings (no GPU, no tool), and
# the built atomq and multi_kernel_app through cuobjdump (skipped where it is not installed).
add_executable(atomq_sass_unit_tests unit/sass_listing_test.cpp unit/sass_binary_test.cpp)
target_link_libraries(atomq_sass_unit_tests PRIVATE atomq_collector GTest::gtest_main)
target_compile_definitions(atomq_sass_unit_tests PRIVATE
  ATOMQ_FIXTURE_DIR="${CMAKE_CURRENT_SOURCE_DIR}/unit/fixtures"
  ATOMQ_GPU_CLI_PATH="$<TARGET_FILE:atomq-gpu>"
  ATOMQ_MULTI_KERNEL_APP_PATH="$<TARGET_FILE:multi_kernel_app>")
set_target_properties(atomq_sass_unit_tests PROPERTIES BUILD_RPATH "${CUPTI_LIBRARY_DIR}")
add_dependencies(atomq_sass_unit_tests atomq-gpu multi_kernel_app)
gtest_discover_tests(atomq_sass_unit_tests PROPERTIES LABELS unit
  SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]" DISCOVERY_TIMEOUT 60)

# atomq.profile() in a PyTorch program, through libatomq_profile.so (GPU, PyTorch).
atomq_python_gpu_check(python_profile check_python_profile.py ${CMAKE_BINARY_DIR}/python)

# Triton's float atomic_max and atomic_add into one address: the op from the SASS (GPU, Triton).
atomq_python_gpu_check(analyze_triton_ops check_triton_ops.py ${PROJECT_SOURCE_DIR}/validation/third_party/triton_atomics.py)

# Hopper's other atomic paths (DSMEM, bulk reductions, vector and system-scope atomics): their
# microbenchmarks' SASS, counters and the model's naming of each.
add_executable(atomq_path_gpu_tests gpu/atomic_path_test.cpp)
target_link_libraries(atomq_path_gpu_tests PRIVATE atomq_collector atomq_microbench GTest::gtest_main)
target_compile_definitions(atomq_path_gpu_tests PRIVATE ATOMQ_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
set_target_properties(atomq_path_gpu_tests PROPERTIES BUILD_RPATH "${CUPTI_LIBRARY_DIR}")
gtest_discover_tests(atomq_path_gpu_tests PROPERTIES LABELS gpu
  SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]" DISCOVERY_TIMEOUT 60)

# Hopper's other atomic paths in a program of its own: named, never costed as another op.
add_executable(paths_app gpu/targets/paths_app.cu)
target_link_libraries(paths_app PRIVATE CUDA::cudart_static)
target_compile_options(paths_app PRIVATE -lineinfo)
set_target_properties(paths_app PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
add_test(NAME integration.analyze_paths
  COMMAND ${ATOMQ_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/integration/check_paths.py
          ${ATOMQ_CLI} $<TARGET_FILE:paths_app> ${CMAKE_CURRENT_BINARY_DIR}/integration_work/paths)
set_tests_properties(integration.analyze_paths PROPERTIES LABELS "integration;gpu" SKIP_RETURN_CODE 77)
