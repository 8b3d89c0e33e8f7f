// Whole-file reads and writes. A write goes to a temporary file in the same folder and is
// renamed into place, so a reader never sees a half-written file and a failed write leaves
// the previous file as it was.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace atomq {

// Throws std::runtime_error naming the path when the file cannot be written or renamed.
//
// The temporary has a random name in the destination's folder (".NAME.XXXXXX"), created with
// O_CREAT|O_EXCL|O_NOFOLLOW: a symbolic link planted under any name is never followed. The data
// is on disk (fsync) before the rename. The file keeps the destination's mode (a new one gets
// 0666 less the umask); a symbolic link to a regular file is kept and its target replaced, if the
// link is this user's or root's (another user's link is refused, not followed).
// "-" is standard output; a character device, a FIFO, /dev/stdout or /dev/stderr is written
// directly, never replaced by a regular file; a block device or a socket is refused. A signal
// that ends the process by default (SIGINT, SIGTERM, SIGQUIT, SIGPIPE, SIGXFSZ, ...) removes
// this process's temporaries, and only them, then ends it as the signal would have.
void write_file_atomically(const std::string& path, const std::string& content);
// Several files, all or none: every temporary is written before any is renamed into place, and
// the renames run with those signals held back. Should a rename fail, the error names the files
// already in place and those not written.
void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files);
// Throws std::runtime_error ("OUT: is also an input ...") when `output` names one of `inputs`:
// the same file (device and inode) or the same path. Standard output and devices are never inputs.
void refuse_output_among_inputs(const std::string& output, const std::vector<std::string>& inputs);
// Throws std::runtime_error naming the path when the file cannot be opened or read, or holds
// more than 256 MiB (no atomq document is that big; /dev/zero is refused, not read forever).
std::string read_text_file(const std::string& path);

}  // namespace atomq
