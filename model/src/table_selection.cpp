#include "atomq/model/table_selection.hpp"

#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "atomq/common/data_dir.hpp"
#include "atomq/model/service_time.hpp"

namespace atomq::model {

namespace fs = std::filesystem;

bool is_chip_name(const std::string& chip) {
  if (chip.empty() || chip.size() > 64 || chip.front() == '.') return false;
  for (const char ch : chip)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '.' && ch != '-') return false;
  return chip.find("..") == std::string::npos;
}

std::string user_table_path(const std::string& chip) {
  if (!is_chip_name(chip)) return "";
  const char* xdg = std::getenv("XDG_DATA_HOME");
  const char* home = std::getenv("HOME");
  fs::path base;
  if (xdg != nullptr && *xdg != '\0') base = xdg;
  else if (home != nullptr && *home != '\0') base = fs::path(home) / ".local" / "share";
  else return "";
  return (base / "atomq" / "tables" / (chip + ".json")).string();
}

std::string user_device_table_path(const std::string& chip, const std::string& uuid) {
  const std::string chip_path = user_table_path(chip);
  if (chip_path.empty() || uuid.empty()) return "";
  return (fs::path(chip_path).parent_path() / (chip + "-" + uuid + ".json")).string();
}

std::string bundled_table_dir() {
  if (const char* env = std::getenv("ATOMQ_TABLE_DIR"); env && *env) return env;
  return data_path("tables");
}

namespace {

// The user's table when it exists and can be seen; an unreadable $HOME is no error.
bool user_table_exists(const std::string& path) {
  std::error_code ec;
  return !path.empty() && fs::is_regular_file(path, ec);
}

// A chip name from a file, printable in a message: bytes other than printable ASCII as '?'.
std::string shown(const std::string& chip) {
  std::string out = chip.substr(0, 64);
  for (char& ch : out)
    if (ch < 0x20 || ch > 0x7e) ch = '?';
  return out + (chip.size() > 64 ? "..." : "");
}

void choose_bundled(SelectedTable& s, const std::string& wanted, const std::string& gpu_name,
                    const std::string& user_path, const std::string& user_error = "") {
  s.origin = "bundled";
  const std::string dir = bundled_table_dir();
  const std::string none = !user_error.empty() ? "user table " + user_path + " unusable"
                           : user_path.empty() ? "no user table ($HOME unset)"
                                               : "no " + user_path;
  if (auto own = bundled_gpu_table_path(dir, wanted, gpu_name)) {
    s.path = *own;
    s.reason = none + ": the table bundled with atomq for the " + shown(gpu_name);
  } else if (auto bundled = bundled_table_path(dir, wanted)) {
    s.path = *bundled;
    s.reason = none + ": the table bundled with atomq for " + wanted;
  } else {
    s.warnings.push_back("no calibrated or bundled table for chip " + wanted +
                         "; using the bundled GH100 table: run `atomq calibrate` on this GPU");
    s.path = (fs::path(dir) / "GH100.json").string();
    s.reason = none + " and no bundled table for " + wanted + ": the bundled GH100 table";
  }
}

// Loads the user's table into s; false when it does not load: then s names the bundled table,
// with a warning, since a broken file in $HOME must not stop analyze and report.
bool load_user_table(SelectedTable& s, const std::string& wanted, const std::string& gpu_name) {
  try {
    s.table = calibration::load_service_table(s.path);
    return true;
  } catch (const calibration::TableError& e) {
    const std::string user_path = s.path;
    s.warnings.push_back("the calibrated table " + user_path + " cannot be used (" + e.what() +
                         "); using the bundled table instead: run `atomq calibrate` to recalibrate, "
                         "or delete " + user_path);
    choose_bundled(s, wanted, gpu_name, user_path, e.what());
    return false;
  }
}

// Where the path came from when a variable chose it: an error then names the variable, so a
// stale export in a shell profile is found. Empty when the user named the file.
std::string variable_behind(const SelectedTable& s) {
  if (s.origin == "ATOMQ_TABLE") return "$ATOMQ_TABLE";
  if (s.origin != "bundled") return "";
  if (const char* env = std::getenv("ATOMQ_TABLE_DIR"); env && *env) return "$ATOMQ_TABLE_DIR=" + std::string(env);
  if (const char* env = std::getenv("ATOMQ_DATA_DIR"); env && *env) return "$ATOMQ_DATA_DIR=" + std::string(env);
  return "";
}

calibration::ServiceTable load_selected(const SelectedTable& s) {
  try {
    return calibration::load_service_table(s.path);
  } catch (const calibration::TableError& e) {
    const std::string variable = variable_behind(s);
    if (variable.empty()) throw;
    throw calibration::TableError(std::string(e.what()) + " (the table chosen by " + variable + ")");
  }
}

}  // namespace

