# GPU tests of the histogram targets (label gpu; each skips with its reason without a GPU).
add_executable(atomq_histogram_gpu_tests ${CMAKE_CURRENT_SOURCE_DIR}/gpu/histogram_test.cpp)
target_link_libraries(atomq_histogram_gpu_tests PRIVATE atomq_histogram atomq_microbench
  GTest::gtest_main)
gtest_discover_tests(atomq_histogram_gpu_tests PROPERTIES LABELS gpu
  SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]" DISCOVERY_TIMEOUT 60)
