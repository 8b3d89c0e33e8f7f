// The store of loaded code objects (atomq/analyzer/loaded_code.hpp): which object a profiled
// kernel's SASS is read from, written once, within its memory bound. No GPU: the objects are
// small ELF files built here, shaped like a cubin's symbol table; a real cubin is
// checked in LoadedCode.ReadsTheKernelsOfACompiledCubin.
#include <elf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "atomq/analyzer/loaded_code.hpp"

namespace atomq::analyzer {
namespace {

namespace fs = std::filesystem;

struct Symbol {
  std::string name;
  unsigned char type = STT_FUNC;
  uint16_t section = 1;  // SHN_UNDEF (0): referenced, not defined
};

template <typename T>
void append(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

// A 64-bit ELF file of three sections: null, a symbol table and its string table.
std::string elf_with(const std::vector<Symbol>& symbols) {
  std::string names(1, '\0'), table;
  append(table, Elf64_Sym{});
  for (const Symbol& s : symbols) {
    Elf64_Sym sym{};
    sym.st_name = static_cast<uint32_t>(names.size());
    sym.st_info = ELF64_ST_INFO(STB_GLOBAL, s.type);
    sym.st_shndx = s.section;
    append(table, sym);
    names += s.name + '\0';
  }
  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_shentsize = sizeof(Elf64_Shdr);
  header.e_shnum = 3;
  const uint64_t names_at = sizeof header, table_at = names_at + names.size();
  header.e_shoff = table_at + table.size();
  Elf64_Shdr null{}, symtab{}, strtab{};
  symtab.sh_type = SHT_SYMTAB;
  symtab.sh_offset = table_at;
  symtab.sh_size = table.size();
  symtab.sh_link = 2;
  symtab.sh_entsize = sizeof(Elf64_Sym);
  strtab.sh_type = SHT_STRTAB;
  strtab.sh_offset = names_at;
  strtab.sh_size = names.size();
  std::string out;
  append(out, header);
  out += names + table;
  append(out, null);
  append(out, symtab);
  append(out, strtab);
  return out;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class LoadedCode : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = fs::temp_directory_path() / ("atomq_loaded_code_" + std::to_string(getpid())); }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(LoadedCode, DefinedFunctionsOnly) {
  const std::string elf = elf_with({{"_Z4histPKiPfi"}, {"_Z6calleev", STT_FUNC, SHN_UNDEF}, {"table", STT_OBJECT}});
  EXPECT_EQ(defined_functions(elf), (std::set<std::string>{"_Z4histPKiPfi"}));
  EXPECT_TRUE(defined_functions("not an ELF file").empty());
  EXPECT_TRUE(defined_functions(elf.substr(0, elf.size() - 10)).empty());  // section table cut short
  std::string bad_link = elf;  // the symbol table names a string table past the end
  Elf64_Shdr symtab;
  const size_t at = bad_link.size() - 2 * sizeof(Elf64_Shdr);
  std::memcpy(&symtab, bad_link.data() + at, sizeof symtab);
  symtab.sh_link = 7;
  std::memcpy(bad_link.data() + at, &symtab, sizeof symtab);
  EXPECT_TRUE(defined_functions(bad_link).empty());
}

TEST_F(LoadedCode, SavesTheObjectDefiningTheKernelOnce) {
  LoadedCodeStore store((dir_ / "code").string(), "42");
  const std::string a = elf_with({{"_Z4histPKiPfi"}}), b = elf_with({{"_Z5otherv"}, {"_Z4histPKiPfi", STT_FUNC, 0}});
  store.loaded(3, a.data(), a.size());
  store.loaded(7, b.data(), b.size());  // only refers to hist: not its code
  const std::string path = store.save_holding("_Z4histPKiPfi");
  EXPECT_EQ(fs::path(path).filename(), "42-1.cubin");
  EXPECT_EQ(read_all(path), a);
  EXPECT_EQ(store.save_holding("_Z4histPKiPfi"), path);
  EXPECT_EQ(fs::path(store.save_holding("_Z5otherv")).filename(), "42-2.cubin");
  EXPECT_EQ(store.save_holding("_Z5other"), "");  // a prefix is not the name
  EXPECT_EQ(saved_code_objects((dir_ / "code").string()).size(), 2u);
}

TEST_F(LoadedCode, TheLatestModuleDefiningANameIsItsCode) {
  LoadedCodeStore store(dir_.string(), "1");
  const std::string first = elf_with({{"triton_0"}, {"x"}}), second = elf_with({{"triton_0"}});
  store.loaded(1, first.data(), first.size());
  store.loaded(2, second.data(), second.size());
  EXPECT_EQ(read_all(store.save_holding("triton_0")), second);
  store.unloading(2);  // the name falls back to the older module
  EXPECT_EQ(read_all(store.save_holding("triton_0")), first);
}

TEST_F(LoadedCode, AReusedIdNeitherOverwritesNorKeepsTheOldModule) {
  LoadedCodeStore store(dir_.string(), "1");
  const std::string a = elf_with({{"_Z1hv"}}), b = elf_with({{"_Z1kv"}});
  store.loaded(5, a.data(), a.size());
  const std::string saved_a = store.save_holding("_Z1hv");
  store.unloading(5);
  EXPECT_EQ(store.bytes_kept(), 0u);
  EXPECT_EQ(store.save_holding("_Z1hv"), "");
  store.loaded(5, b.data(), b.size());  // the id reused by another module
  EXPECT_EQ(read_all(store.save_holding("_Z1kv")), b);
  EXPECT_EQ(read_all(saved_a), a);  // the first module's file stays as it was
  EXPECT_EQ(store.save_holding("_Z1hv"), "");
}

TEST_F(LoadedCode, KeepsNoMoreThanItsBound) {
  const std::string a = elf_with({{"_Z1av"}}), b = elf_with({{"_Z1bv"}});
  LoadedCodeStore store(dir_.string(), "1", a.size() + 1);
  store.loaded(1, a.data(), a.size());
  store.loaded(2, b.data(), b.size());
  EXPECT_EQ(store.bytes_kept(), a.size());
  EXPECT_EQ(store.modules_refused(), 1u);
  EXPECT_NE(store.save_holding("_Z1av"), "");
  EXPECT_EQ(store.save_holding("_Z1bv"), "");
  const std::string big = b + std::string(a.size(), '\0');
  store.loaded(1, big.data(), big.size());  // id 1 again, too big: the old copy is gone too
  EXPECT_EQ(store.bytes_kept(), 0u);
  EXPECT_EQ(store.save_holding("_Z1av"), "");
  const std::string none = elf_with({{"data", STT_OBJECT}});
  store.loaded(3, none.data(), none.size());  // defines no function: not kept
  EXPECT_EQ(store.bytes_kept(), 0u);
}

TEST_F(LoadedCode, AnUnwritableFolderIsAnErrorNamingTheFile) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "file") << "not a folder";
  LoadedCodeStore store((dir_ / "file").string(), "1");
  const std::string a = elf_with({{"_Z1av"}});
  store.loaded(1, a.data(), a.size());
  try {
    store.save_holding("_Z1av");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("1-1.cubin"), std::string::npos) << e.what();
  }
}

