#include "atomq/analyzer/table_selection.hpp"

#include <cstdlib>
#include <filesystem>

#include "atomq/model/service_time.hpp"

namespace atomq::analyzer {

namespace fs = std::filesystem;

namespace {

std::string user_table_path(const std::string& chip) {
  const char* xdg = std::getenv("XDG_DATA_HOME");
  const char* home = std::getenv("HOME");
  fs::path base = xdg && *xdg ? fs::path(xdg) : fs::path(home ? home : ".") / ".local" / "share";
  return (base / "atomq" / "tables" / (chip + ".json")).string();
}

std::string bundled_table_dir() {
  if (const char* env = std::getenv("ATOMQ_TABLE_DIR"); env && *env) return env;
  return ATOMQ_BUNDLED_TABLE_DIR;
}

}  // namespace

SelectedTable select_table(const std::string& explicit_path, const std::string& chip) {
  SelectedTable s;
  const char* env = std::getenv("ATOMQ_TABLE");
  const std::string wanted = chip.empty() ? "GH100" : chip;
  if (!explicit_path.empty()) {
    s.path = explicit_path;
    s.origin = "--table";
  } else if (env && *env) {
    s.path = env;
    s.origin = "ATOMQ_TABLE";
  } else if (fs::exists(user_table_path(wanted))) {
    s.path = user_table_path(wanted);
    s.origin = "user calibration";
  } else {
    s.origin = "bundled";
    if (auto bundled = model::bundled_table_path(bundled_table_dir(), wanted)) {
      s.path = *bundled;
    } else {
      s.warnings.push_back("no calibrated or bundled table for chip " + wanted +
                           "; using the bundled GH100 table: run `atomq calibrate` on this GPU");
      s.path = (fs::path(bundled_table_dir()) / "GH100.json").string();
    }
  }
  s.table = calibration::load_service_table(s.path);
  if (chip.empty())
    s.warnings.push_back("the GPU's chip is unknown: the " + s.table.provenance.device.chip +
                         " table may not describe it");
  else if (s.table.provenance.device.chip != chip)
    s.warnings.push_back("table " + s.path + " was calibrated on " + s.table.provenance.device.chip +
                         " but the GPU is " + chip + ": predictions may be off; run `atomq calibrate`");
  return s;
}

}  // namespace atomq::analyzer
