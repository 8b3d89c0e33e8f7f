# Histogram targets: kernels (one per file), launch logic, CUB paths.
add_library(atomq_histogram STATIC
  kernels/hist_naive_global.cu
  kernels/hist_block_private.cu
  kernels/hist_block_grid_stride.cu
  kernels/hist_warp_replicated.cu
  kernels/hist_lane_replicated.cu
  kernels/hist_rank.cu
  kernels/hist_two_phase.cu
  kernels/hist_warp_aggregated.cu
  kernels/hist_many_bins_cluster.cu
  kernels/hist_many_bins_packed.cu
  kernels/hist_image.cu
  kernels/hist_image_lane_replicated.cu
  kernels/hist_generate.cu
  kernels/hist_read_bandwidth.cu
  kernels/hist_stream_hold.cu
  kernels/hist_scatter_runs.cu
  src/histogram_cub.cu
  src/histogram.cpp
  src/histogram_bench.cpp)
target_include_directories(atomq_histogram
  PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include
  PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/kernels ${CMAKE_CURRENT_SOURCE_DIR}/src)
target_link_libraries(atomq_histogram PUBLIC atomq_cuda_check CUDA::cudart_static
  PRIVATE atomq_logging)
target_compile_options(atomq_histogram PRIVATE
  $<$<COMPILE_LANGUAGE:CUDA>:--extended-lambda -Xptxas=-warn-spills>)
set_target_properties(atomq_histogram PROPERTIES POSITION_INDEPENDENT_CODE ON)

