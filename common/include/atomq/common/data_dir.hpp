// Where atomq's data is (the bundled tables, the recorded runs): share/atomq beside the
// installed or built program, found at run time so that no source path is compiled in.
#pragma once

#include <optional>
#include <string>

namespace atomq {

// $ATOMQ_DATA_DIR when set; else the first share/atomq (holding tables/) found walking up
// from the running program, then from the shared object holding this code (a Python module,
// a consumer's shared library). Never throws: unreadable folders are skipped.
std::optional<std::string> data_dir();

// data_dir()/sub; throws std::runtime_error saying where it looked when there is no data dir.
std::string data_path(const std::string& sub);

}  // namespace atomq
