// Whole-file reads and writes. A write goes to a temporary file in the same folder and is
// renamed into place, so a reader never sees a half-written file and a failed write leaves
// the previous file as it was.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace atomq {

// Throws std::runtime_error naming the path when the file cannot be written or renamed. The
// data is on disk (fsync) before the rename; SIGINT, SIGTERM or SIGHUP during the write removes
// the temporary file, and one left by a killed writer (OUT.tmp.PID, PID gone) is removed next time.
void write_file_atomically(const std::string& path, const std::string& content);
// Several files, all or none: every temporary is written before any is renamed into place.
void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files);
// Throws std::runtime_error naming the path when the file cannot be opened or read, or holds
// more than 256 MiB (no atomq document is that big; /dev/zero is refused, not read forever).
std::string read_text_file(const std::string& path);

}  // namespace atomq
