#include "tool_run.hpp"

#include <sys/wait.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <exception>

namespace atomq::analyzer::detail {

std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

ToolRun run_tool(const std::string& command, const std::function<void(std::string_view)>& line) {
  ToolRun run;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    run.error = "cannot start " + command;
    return run;
  }
  char* buffer = nullptr;
  size_t capacity = 0;
  try {
    for (ssize_t n = 0; (n = getline(&buffer, &capacity, pipe)) >= 0;) {
      std::string_view text(buffer, static_cast<size_t>(n));
      if (run.first_line.empty()) run.first_line = std::string(trimmed(text));
      line(text);
    }
  } catch (const std::exception& e) {
    run.error = e.what();
  }
  std::free(buffer);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

}  // namespace atomq::analyzer::detail
