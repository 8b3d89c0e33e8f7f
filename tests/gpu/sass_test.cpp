// Each microbenchmark kernel compiles to the intended SASS instruction, as many times per
// unrolled group as the stream claims (cuobjdump on the built atomq binary).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <map>
#include <memory>
#include <regex>
#include <string>

#include "atomq/microbench/atomic_stream.hpp"

namespace {

struct OpCounts {
  int popc_inc = 0;
  int add = 0;
  int cas = 0;
  int other_atoms = 0;
};

bool have_cuobjdump(std::string* path) {
  for (const char* candidate : {"cuobjdump", "/usr/local/cuda/bin/cuobjdump"}) {
    const std::string cmd = std::string("command -v ") + candidate + " >/dev/null 2>&1";
    if (std::system(cmd.c_str()) == 0) {
      *path = candidate;
      return true;
    }
  }
  return false;
}

// SASS of every atomic_stream_kernel<fao, cas> in the binary, by template arguments.
std::map<std::pair<int, int>, OpCounts> count_atoms(const std::string& cuobjdump) {
  const std::string cmd = cuobjdump + " --dump-sass " + ATOMQ_CLI_PATH + " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  std::map<std::pair<int, int>, OpCounts> result;
  if (!pipe) return result;
  // Stream kernels by <fao, cas_quarters>; latency kernels as <10 + op, 0>.
  const std::regex function_re(R"(Function : .*atomic_stream_kernelILi(\d)ELi(\d)E)");
  const std::regex latency_re(R"(Function : .*atomic_latency_kernelILi(\d)E)");
  const std::regex atoms_re(R"(\bATOMS\.([A-Z0-9_.]+))");
  OpCounts* current = nullptr;
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), pipe.get())) {
    const std::string line(buf.data());
    std::smatch m;
    if (line.find("Function :") != std::string::npos) {
      if (std::regex_search(line, m, function_re))
        current = &result[{std::stoi(m[1]), std::stoi(m[2])}];
      else if (std::regex_search(line, m, latency_re))
        current = &result[{10 + std::stoi(m[1]), 0}];
      else
        current = nullptr;
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

}  // namespace

TEST(SassGpu, EachKernelIssuesTheIntendedInstruction) {
  std::string cuobjdump;
  if (!have_cuobjdump(&cuobjdump)) GTEST_SKIP() << "cuobjdump not found (it ships with the GPU machine's toolkit)";
  const auto counts = count_atoms(cuobjdump);
  ASSERT_FALSE(counts.empty()) << "no atomic_stream_kernel found in " << ATOMQ_CLI_PATH;
  constexpr int kGroup = atomq::microbench::kStreamUnroll;
  for (int fao = 0; fao <= 1; ++fao) {
    for (int cas = 0; cas <= 4; ++cas) {
      SCOPED_TRACE("fao=" + std::to_string(fao) + " cas_quarters=" + std::to_string(cas));
      auto it = counts.find({fao, cas});
      ASSERT_NE(it, counts.end());
      const OpCounts& c = it->second;
      const int cas_slots = kGroup * cas / 4;
      const int fao_slots = kGroup - cas_slots;
      EXPECT_EQ(c.cas, cas_slots);
      EXPECT_EQ(c.popc_inc, fao == 0 ? fao_slots : 0);
      EXPECT_EQ(c.add, fao == 1 ? fao_slots : 0);
      EXPECT_EQ(c.other_atoms, 0);
    }
  }
  // Latency chains: kLatencyUnroll (8) dependent atomics of one kind per loop body.
  auto add_chain = counts.find({11, 0});
  ASSERT_NE(add_chain, counts.end());
  EXPECT_EQ(add_chain->second.add, 8);
  EXPECT_EQ(add_chain->second.cas + add_chain->second.popc_inc + add_chain->second.other_atoms, 0);
  auto cas_chain = counts.find({13, 0});
  ASSERT_NE(cas_chain, counts.end());
  EXPECT_EQ(cas_chain->second.cas, 8);
  EXPECT_EQ(cas_chain->second.add + cas_chain->second.popc_inc + cas_chain->second.other_atoms, 0);

  auto control = counts.find({2, 0});
  ASSERT_NE(control, counts.end());
  EXPECT_EQ(control->second.popc_inc + control->second.add + control->second.cas +
                control->second.other_atoms, 0);
}

// The counting-sort pass uses the atomic's result (ATOMS.ADD, serialized on one word), the
// plain histograms drop it (ATOMS.POPC.INC, merged): the demo's contrast rests on this.
TEST(SassGpu, RankKernelsUseTheResultAndHistogramsDoNot) {
  std::string cuobjdump;
  if (!have_cuobjdump(&cuobjdump)) GTEST_SKIP() << "cuobjdump not found (it ships with the GPU machine's toolkit)";
  const std::string cmd = cuobjdump + " --dump-sass " + ATOMQ_CLI_PATH + " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  ASSERT_TRUE(pipe);
  std::string function;
  std::map<std::string, OpCounts> by_kernel;
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), pipe.get())) {
    const std::string line(buf.data());
    if (line.find("Function :") != std::string::npos) {
      function = line.find("hist_rank_kernel") != std::string::npos              ? "rank"
                 : line.find("hist_block_grid_stride_kernel") != std::string::npos ? "grid_stride"
                                                                                   : "";
      continue;
    }
    if (function.empty()) continue;
    if (line.find("ATOMS.POPC.INC") != std::string::npos) ++by_kernel[function].popc_inc;
    else if (line.find("ATOMS.ADD") != std::string::npos) ++by_kernel[function].add;
  }
  EXPECT_GT(by_kernel["rank"].add, 0);
  EXPECT_EQ(by_kernel["rank"].popc_inc, 0);
  EXPECT_GT(by_kernel["grid_stride"].popc_inc, 0);
  EXPECT_EQ(by_kernel["grid_stride"].add, 0);
}