TEST_F(LoadedCode, TheFolderFollowsTheStreamAndListsCubinsOnly) {
  EXPECT_EQ(loaded_code_directory("/x/run.json.profiles.jsonl"), "/x/run.json.profiles.jsonl.code");
  EXPECT_TRUE(saved_code_objects((dir_ / "absent").string()).empty());
  fs::create_directories(dir_);
  std::ofstream(dir_ / "b.cubin") << "x";
  std::ofstream(dir_ / "a.cubin") << "x";
  std::ofstream(dir_ / "a.cubin.tmp") << "x";
  const auto files = saved_code_objects(dir_.string());
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(fs::path(files[0]).filename(), "a.cubin");
}

#ifdef ATOMQ_TEST_CUBIN
// A cubin nvcc compiled from tests/gpu/targets/library_kernels.cu: its two kernels, whose
// host-side launcher is not device code.
TEST_F(LoadedCode, ReadsTheKernelsOfACompiledCubin) {
  const std::set<std::string> functions = defined_functions(read_all(ATOMQ_TEST_CUBIN));
  ASSERT_EQ(functions.size(), 2u);
  for (const std::string& f : functions)
    EXPECT_TRUE(f.find("scatter_hot_f32") != std::string::npos || f.find("shared_float_spin") != std::string::npos) << f;
}
#endif

}  // namespace
}  // namespace atomq::analyzer
