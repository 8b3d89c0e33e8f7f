// An empty kernel: its duration is what any launch of that grid costs before it does work
// (the front end, the block dispatch, the completion), the floor under every what-if's time
// (docs/calibration.md, "The launch floor section").
#pragma once

namespace atomq::microbench::kernels {

__global__ void empty_kernel();

const void* empty_kernel_handle();

}  // namespace atomq::microbench::kernels