SelectedTable select_table(const std::string& explicit_path, const std::string& chip, const std::string& gpu_name) {
  SelectedTable s;
  const char* env = std::getenv("ATOMQ_TABLE");
  const bool usable_chip = is_chip_name(chip);
  if (!chip.empty() && !usable_chip)
    s.warnings.push_back("the chip name '" + shown(chip) + "' read from the input is not a chip name "
                         "(letters, digits, '_', '.', '-'): it is treated as unknown");
  const std::string wanted = usable_chip ? chip : "GH100";
  const std::string user_path = user_table_path(wanted);
  bool loaded = false;
  if (!explicit_path.empty()) {
    s.path = explicit_path;
    s.origin = "--table";
    s.reason = "given with --table";
  } else if (env && *env) {
    s.path = env;
    s.origin = "ATOMQ_TABLE";
    s.reason = "given by $ATOMQ_TABLE";
  } else if (user_table_exists(user_path)) {
    s.path = user_path;
    s.origin = "user calibration";
    s.reason = "calibrated on this machine for " + wanted + " (atomq calibrate)";
    loaded = load_user_table(s, wanted, gpu_name);
  } else {
    choose_bundled(s, wanted, gpu_name, user_path);
  }
  if (!loaded) s.table = load_selected(s);
  if (!usable_chip)
    s.warnings.push_back("the GPU's chip is unknown: the " + s.table.provenance.device.chip +
                         " table may not describe it");
  else if (s.table.provenance.device.chip != chip)
    s.warnings.push_back("table " + s.path + " was calibrated on " + s.table.provenance.device.chip +
                         " but the GPU is " + chip + ": predictions may be off; run `atomq calibrate`");
  else if (s.origin == "bundled" && !gpu_name.empty() && !s.table.provenance.device.name.empty() &&
           s.table.provenance.device.name != gpu_name)
    // Same chip, other board: the latencies to L2 and memory, and the launch floor, are not this GPU's.
    s.warnings.push_back("the bundled " + chip + " table was calibrated on an " + s.table.provenance.device.name +
                         ", this GPU is an " + shown(gpu_name) + ": latency-bound verdicts may be off; run "
                         "`atomq calibrate` on it");
  return s;
}

SelectedTable select_device_table(const std::string& explicit_path, const std::string& chip, const std::string& uuid,
                                  const std::string& gpu_name) {
  const char* env = std::getenv("ATOMQ_TABLE");
  const std::string own = user_device_table_path(chip.empty() ? "GH100" : chip, uuid);
  if (!explicit_path.empty() || (env && *env) || !user_table_exists(own))
    return select_table(explicit_path, chip, gpu_name);
  SelectedTable s;
  s.path = own;
  s.origin = "user calibration of this GPU";
  s.reason = "calibrated on this GPU, " + uuid + " (atomq calibrate --all-devices)";
  s.table = calibration::load_service_table(s.path);
  if (s.table.provenance.device.chip != chip)
    s.warnings.push_back("table " + s.path + " was calibrated on " + s.table.provenance.device.chip +
                         " but the GPU is " + chip + ": predictions may be off; run `atomq calibrate`");
  return s;
}

}  // namespace atomq::model
