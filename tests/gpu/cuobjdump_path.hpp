// Where the GPU tests find the toolkit's cuobjdump (on PATH or in /usr/local/cuda/bin).
#pragma once

#include <cstdlib>
#include <string>

namespace atomq::test {

inline bool have_cuobjdump(std::string* path) {
  for (const char* candidate : {"cuobjdump", "/usr/local/cuda/bin/cuobjdump"}) {
    const std::string cmd = std::string("command -v ") + candidate + " >/dev/null 2>&1";
    if (std::system(cmd.c_str()) == 0) {
      *path = candidate;
      return true;
    }
  }
  return false;
}

}  // namespace atomq::test
