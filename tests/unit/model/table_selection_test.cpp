// The table for a chip (table_selection.hpp): the user's calibrated table where calibrate
// installs it, else the bundled one, also when $HOME cannot be read.
#include "atomq/model/table_selection.hpp"
#include "atomq/model/service_time.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace atomq::model {
namespace {

namespace fs = std::filesystem;

class TableSelection : public ::testing::Test {
 protected:
  void SetUp() override {
    work_ = fs::temp_directory_path() / ("atomq-table-selection-" + std::to_string(::getpid()));
    fs::remove_all(work_);
    fs::create_directories(work_);
    ::setenv("ATOMQ_TABLE_DIR", ATOMQ_BUNDLED_TABLE_DIR, 1);
    ::unsetenv("ATOMQ_TABLE");
    ::unsetenv("XDG_DATA_HOME");
  }
  void TearDown() override {
    ::unsetenv("ATOMQ_TABLE_DIR");
    fs::remove_all(work_);
  }
  fs::path work_;
};

TEST_F(TableSelection, UserTableWhereCalibrateInstallsIt) {
  ::setenv("HOME", work_.c_str(), 1);
  EXPECT_EQ(select_table("", "GH100").origin, "bundled");
  const fs::path user = user_table_path("GH100");
  EXPECT_EQ(user, work_ / ".local/share/atomq/tables/GH100.json");
  fs::create_directories(user.parent_path());
  fs::copy_file(fs::path(ATOMQ_BUNDLED_TABLE_DIR) / "GH100.json", user);
  const SelectedTable s = select_table("", "GH100");
  EXPECT_EQ(s.origin, "user calibration");
  EXPECT_EQ(s.path, user.string());
  EXPECT_NE(s.reason.find("calibrated on this machine"), std::string::npos) << s.reason;
  ::setenv("XDG_DATA_HOME", (work_ / "xdg").c_str(), 1);
  EXPECT_EQ(user_table_path("GH100"), (work_ / "xdg/atomq/tables/GH100.json").string());
}

// Boards of one chip differ (an H100 SXM and an H200: memory, latencies, launch floor): the
// bundled table of the GPU model comes before the chip's, and the chip's table of another board
// is used with a warning that names both.
TEST_F(TableSelection, TheGpuModelsBundledTableComesBeforeTheChipsTable) {
  ::setenv("HOME", work_.c_str(), 1);
  const std::string h100 = "NVIDIA H100 80GB HBM3";
  const auto own = bundled_gpu_table_path(ATOMQ_BUNDLED_TABLE_DIR, "GH100", h100);
  ASSERT_TRUE(own) << "calibration/tables/GH100.NVIDIA_H100_80GB_HBM3.json is part of the tree";
  EXPECT_EQ(fs::path(*own).filename(), "GH100.NVIDIA_H100_80GB_HBM3.json");
  const SelectedTable s = select_table("", "GH100", h100);
  EXPECT_EQ(s.path, *own);
  EXPECT_EQ(s.table.provenance.device.name, h100);
  EXPECT_TRUE(s.warnings.empty());
  EXPECT_EQ(bundled_table_for(ATOMQ_BUNDLED_TABLE_DIR, "GH100", h100), own);

  const SelectedTable chip = select_table("", "GH100", "NVIDIA H200");
  EXPECT_EQ(fs::path(chip.path).filename(), "GH100.json");
  EXPECT_TRUE(chip.warnings.empty()) << "the chip's table was calibrated on an H200";
  const SelectedTable other = select_table("", "GH100", "NVIDIA H100 PCIe");
  EXPECT_EQ(fs::path(other.path).filename(), "GH100.json");
  ASSERT_EQ(other.warnings.size(), 1u);
  EXPECT_NE(other.warnings[0].find("NVIDIA H100 PCIe"), std::string::npos) << other.warnings[0];
  EXPECT_NE(other.warnings[0].find("NVIDIA H200"), std::string::npos) << other.warnings[0];
  EXPECT_EQ(bundled_gpu_table_path(ATOMQ_BUNDLED_TABLE_DIR, "GH100", "../GH100"), std::nullopt);
  // Every bundled table is the one the rule finds for the chip and GPU it was calibrated on.
  for (const auto& entry : fs::directory_iterator(ATOMQ_BUNDLED_TABLE_DIR))
    if (entry.path().extension() == ".json") {
      const auto t = calibration::load_service_table(entry.path().string());
      EXPECT_EQ(bundled_table_for(ATOMQ_BUNDLED_TABLE_DIR, t.provenance.device.chip, t.provenance.device.name),
                entry.path().string());
    }
  EXPECT_EQ(select_table(own->c_str(), "GH100", "NVIDIA H200").origin, "--table");
}

TEST_F(TableSelection, AGpusOwnTableComesBeforeTheChipsTable) {
  ::setenv("HOME", work_.c_str(), 1);
  const std::string uuid = "GPU-00000000-1111-2222-3333-444444444444";
  EXPECT_EQ(select_device_table("", "GH100", uuid).origin, "bundled");
  const fs::path own = user_device_table_path("GH100", uuid);
  EXPECT_EQ(own, work_ / ".local/share/atomq/tables" / ("GH100-" + uuid + ".json"));
  fs::create_directories(own.parent_path());
  fs::copy_file(fs::path(ATOMQ_BUNDLED_TABLE_DIR) / "GH100.json", own);
  const SelectedTable s = select_device_table("", "GH100", uuid);
  EXPECT_EQ(s.path, own.string());
  EXPECT_NE(s.reason.find(uuid), std::string::npos) << s.reason;
  // Another GPU, or an explicit table, does not take it.
  EXPECT_EQ(select_device_table("", "GH100", "GPU-99999999-1111-2222-3333-444444444444").origin, "bundled");
  EXPECT_EQ(select_device_table("", "GH100", "").origin, "bundled");
  const std::string bundled = (fs::path(ATOMQ_BUNDLED_TABLE_DIR) / "GH100.json").string();
  EXPECT_EQ(select_device_table(bundled, "GH100", uuid).origin, "--table");
}

TEST_F(TableSelection, UnreadableHomeFallsBackToTheBundledTable) {
  const fs::path loop = work_ / "loop";  // stat fails with ELOOP, even for root
  fs::create_symlink(loop, loop);
  ::setenv("HOME", loop.c_str(), 1);
  const SelectedTable s = select_table("", "GH100");
  EXPECT_EQ(s.origin, "bundled");
  EXPECT_EQ(s.table.provenance.device.chip, "GH100");
  EXPECT_NE(s.reason.find("bundled"), std::string::npos) << s.reason;
}

// A user table that does not load (a broken file where calibrate installs tables) is passed
// over for the bundled one, with a warning that names the file, the error and the fix.
TEST_F(TableSelection, BrokenUserTableFallsBackToTheBundledTableWithAWarning) {
  ::setenv("HOME", work_.c_str(), 1);
  const fs::path user = user_table_path("GH100");
  fs::create_directories(user.parent_path());
  std::ofstream(user) << "{\"format\": \"atomq.service_table\", \"version\": 2, \"cells\": [";
  const SelectedTable s = select_table("", "GH100");
  EXPECT_EQ(s.origin, "bundled");
  EXPECT_EQ(s.table.provenance.device.chip, "GH100");
  EXPECT_EQ(fs::path(s.path).parent_path(), fs::path(ATOMQ_BUNDLED_TABLE_DIR));
  std::string all;
  for (const auto& w : s.warnings) all += w + "\n";
  EXPECT_NE(all.find(user.string() + " cannot be used"), std::string::npos) << all;
  EXPECT_NE(all.find("not valid JSON"), std::string::npos) << all;
  EXPECT_NE(all.find("atomq calibrate"), std::string::npos) << all;
  EXPECT_NE(all.find("delete " + user.string()), std::string::npos) << all;
  EXPECT_NE(s.reason.find("unusable"), std::string::npos) << s.reason;
  // Given explicitly, the same file is still an error.
  EXPECT_THROW(select_table(user.string(), "GH100"), calibration::TableError);
}

// A table that a variable chose and that does not load: the error names the variable.
TEST_F(TableSelection, ErrorsNameTheVariableThatChoseTheTable) {
  ::setenv("HOME", work_.c_str(), 1);
  const auto error_of = [] {
    try {
      select_table("", "GH100");
    } catch (const calibration::TableError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const fs::path broken = work_ / "broken.json";
  std::ofstream(broken) << "{";
  ::setenv("ATOMQ_TABLE", broken.c_str(), 1);
  EXPECT_NE(error_of().find("(the table chosen by $ATOMQ_TABLE)"), std::string::npos) << error_of();
  ::unsetenv("ATOMQ_TABLE");
  const fs::path empty = work_ / "empty";
  fs::create_directories(empty / "tables");
  ::setenv("ATOMQ_TABLE_DIR", empty.c_str(), 1);
  EXPECT_NE(error_of().find("(the table chosen by $ATOMQ_TABLE_DIR=" + empty.string() + ")"), std::string::npos)
      << error_of();
  ::unsetenv("ATOMQ_TABLE_DIR");
  ::setenv("ATOMQ_DATA_DIR", empty.c_str(), 1);
  EXPECT_NE(error_of().find("(the table chosen by $ATOMQ_DATA_DIR=" + empty.string() + ")"), std::string::npos)
      << error_of();
  ::unsetenv("ATOMQ_DATA_DIR");
  // Named with --table: the file alone.
  EXPECT_THROW(select_table(broken.string(), "GH100"), calibration::TableError);
}

TEST_F(TableSelection, ChipNamesAreCheckedBeforeTheyBecomePaths) {
  for (const char* ok : {"GH100", "AD102", "gb202-a.1", "x_y"}) EXPECT_TRUE(is_chip_name(ok)) << ok;
  for (const char* bad : {"", ".", "..", "../x", "a/b", "a..b", ".hidden", "GH100\n", "x y", "\xff"})
    EXPECT_FALSE(is_chip_name(bad)) << bad;
  EXPECT_FALSE(is_chip_name(std::string(65, 'a')));
  ::setenv("HOME", (work_ / "home").c_str(), 1);
  EXPECT_EQ(user_table_path("../../../evil"), "");
  EXPECT_EQ(bundled_table_path(ATOMQ_BUNDLED_TABLE_DIR, "../tables/GH100"), std::nullopt);
  // A table where the unchecked name would have led: never picked.
  const fs::path evil = work_ / "home/.local/evil.json";
  fs::create_directories(evil.parent_path());
  fs::copy_file(fs::path(ATOMQ_BUNDLED_TABLE_DIR) / "GH100.json", evil);
  const SelectedTable s = select_table("", "../../../evil");
  EXPECT_EQ(s.origin, "bundled");
  EXPECT_EQ(s.path, (fs::path(ATOMQ_BUNDLED_TABLE_DIR) / "GH100.json").string());
  ASSERT_FALSE(s.warnings.empty());
  EXPECT_NE(s.warnings.front().find("'../../../evil' read from the input is not a chip name"), std::string::npos)
      << s.warnings.front();
  const SelectedTable raw = select_table("", std::string("G\x01\xff/x"));
  EXPECT_NE(raw.warnings.front().find("'G?" "?/x'"), std::string::npos) << raw.warnings.front();
}

}  // namespace
}  // namespace atomq::model
