// atomq calibrate --all-devices: every GPU of the host calibrated at once, one atomq process
// per GPU (each process holds its own CUPTI session), one table per GPU; identical GPUs are
// compared afterwards.
#pragma once

#include <string>
#include <vector>

namespace atomq::cli {

struct AllDevicesRequest {
  std::vector<std::string> per_device_options;  // passed to each `atomq calibrate --device I`
  std::string output_dir;                       // "": where analyze looks (user table folder)
};

int calibrate_all_devices(const AllDevicesRequest& request);

}  // namespace atomq::cli
