#include "atomq/analyzer/loaded_code.hpp"

#include <elf.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace atomq::analyzer {

namespace fs = std::filesystem;

namespace {

// A T at `offset` of `bytes`, when it lies inside.
template <typename T>
bool read_at(std::string_view bytes, uint64_t offset, T& out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, bytes.data() + offset, sizeof(T));
  return true;
}

// The section table's entry `index`.
bool section(std::string_view elf, const Elf64_Ehdr& header, uint64_t index, Elf64_Shdr& out) {
  return index < header.e_shnum && read_at(elf, header.e_shoff + index * sizeof(Elf64_Shdr), out);
}

// The FUNC symbols with a section of one symbol table, named through its string table.
void add_functions(std::string_view elf, const Elf64_Shdr& symtab, const Elf64_Shdr& strtab,
                   std::set<std::string>& out) {
  if (strtab.sh_offset > elf.size() || elf.size() - strtab.sh_offset < strtab.sh_size) return;
  const std::string_view names = elf.substr(strtab.sh_offset, strtab.sh_size);
  const uint64_t count = symtab.sh_size / sizeof(Elf64_Sym);
  for (uint64_t i = 0; i < count; ++i) {
    Elf64_Sym sym;
    if (!read_at(elf, symtab.sh_offset + i * sizeof(Elf64_Sym), sym)) return;
    if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF || sym.st_name >= names.size()) continue;
    const std::string_view name = names.substr(sym.st_name);
    const size_t end = name.find('\0');
    if (end != std::string_view::npos && end > 0) out.emplace(name.substr(0, end));
  }
}

}  // namespace

std::set<std::string> defined_functions(std::string_view elf) {
  std::set<std::string> functions;
  Elf64_Ehdr header;
  if (!read_at(elf, 0, header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_shentsize != sizeof(Elf64_Shdr))
    return functions;
  for (uint64_t i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr symtab, strtab;
    if (!section(elf, header, i, symtab)) break;
    if (symtab.sh_type == SHT_SYMTAB && section(elf, header, symtab.sh_link, strtab))
      add_functions(elf, symtab, strtab, functions);
  }
  return functions;
}

LoadedCodeStore::LoadedCodeStore(std::string directory, std::string file_prefix, size_t max_bytes)
    : directory_(std::move(directory)), file_prefix_(std::move(file_prefix)), max_bytes_(max_bytes) {}

void LoadedCodeStore::loaded(uint32_t module_id, const char* cubin, size_t size) {
  unloading(module_id);  // a reused id is a new module
  if (cubin == nullptr || size == 0) return;
  if (bytes_kept_ + size > max_bytes_) {
    ++modules_refused_;
    return;
  }
  Module m;
  m.bytes.assign(cubin, size);
  m.functions = defined_functions(m.bytes);
  if (m.functions.empty()) return;  // no kernel of it can be asked for
  m.load = ++loads_;
  for (const std::string& f : m.functions) definer_[f] = module_id;
  bytes_kept_ += size;
  kept_[module_id] = std::move(m);
}

void LoadedCodeStore::unloading(uint32_t module_id) {
  const auto it = kept_.find(module_id);
  if (it == kept_.end()) return;
  bytes_kept_ -= it->second.bytes.size();
  const std::set<std::string> functions = std::move(it->second.functions);
  kept_.erase(it);
  // A name the module defined falls back to the latest other kept module defining it.
  for (const std::string& f : functions) {
    const auto definer = definer_.find(f);
    if (definer == definer_.end() || definer->second != module_id) continue;
    definer_.erase(definer);
    uint64_t latest = 0;
    for (const auto& [id, m] : kept_)
      if (m.load > latest && m.functions.count(f)) {
        latest = m.load;
        definer_[f] = id;
      }
  }
}

std::string LoadedCodeStore::save_holding(const std::string& symbol) {
  const auto definer = definer_.find(symbol);
  if (definer == definer_.end()) return "";
  Module& m = kept_.at(definer->second);
  if (!m.saved.empty()) return m.saved;
  std::error_code ec;
  fs::create_directories(directory_, ec);
  const std::string path = (fs::path(directory_) / (file_prefix_ + "-" + std::to_string(m.load) + ".cubin")).string();
  // Not write_file_atomically: it installs signal handlers, which must not enter the
  // program atomq is injected into; a torn file here costs only a hint.
  const std::string temporary = path + ".tmp";
  bool written = false;
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(m.bytes.data(), static_cast<std::streamsize>(m.bytes.size()));
    written = static_cast<bool>(out.flush());
  }
  if (!written || std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string why = written ? std::string("rename failed: ") + std::strerror(errno) : "write failed";
    std::remove(temporary.c_str());
    throw std::runtime_error("cannot write " + path + ": " + why);
  }
  m.saved = path;
  return path;
}

std::string loaded_code_directory(const std::string& stream_path) { return stream_path + ".code"; }

std::vector<std::string> saved_code_objects(const std::string& directory) {
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".cubin" && it->is_regular_file(ec)) files.push_back(it->path().string());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace atomq::analyzer
