// Each microbenchmark kernel compiles to the intended SASS instruction, as many times per
// unrolled group as the stream claims (cuobjdump on the built atomq binary).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <map>
#include <memory>
#include <regex>
#include <string>

#include "cuobjdump_path.hpp"
#include "atomq/microbench/atomic_stream.hpp"

namespace {

struct OpCounts {
  int popc_inc = 0;
  int add = 0;
  int cas = 0;
  int other_atoms = 0;
};

using atomq::test::have_cuobjdump;

// The shared atomics of every function in the built binary, by mangled function name.
std::map<std::string, OpCounts> count_atoms(const std::string& cuobjdump) {
  const std::string cmd = cuobjdump + " --dump-sass " + ATOMQ_GPU_CLI_PATH + " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  std::map<std::string, OpCounts> result;
  if (!pipe) return result;
  const std::regex function_re(R"(Function : (\S+))");
  const std::regex atoms_re(R"(\bATOMS\.([A-Z0-9_.]+))");
  OpCounts* current = nullptr;
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), pipe.get())) {
    const std::string line(buf.data());
    std::smatch m;
    if (std::regex_search(line, m, function_re)) {
      current = &result[m[1]];
      continue;
    }
    if (current == nullptr || !std::regex_search(line, m, atoms_re)) continue;
    const std::string op = m[1];
    if (op.rfind("POPC.INC", 0) == 0) ++current->popc_inc;
    else if (op.rfind("ADD", 0) == 0) ++current->add;
    else if (op == "CAS" || op.rfind("CAS.", 0) == 0) ++current->cas;
    else ++current->other_atoms;
  }
  return result;
}

// The one function whose mangled name matches `pattern`; nullptr when none or several do.
const OpCounts* find_function(const std::map<std::string, OpCounts>& counts, const std::string& pattern) {
  const std::regex re(pattern);
  const OpCounts* found = nullptr;
  for (const auto& [name, c] : counts) {
    if (!std::regex_search(name, re)) continue;
    if (found != nullptr) return nullptr;
    found = &c;
  }
  return found;
}

// The sums over every function whose mangled name contains `part` (all template instances).
OpCounts sum_functions(const std::map<std::string, OpCounts>& counts, const std::string& part) {
  OpCounts sum;
  for (const auto& [name, c] : counts) {
    if (name.find(part) == std::string::npos) continue;
    sum.popc_inc += c.popc_inc;
    sum.add += c.add;
    sum.cas += c.cas;
    sum.other_atoms += c.other_atoms;
  }
  return sum;
}

int total(const OpCounts& c) { return c.popc_inc + c.add + c.cas + c.other_atoms; }

}  // namespace

TEST(SassGpu, EachKernelIssuesTheIntendedInstruction) {
  std::string cuobjdump;
  if (!have_cuobjdump(&cuobjdump)) GTEST_SKIP() << "cuobjdump not found (it ships with the GPU machine's toolkit)";
  const auto counts = count_atoms(cuobjdump);
  ASSERT_FALSE(counts.empty()) << "no atomic_stream_kernel found in " << ATOMQ_GPU_CLI_PATH;
  constexpr int kGroup = atomq::microbench::kStreamUnroll;
  for (int fao = 0; fao <= 1; ++fao) {
    for (int cas = 0; cas <= 4; ++cas) {
      SCOPED_TRACE("fao=" + std::to_string(fao) + " cas_quarters=" + std::to_string(cas));
      const OpCounts* c = find_function(
          counts, "atomic_stream_kernelILi" + std::to_string(fao) + "ELi" + std::to_string(cas) + "E");
      ASSERT_NE(c, nullptr);
      const int cas_slots = kGroup * cas / 4;
      const int fao_slots = kGroup - cas_slots;
      EXPECT_EQ(c->cas, cas_slots);
      EXPECT_EQ(c->popc_inc, fao == 0 ? fao_slots : 0);
      EXPECT_EQ(c->add, fao == 1 ? fao_slots : 0);
      EXPECT_EQ(c->other_atoms, 0);
    }
  }
  // Latency chains: kLatencyUnroll (8) dependent atomics of one kind per loop body.
  const OpCounts* add_chain = find_function(counts, "atomic_latency_kernelILi1E");
  ASSERT_NE(add_chain, nullptr);
  EXPECT_EQ(add_chain->add, 8);
  EXPECT_EQ(total(*add_chain), 8);
  const OpCounts* cas_chain = find_function(counts, "atomic_latency_kernelILi3E");
  ASSERT_NE(cas_chain, nullptr);
  EXPECT_EQ(cas_chain->cas, 8);
  EXPECT_EQ(total(*cas_chain), 8);

  const OpCounts* control = find_function(counts, "atomic_stream_kernelILi2ELi0E");
  ASSERT_NE(control, nullptr);
  EXPECT_EQ(total(*control), 0);
}

// The counting-sort pass uses the atomic's result (ATOMS.ADD, serialized on one word), the
// plain histograms drop it (ATOMS.POPC.INC, merged): the demo's contrast rests on this.
TEST(SassGpu, RankKernelsUseTheResultAndHistogramsDoNot) {
  std::string cuobjdump;
  if (!have_cuobjdump(&cuobjdump)) GTEST_SKIP() << "cuobjdump not found (it ships with the GPU machine's toolkit)";
  const auto counts = count_atoms(cuobjdump);
  const OpCounts rank = sum_functions(counts, "hist_rank_kernel");
  const OpCounts grid_stride = sum_functions(counts, "hist_block_grid_stride_kernel");
  EXPECT_GT(rank.add, 0);
  EXPECT_EQ(rank.popc_inc, 0);
  EXPECT_GT(grid_stride.popc_inc, 0);
  EXPECT_EQ(grid_stride.add, 0);
}
