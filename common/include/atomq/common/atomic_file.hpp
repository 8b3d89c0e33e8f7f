// Whole-file reads and writes. A write goes to a temporary file in the same folder and is
// renamed into place, so a reader never sees a half-written file and a failed write leaves
// the previous file as it was.
#pragma once

#include <string>

namespace atomq {

// Throws std::runtime_error naming the path when the file cannot be written or renamed.
void write_file_atomically(const std::string& path, const std::string& content);
// Throws std::runtime_error naming the path when the file cannot be opened.
std::string read_text_file(const std::string& path);

}  // namespace atomq
