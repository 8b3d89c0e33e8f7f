// Running a toolkit tool (cuobjdump, nvdisasm) through the shell and reading its output line
// by line: the SASS listing and the source lines both do.
#pragma once

#include <functional>
#include <future>
#include <string>
#include <string_view>
#include <system_error>

namespace atomq::analyzer::detail {

std::string shell_quoted(const std::string& s);

// `s` without leading and trailing white space (a tool's line as printed).
std::string_view trimmed(std::string_view s);

struct ToolRun {
  int exit_code = -1;
  std::string first_line;  // trimmed
  std::string error;       // a failure while reading (out of memory, a consumer that threw)
};

// Runs `command` (a shell command line) and hands each line it prints to `line`.
ToolRun run_tool(const std::string& command, const std::function<void(std::string_view)>& line);

// `work` on a thread of its own, side by side with others; here, when get() is called, when no
// thread can be started.
template <typename Work>
std::future<decltype(std::declval<Work&>()())> beside(const Work& work) {
  try {
    return std::async(std::launch::async, work);
  } catch (const std::system_error&) {
    return std::async(std::launch::deferred, work);
  }
}

}  // namespace atomq::analyzer::detail
