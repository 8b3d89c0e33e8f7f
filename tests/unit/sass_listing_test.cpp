// The SASS listing parser, the loops it finds, the arch choice, the atomic classifier and the
// hint filling, on committed listings (tests/unit/fixtures/*.sass) and small texts: no GPU, no
// cuobjdump.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "atomq/analyzer/sass_atomics.hpp"
#include "atomq/analyzer/sass_hints.hpp"
#include "atomq/analyzer/sass_listing.hpp"
#include "atomq/analyzer/instruction_join.hpp"
#include "atomq/analyzer/source_lines.hpp"
#include "atomq/model/metric_names.hpp"

namespace an = atomq::analyzer;
using atomq::GlobalAtomicOp;
using atomq::OpVariant;

namespace {

constexpr const char* kNaiveGlobal = "_ZN5atomq9histogram7kernels24hist_naive_global_kernelIjEEvNS1_8HistArgsE";
constexpr const char* kBlockPrivate = "_ZN5atomq9histogram7kernels25hist_block_private_kernelIjEEvNS1_8HistArgsE";

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(ATOMQ_FIXTURE_DIR) + "/" + name, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const an::SassFunction& sm90(const std::vector<an::SassFunction>& functions, const std::string& name) {
  static const an::SassFunction kNone;
  const an::SassFunction* f = an::find_sass_function(functions, name, 9, 0);
  return f ? *f : kNone;
}

// A listing of one sm_90 function from instruction texts, at offsets 0x0, 0x10, ...
std::string listing(const std::vector<std::string>& instructions) {
  std::string text = "\tcode for sm_90\n\t\tFunction : _Z1fv\n";
  for (size_t i = 0; i < instructions.size(); ++i)
    text += "        /*" + std::to_string(i) + "0*/   " + instructions[i] + " ;  /* 0x0 */\n";
  return text;
}

an::SassAtomics classify(const std::vector<std::string>& instructions) {
  const auto functions = an::parse_sass_listing(listing(instructions));
  return functions.empty() ? an::SassAtomics{} : an::classify_atomics(functions.front());
}

}  // namespace

TEST(SassListing, ParsesOneInstructionLine) {
  const auto i = an::parse_sass_instruction(
      "        /*0120*/              @!P0 REDG.E.ADD.STRONG.GPU desc[UR4][R12.64], R11 ;   /* 0x0000000c0cff798e */");
  ASSERT_TRUE(i.has_value());
  EXPECT_EQ(i->offset, 0x120);
  EXPECT_EQ(i->predicate, "@!P0");
  EXPECT_EQ(i->opcode, "REDG.E.ADD.STRONG.GPU");
  EXPECT_EQ(i->operands, (std::vector<std::string>{"desc[UR4][R12.64]", "R11"}));
  EXPECT_FALSE(i->branch_target.has_value());

  const auto branch = an::parse_sass_instruction("        /*0130*/                   BRA 0x80;");
  ASSERT_TRUE(branch.has_value());
  EXPECT_EQ(branch->branch_target, 0x80);
  EXPECT_FALSE(an::parse_sass_instruction("                     /* 0x000fe40000000800 */").has_value());
}

TEST(SassListing, FatBinaryFunctionsByArch) {
  const auto functions = an::parse_sass_listing(fixture("sass_fatbin_sm80_sm90.sass"));
  ASSERT_EQ(functions.size(), 5u);  // the PTX section adds none
  EXPECT_EQ(functions[0].arch, "sm_80");
  EXPECT_EQ(functions[1].arch, "sm_90");
  EXPECT_EQ(functions[1].mangled_name, kNaiveGlobal);
  EXPECT_EQ(functions[1].instructions.size(), 28u);
  EXPECT_EQ(sm90(functions, kNaiveGlobal).arch, "sm_90");
  // An 8.6 device runs the sm_80 code (same major, not newer); a 10.0 device none of it.
  const an::SassFunction* ampere = an::find_sass_function(functions, kNaiveGlobal, 8, 6);
  ASSERT_NE(ampere, nullptr);
  EXPECT_EQ(ampere->arch, "sm_80");
  EXPECT_EQ(an::find_sass_function(functions, kNaiveGlobal, 10, 0), nullptr);  // would JIT the PTX
  EXPECT_EQ(an::find_sass_function(functions, kNaiveGlobal, 0, 0)->arch, "sm_90");  // device unknown
  EXPECT_EQ(an::find_sass_function(functions, "_Z7missingv", 9, 0), nullptr);
}

TEST(SassListing, FilterKeepsOnlyTheAskedFunctions) {
  an::SassListingParser parser([](const std::string& name, const std::string& arch) {
    return name == kBlockPrivate && arch == "sm_90";
  });
  std::istringstream lines(fixture("sass_fatbin_sm80_sm90.sass"));
  for (std::string line; std::getline(lines, line);) parser.add_line(line);
  EXPECT_EQ(parser.functions_seen(), 5);
  const auto kept = parser.finish();
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].mangled_name, kBlockPrivate);
}

TEST(SassListing, BackwardBranchesAreLoops) {
  const auto functions = an::parse_sass_listing(fixture("sass_fatbin_sm80_sm90.sass"));
  const auto loops = an::backward_branch_loops(sm90(functions, kBlockPrivate));
  ASSERT_EQ(loops.size(), 2u);  // the zeroing and the merge; not the forward skip, not BRA-to-self
  EXPECT_EQ(loops[0].start, 0x60);
  EXPECT_EQ(loops[0].end, 0x90);
  EXPECT_EQ(loops[1].start, 0xf0);
  EXPECT_EQ(loops[1].end, 0x140);
}

TEST(SassListing, OddLinesAreSkipped) {
  const auto functions = an::parse_sass_listing(fixture("sass_odd_lines.sass"));
  ASSERT_EQ(functions.size(), 1u);  // "Function :" without a name starts none
  const an::SassFunction& f = functions[0];
  EXPECT_EQ(f.mangled_name, "_Z4oddsPj");
  std::vector<long long> offsets;
  for (const auto& i : f.instructions) offsets.push_back(i.offset);
  EXPECT_EQ(offsets, (std::vector<long long>{0x0, 0x60, 0x70, 0x80, 0xa0, 0xb0, 0xc0, 0xd0, 0xe0}));
  EXPECT_FALSE(f.instructions[2].branch_target.has_value());  // "BRA ;"
  EXPECT_FALSE(f.instructions[3].branch_target.has_value());  // "BRA 0xnothex"
  const an::SassAtomics a = an::classify_atomics(f);
  EXPECT_EQ(a.global_ops.at(GlobalAtomicOp::kRedAddU32), 2);
  EXPECT_EQ(a.shared_popc_inc, 1);
  EXPECT_EQ(a.shared_cas, 1);  // inside "{ ... }"
  EXPECT_TRUE(a.cas_in_loop);
}

TEST(SassListing, NeverThrowsOnAnyText) {
  for (const std::string& text : {std::string(), std::string("\n\n\n"), std::string("Function : x\n/*"),
                                  std::string("code for \narch = \n/*0*/ @"), std::string(3, '\0'),
                                  std::string("/*ffffffffffffffffffff*/ BRA 0xffffffffffffffffffff ;")}) {
    EXPECT_NO_THROW(an::parse_sass_listing(text));
  }
  EXPECT_EQ(an::sass_arch_number("sm_90a"), 90);
  EXPECT_EQ(an::sass_arch_number("compute_90"), std::nullopt);
  EXPECT_EQ(an::sass_arch_number("sm_"), std::nullopt);
}

// The opcodes as cuobjdump lists them for sm_90 (CUDA 13.0): each calibrated op exactly, the
// rest to their nearest calibrated op as a stand-in, vector float adds to none.
TEST(SassAtomics, GlobalOpcodesMapToTheVocabulary) {
  using Op = GlobalAtomicOp;
  auto exact = [](const char* opcode) {
    const auto m = an::match_global_atomic(opcode);
    return m && !m->stand_in ? std::optional<Op>(m->op) : std::nullopt;
  };
  auto stand_in = [](const char* opcode) {
    const auto m = an::match_global_atomic(opcode);
    return m && m->stand_in ? std::optional<Op>(m->op) : std::nullopt;
  };
  EXPECT_EQ(exact("REDG.E.ADD.STRONG.GPU"), Op::kRedAddU32);
  EXPECT_EQ(exact("REDG.E.ADD.F32.FTZ.RN.STRONG.GPU"), Op::kRedAddF32);
  EXPECT_EQ(exact("REDG.E.ADD.64.STRONG.GPU"), Op::kRedAddU64);
  EXPECT_EQ(exact("REDG.E.MIN.STRONG.GPU"), Op::kRedMinU32);
  EXPECT_EQ(exact("REDG.E.MAX.STRONG.GPU"), Op::kRedMaxU32);
  EXPECT_EQ(exact("ATOMG.E.ADD.STRONG.GPU"), Op::kAtomAddU32);
  EXPECT_EQ(exact("ATOMG.E.CAS.STRONG.GPU"), Op::kAtomCasU32);
  EXPECT_EQ(exact("ATOMG.E.CAS.64.STRONG.GPU"), Op::kAtomCasU64);
  EXPECT_EQ(exact("RED.E.ADD.STRONG.GPU"), Op::kRedAddU32);  // generic address
  EXPECT_EQ(exact("REDG.E.ADD.F64.RN.STRONG.GPU"), Op::kRedAddF64);
  EXPECT_EQ(exact("ATOMG.E.ADD.F64.RN.STRONG.GPU"), Op::kAtomAddF64);
  EXPECT_EQ(exact("ATOM.E.ADD.F16x2.RN.STRONG.GPU"), Op::kAtomAddF16x2);
  EXPECT_EQ(exact("ATOM.E.ADD.BF16x2.RN.STRONG.GPU"), Op::kAtomAddBF16x2);
  EXPECT_EQ(exact("ATOMG.E.ADD.64.STRONG.GPU"), Op::kAtomAddU64);
  EXPECT_EQ(exact("ATOMG.E.EXCH.STRONG.GPU"), Op::kAtomExchU32);
  EXPECT_EQ(exact("ATOMG.E.EXCH.64.STRONG.GPU"), Op::kAtomExchU64);
  EXPECT_EQ(exact("REDG.E.OR.STRONG.GPU"), Op::kRedOrU32);
  // Triton's float atomic_add and atomic_max (integer max / min on the bits), results returned.
  EXPECT_EQ(exact("ATOMG.E.ADD.F32.FTZ.RN.STRONG.GPU"), Op::kAtomAddF32);
  EXPECT_EQ(exact("ATOMG.E.MAX.S32.STRONG.GPU"), Op::kAtomMaxS32);
  EXPECT_EQ(exact("ATOMG.E.MIN.STRONG.GPU"), Op::kAtomMinU32);

  EXPECT_EQ(stand_in("REDG.E.MAX.S32.STRONG.GPU"), Op::kRedMaxU32);
  EXPECT_EQ(stand_in("REDG.E.MIN.S32.STRONG.GPU"), Op::kRedMinU32);
  EXPECT_EQ(stand_in("REDG.E.XOR.STRONG.GPU"), Op::kRedOrU32);
  EXPECT_EQ(stand_in("REDG.E.AND.STRONG.GPU"), Op::kRedOrU32);
  EXPECT_EQ(stand_in("REDG.E.INC.STRONG.GPU"), Op::kRedAddU32);
  EXPECT_EQ(stand_in("REDG.E.MAX.64.STRONG.GPU"), Op::kRedAddU64);
  EXPECT_EQ(stand_in("ATOMG.E.MAX.STRONG.GPU"), Op::kAtomMaxS32);  // unsigned max: the signed one's cells
  EXPECT_EQ(stand_in("ATOMG.E.MIN.S32.STRONG.GPU"), Op::kAtomMinU32);
  EXPECT_EQ(stand_in("ATOMG.E.XOR.STRONG.GPU"), Op::kAtomAddU32);
  EXPECT_EQ(stand_in("ATOMG.E.OR.64.STRONG.GPU"), Op::kAtomAddU64);
  EXPECT_EQ(stand_in("REDG.E.ADD.F16x2.RN.STRONG.GPU"), Op::kAtomAddF16x2);

  // Vector float adds (the H200's SASS of atomicAdd on float2 / float4): their own ops; the
  // returning forms stand in through them.
  EXPECT_EQ(exact("REDG.E.ADD.F32x4.FTZ.RN.STRONG.GPU"), Op::kRedAddF32x4);
  EXPECT_EQ(exact("REDG.E.ADD.F32x2.FTZ.RN.STRONG.GPU"), Op::kRedAddF32x2);
  EXPECT_EQ(stand_in("ATOMG.E.ADD.F32x2.FTZ.RN.STRONG.GPU"), Op::kRedAddF32x2);
  EXPECT_EQ(stand_in("ATOMG.E.ADD.F32x4.FTZ.RN.STRONG.GPU"), Op::kRedAddF32x4);
  EXPECT_EQ(an::match_global_atomic("REDG.E.ADD.F64x2.STRONG.GPU"), std::nullopt);
  EXPECT_EQ(an::match_global_atomic("ATOMS.ADD"), std::nullopt);
  EXPECT_EQ(an::match_global_atomic("REDUX.SUM"), std::nullopt);
  EXPECT_EQ(an::match_global_atomic(""), std::nullopt);
}

TEST(SassAtomics, FixtureKernels) {
  const auto functions = an::parse_sass_listing(fixture("sass_fatbin_sm80_sm90.sass"));
  const an::SassAtomics naive = an::classify_atomics(sm90(functions, kNaiveGlobal));
  EXPECT_EQ(naive.global_ops.at(GlobalAtomicOp::kRedAddU32), 5);
  EXPECT_EQ(naive.dominant_global, GlobalAtomicOp::kRedAddU32);
  EXPECT_EQ(naive.shared_variant, std::nullopt);
  EXPECT_FALSE(naive.cas_in_loop);

  const an::SassAtomics block = an::classify_atomics(sm90(functions, kBlockPrivate));
  EXPECT_EQ(block.shared_popc_inc, 1);
  EXPECT_EQ(block.shared_variant, OpVariant::kPopcInc);
  EXPECT_EQ(block.dominant_global, GlobalAtomicOp::kRedAddU32);

  const an::SassAtomics float_add = an::classify_atomics(sm90(functions, "_Z16float_add_sharedPfPKfi"));
  EXPECT_EQ(float_add.shared_cast_spin, 1);
  EXPECT_EQ(float_add.shared_lane_bytes, std::nullopt);
  EXPECT_EQ(block.shared_lane_bytes, 4);
  EXPECT_TRUE(float_add.has_shared_cas());
  EXPECT_EQ(float_add.shared_variant, std::nullopt);  // no non-CAS shared atomic
  EXPECT_TRUE(float_add.cas_in_loop);
  EXPECT_EQ(float_add.dominant_global, GlobalAtomicOp::kRedAddF32);

  // The 64-bit CAS in the retry loop wins over the ATOMG.ADD and the 64-bit RED outside it.
  const an::SassAtomics cas_max = an::classify_atomics(sm90(functions, "_Z14cas_max_doublePdPKdi"));
  EXPECT_EQ(cas_max.global_ops.size(), 3u);
  EXPECT_EQ(cas_max.dominant_global, GlobalAtomicOp::kAtomCasU64);
  EXPECT_TRUE(cas_max.cas_in_loop);
  EXPECT_FALSE(cas_max.has_shared_cas());
}

TEST(SassAtomics, DominantOpRule) {
  // No loop: the most frequent; a tie goes to the first in the listing.
  EXPECT_EQ(classify({"REDG.E.MIN.STRONG.GPU desc[UR4][R2.64], R5", "REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R5",
                      "REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R5"})
                .dominant_global,
            GlobalAtomicOp::kRedAddU32);
  EXPECT_EQ(classify({"REDG.E.MAX.STRONG.GPU desc[UR4][R2.64], R5", "ATOMG.E.ADD.STRONG.GPU PT, R3, desc[UR4][R2.64], R5"})
                .dominant_global,
            GlobalAtomicOp::kRedMaxU32);
  // The innermost loop wins over more atomics outside it: 0x20..0x40 nests in 0x10..0x50.
  EXPECT_EQ(classify({"REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R5", "REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R5",
                      "REDG.E.ADD.F32.FTZ.RN.STRONG.GPU desc[UR4][R2.64], R5", "NOP", "@P0 BRA 0x20",
                      "@P1 BRA 0x10", "EXIT"})
                .dominant_global,
            GlobalAtomicOp::kRedAddF32);
  EXPECT_EQ(classify({"REDG.E.ADD.F32x4.FTZ.RN.STRONG.GPU desc[UR4][R2.64], R8"}).dominant_global,
            GlobalAtomicOp::kRedAddF32x4);
  EXPECT_EQ(classify({"REDG.E.ADD.F64x2.STRONG.GPU desc[UR4][R2.64], R8"}).other_global, 1);
  // A stand-in names the opcode it stands for, unless the kernel also issues the op itself.
  const an::SassAtomics xor_only = classify({"REDG.E.XOR.STRONG.GPU desc[UR4][R2.64], R5"});
  EXPECT_EQ(xor_only.dominant_global, GlobalAtomicOp::kRedOrU32);
  EXPECT_EQ(xor_only.dominant_global_stands_in_for, "REDG.E.XOR.STRONG.GPU");
  const an::SassAtomics with_or =
      classify({"REDG.E.XOR.STRONG.GPU desc[UR4][R2.64], R5", "REDG.E.OR.STRONG.GPU desc[UR4][R2.64], R5"});
  EXPECT_EQ(with_or.dominant_global, GlobalAtomicOp::kRedOrU32);
  EXPECT_EQ(with_or.dominant_global_stands_in_for, "");
}

TEST(SassAtomics, SharedVariantRule) {
  EXPECT_EQ(classify({"ATOMS.POPC.INC.32 RZ, [R3+URZ]"}).shared_variant, OpVariant::kPopcInc);
  EXPECT_EQ(classify({"ATOMS.POPC.INC.32 RZ, [R3+URZ]", "ATOMS.ADD R6, [R4], R13"}).shared_variant, OpVariant::kAdd);
  EXPECT_EQ(classify({"ATOMS.POPC.INC.32 RZ, [R3+URZ]", "ATOMS.CAS R0, [R1], R2, R3"}).shared_variant,
            OpVariant::kPopcInc);
  EXPECT_EQ(classify({"ATOMS.EXCH R0, [R1], R2"}).shared_variant, OpVariant::kAdd);
  EXPECT_EQ(classify({"ATOMS.CAS R0, [R1], R2, R3"}).shared_variant, std::nullopt);
  EXPECT_FALSE(classify({"ATOMS.CAS R0, [R1], R2, R3"}).cas_in_loop);  // no backward branch
  EXPECT_FALSE(classify({"LDS R0, [R1]", "EXIT"}).any());
}

// The lane width that turns the data-bytes counter into e: one width, no CAS loop.
TEST(SassAtomics, SharedLaneBytes) {
  EXPECT_EQ(classify({"ATOMS.POPC.INC.32 RZ, [R3+URZ]"}).shared_lane_bytes, 4);
  EXPECT_EQ(classify({"ATOMS.ADD R6, [R4], R13", "ATOMS.CAS R0, [R1], R2, R3"}).shared_lane_bytes, 4);
  EXPECT_EQ(classify({"ATOMS.CAS.64 R0, [R1], R2, R4"}).shared_lane_bytes, 8);
  EXPECT_EQ(classify({"ATOMS.ADD R6, [R4], R13", "ATOMS.CAS.64 R0, [R1], R2, R4"}).shared_lane_bytes, std::nullopt);
  EXPECT_EQ(classify({"ATOMS.CAST.SPIN P0, [R3], R5, R6"}).shared_lane_bytes, std::nullopt);
  EXPECT_EQ(classify({"ATOMS.ADD R6, [R4], R13", "ATOMS.CAST.SPIN P0, [R3], R5, R6"}).shared_lane_bytes,
            std::nullopt);
  EXPECT_EQ(classify({"REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R5"}).shared_lane_bytes, std::nullopt);
}

TEST(SassHints, FillsOnlyUnsetHintsByDemangledName) {
  const auto functions = an::parse_sass_listing(fixture("sass_fatbin_sm80_sm90.sass"));
  std::vector<atomq::model::KernelProfile> profiles(4);
  profiles[0].kernel_name = "void atomq::histogram::kernels::hist_naive_global_kernel<unsigned int>"
                            "(atomq::histogram::kernels::HistArgs)";
  profiles[1].kernel_name = kBlockPrivate;  // a mangled name matches too
  profiles[1].shared_atomic_variant = OpVariant::kAdd;  // already set: kept
  profiles[2].kernel_name = "kernel_loaded_at_run_time(float*)";
  profiles[3].kernel_name = profiles[0].kernel_name;
  for (auto& p : profiles) {
    p.device.compute_capability_major = 9;
    p.device.compute_capability_minor = 0;
  }
  const an::SassHintSummary s = an::fill_hints(profiles, functions);
  EXPECT_EQ(s.kernels, 3);
  EXPECT_EQ(s.kernels_in_binary, 2);
  EXPECT_EQ(s.kernels_hinted, 2);
  EXPECT_EQ(profiles[0].global_atomic_op, GlobalAtomicOp::kRedAddU32);
  EXPECT_EQ(profiles[0].shared_atomic_variant, std::nullopt);
  EXPECT_EQ(profiles[1].shared_atomic_variant, OpVariant::kAdd);
  EXPECT_EQ(profiles[1].global_atomic_op, GlobalAtomicOp::kRedAddU32);
  EXPECT_FALSE(profiles[2].global_atomic_op || profiles[2].shared_atomic_variant);
  EXPECT_EQ(profiles[3].global_atomic_op, GlobalAtomicOp::kRedAddU32);
}

TEST(SassHints, MissingBinaryOrToolIsNoFailure) {
  std::vector<atomq::model::KernelProfile> profiles(1);
  profiles[0].kernel_name = "k()";
  an::SassHintSummary s;
  EXPECT_NO_THROW(s = an::fill_hints_from_binary(profiles, "/nonexistent/program"));
  EXPECT_NE(s.status, an::SassDumpStatus::kOk);
  EXPECT_FALSE(s.reason.empty());
  EXPECT_NO_THROW(s = an::fill_hints_from_binary(profiles, ""));
  EXPECT_FALSE(s.reason.empty());
  EXPECT_EQ(an::resolve_program_path("/nonexistent/program"), "");
  EXPECT_EQ(an::resolve_program_path("sh").empty(), false);
}

// dump_sass end to end, with a stand-in cuobjdump first on PATH: what it prints is parsed, a
// failure comes back as a status with the tool's message.
class FakeCuobjdump : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("atomq_fake_cuobjdump_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    old_path_ = std::getenv("PATH") ? std::getenv("PATH") : "";
    setenv("PATH", (dir_.string() + ":" + old_path_).c_str(), 1);
  }
  void TearDown() override {
    setenv("PATH", old_path_.c_str(), 1);
    std::filesystem::remove_all(dir_);
  }
  void install(const std::string& script_body) {
    const std::filesystem::path tool = dir_ / "cuobjdump";
    std::ofstream(tool) << "#!/bin/sh\n" << script_body << "\n";
    std::filesystem::permissions(tool, std::filesystem::perms::owner_all);
  }
  std::filesystem::path dir_;
  std::string old_path_;
};

TEST_F(FakeCuobjdump, ItsListingIsParsed) {
  install(std::string("cat '") + ATOMQ_FIXTURE_DIR + "/sass_fatbin_sm80_sm90.sass'");
  EXPECT_EQ(an::find_cuobjdump(), (dir_ / "cuobjdump").string());
  const an::SassDump dump = an::dump_sass("/bin/sh");  // any existing file: the stand-in ignores it
  ASSERT_EQ(dump.status, an::SassDumpStatus::kOk) << dump.reason;
  EXPECT_EQ(dump.functions.size(), 5u);

  std::vector<atomq::model::KernelProfile> profiles(1);
  profiles[0].kernel_name = "float_add_shared(float*, float const*, int)";
  profiles[0].device.compute_capability_major = 9;
  const an::SassHintSummary s = an::fill_hints_from_binary(profiles, "/bin/sh");
  EXPECT_EQ(s.kernels_hinted, 1);
  EXPECT_EQ(profiles[0].global_atomic_op, GlobalAtomicOp::kRedAddF32);
}

TEST_F(FakeCuobjdump, ItsFailureIsAStatus) {
  install("echo \"cuobjdump info    : File '$2' does not contain device code\"; exit 1");
  const an::SassDump dump = an::dump_sass("/bin/sh");
  EXPECT_EQ(dump.status, an::SassDumpStatus::kFailed);
  EXPECT_NE(dump.reason.find("does not contain device code"), std::string::npos) << dump.reason;
}

// Profiles that know their symbols get a dump of those functions only (`-fun`); when that
// dump finds none of them, the whole binary is dumped instead.
TEST_F(FakeCuobjdump, KnownSymbolsRestrictTheDump) {
  const std::filesystem::path calls = dir_ / "calls";
  install("echo \"$@\" >> '" + calls.string() + "'\ncat '" + std::string(ATOMQ_FIXTURE_DIR) +
          "/sass_fatbin_sm80_sm90.sass'");
  std::vector<atomq::model::KernelProfile> profiles(1);
  profiles[0].kernel_name = "float_add_shared(float*, float const*, int)";
  profiles[0].symbol = "_Z16float_add_sharedPfPKfi";
  profiles[0].device.compute_capability_major = 9;
  EXPECT_EQ(an::fill_hints_from_binary(profiles, "/bin/sh").kernels_hinted, 1);
  std::ifstream in(calls);
  const std::string args((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(args, "-sass -fun _Z16float_add_sharedPfPKfi /bin/sh\n");
}

TEST_F(FakeCuobjdump, RestrictedDumpWithoutTheKernelFallsBackToTheWholeBinary) {
  const std::filesystem::path calls = dir_ / "calls";
  install("echo \"$@\" >> '" + calls.string() + "'\n[ \"$2\" = -fun ] && exit 0\ncat '" +
          std::string(ATOMQ_FIXTURE_DIR) + "/sass_fatbin_sm80_sm90.sass'");
  std::vector<atomq::model::KernelProfile> profiles(1);
  profiles[0].kernel_name = "float_add_shared(float*, float const*, int)";
  profiles[0].symbol = "_Z16float_add_sharedPfPKfi";
  profiles[0].device.compute_capability_major = 9;
  EXPECT_EQ(an::fill_hints_from_binary(profiles, "/bin/sh").kernels_hinted, 1);
  EXPECT_EQ(profiles[0].global_atomic_op, GlobalAtomicOp::kRedAddF32);
  std::ifstream in(calls);
  const std::string args((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(args, "-sass -fun _Z16float_add_sharedPfPKfi /bin/sh\n-sass /bin/sh\n");
}

// `nvdisasm -gi` of sites_app's two_sites (built with -lineinfo): each atomic's call site is
// the outermost frame of its inlining chain, not the toolkit header's line.
TEST(SourceLines, CallSitesFromTheInliningChain) {
  an::NvdisasmLineParser parser({"_Z9two_sitesPjj", "_Z8u64_samePyj"});
  std::istringstream in(fixture("nvdisasm_gi_two_sites.txt"));
  for (std::string line; std::getline(in, line);) parser.add_line(line);
  ASSERT_EQ(parser.functions().size(), 1u);  // the excerpt holds two_sites only
  const auto& lines = parser.functions().at("_Z9two_sitesPjj");
  EXPECT_EQ(lines.at(0xf0), "/src/tests/gpu/targets/sites_app.cu:39");   // ATOMS.POPC.INC.32
  EXPECT_EQ(lines.at(0x110), "/src/tests/gpu/targets/sites_app.cu:40");  // ATOMS.ADD
  EXPECT_EQ(lines.at(0x0), "/src/tests/gpu/targets/sites_app.cu:32");
  an::NvdisasmLineParser other({"_Z8u64_samePyj"});
  std::istringstream again(fixture("nvdisasm_gi_two_sites.txt"));
  for (std::string line; std::getline(again, line);) other.add_line(line);
  EXPECT_TRUE(other.functions().empty());
}

// auto per-instruction runs: only the kernels whose SASS has a shared CAS loop.
TEST(InstructionKernels, AutoPicksCasLoopsAmongTheSlowest) {
  const auto functions = an::parse_sass_listing(fixture("sass_fatbin_sm80_sm90.sass"));
  std::vector<atomq::model::KernelProfile> profiles(3);
  const char* symbols[] = {kNaiveGlobal, "_Z16float_add_sharedPfPKfi", "_Z14cas_max_doublePdPKdi"};
  for (int i = 0; i < 3; ++i) {
    profiles[i].symbol = symbols[i];
    profiles[i].kernel_name = symbols[i];
    profiles[i].device.compute_capability_major = 9;
    profiles[i].counters[atomq::model::metric::kGlobalRedInst] = 1;
    profiles[i].counters[atomq::model::metric::kDurationNs] = 100.0 * (3 - i);
  }
  EXPECT_EQ(an::kernels_for_instructions(profiles, 3, std::nullopt),
            (std::vector<std::string>{symbols[0], symbols[1], symbols[2]}));
  EXPECT_EQ(an::kernels_for_instructions(profiles, 1, std::nullopt), (std::vector<std::string>{symbols[0]}));
  // float_add_shared's CAST.SPIN loop and cas_max_double's global CAS loop are suspects (both
  // give attempts per update only per instruction); naive_global has no CAS.
  EXPECT_EQ(an::kernels_for_instructions(profiles, 3, std::nullopt, true, functions),
            (std::vector<std::string>{symbols[1], symbols[2]}));
  EXPECT_EQ(an::kernels_for_instructions(profiles, 3, an::KernelFilter("regex:cas_max")), (std::vector<std::string>{symbols[2]}));
}

namespace {

// `lanes` -1: every lane of every execution on.
atomq::model::InstructionRecord record(long long offset, const std::string& opcode, double executions,
                                       double lanes = -1) {
  atomq::model::InstructionRecord r;
  r.offset = offset;
  r.opcode = opcode;
  r.executions = executions;
  r.lanes = lanes < 0 ? 32 * executions : lanes;
  return r;
}

}  // namespace

// PyTorch's half scatter-add (H200 listing, 2026-12-02): a global CAS loop on a path that never
// runs beside the ATOM.E.ADD.F16x2 pair that does. The listing's loop rule picks the CAS; the
// executed instructions pick the half-pair add.
TEST(SassAtomics, ExecutedInstructionsChooseTheGlobalOp) {
  atomq::model::InstructionProfile ip;
  ip.has_listing = true;
  ip.records = {record(6928, "ATOM.E.CAS.STRONG.GPU", 0), record(7040, "ATOM.E.ADD.F16x2.RN.STRONG.GPU", 60720),
                record(7184, "ATOMS.CAST.SPIN", 0), record(7344, "ATOM.E.ADD.F16x2.RN.STRONG.GPU", 60720),
                record(7400, "FADD", 121440)};
  const auto executed = an::executed_global_op(ip);
  ASSERT_TRUE(executed.has_value());
  EXPECT_EQ(executed->op, GlobalAtomicOp::kAtomAddF16x2);
  EXPECT_TRUE(executed->stands_in_for.empty());
  EXPECT_DOUBLE_EQ(executed->executions, 121440);

  atomq::model::KernelProfile p;
  p.kernel_name = "k";
  p.global_atomic_op = GlobalAtomicOp::kAtomCasU32;  // the loop rule's pick
  p.instructions = ip;
  EXPECT_TRUE(an::global_op_from_executions(p));
  EXPECT_EQ(p.global_atomic_op, GlobalAtomicOp::kAtomAddF16x2);
  EXPECT_FALSE(an::global_op_from_executions(p));  // already so

  // Without the listing the records' opcodes are not this build's: the hint stays.
  p.global_atomic_op = GlobalAtomicOp::kAtomCasU32;
  p.instructions->has_listing = false;
  EXPECT_FALSE(an::global_op_from_executions(p));
  EXPECT_EQ(p.global_atomic_op, GlobalAtomicOp::kAtomCasU32);
}

TEST(SassAtomics, ExecutedStandInAndNoneExecuted) {
  atomq::model::InstructionProfile ip;
  ip.has_listing = true;
  ip.records = {record(16, "REDG.E.XOR.STRONG.GPU", 500), record(32, "REDG.E.ADD.STRONG.GPU", 100),
                record(48, "REDG.E.AND.STRONG.GPU", 200)};
  auto executed = an::executed_global_op(ip);
  ASSERT_TRUE(executed.has_value());
  EXPECT_EQ(executed->op, GlobalAtomicOp::kRedOrU32);  // XOR and AND stand in as the or: 700 > 100
  EXPECT_EQ(executed->stands_in_for, "REDG.E.XOR.STRONG.GPU");
  ip.records = {record(16, "REDG.E.OR.STRONG.GPU", 1), record(32, "REDG.E.XOR.STRONG.GPU", 5)};
  executed = an::executed_global_op(ip);
  ASSERT_TRUE(executed.has_value());
  EXPECT_TRUE(executed->stands_in_for.empty());  // one executed instruction is exactly the op
  ip.records = {record(16, "REDG.E.ADD.F32.FTZ.RN.STRONG.GPU", 0), record(32, "ATOMS.ADD", 9)};
  EXPECT_FALSE(an::executed_global_op(ip).has_value());
  // A predicated CAS issued with every lane off does not count, however often it issued.
  ip.records = {record(16, "ATOM.E.CAS.STRONG.GPU", 900, 0), record(32, "ATOM.E.ADD.F16x2.RN.STRONG.GPU", 100)};
  executed = an::executed_global_op(ip);
  ASSERT_TRUE(executed.has_value());
  EXPECT_EQ(executed->op, GlobalAtomicOp::kAtomAddF16x2);
}

// ptxas's warp aggregation of a warp-uniform atomicAdd: a vote of the active lanes, its
// population count, one elected lane's atomic (as held_out_queues.cu's frontier push compiles).
TEST(SassAtomics, WarpAggregatedGlobalAtomic) {
  const an::SassAtomics elected = classify({"VOTEU.ANY UR4, UPT, PT", "FLO.U32 R0, UR4", "POPC R11, UR4",
                                            "@P1 ATOMG.E.ADD.STRONG.GPU PT, R7, desc[UR6][R6.64], R11",
                                            "SHFL.IDX PT, R9, R7, R0, 0x1f"});
  EXPECT_EQ(elected.global_matched(), 1);
  EXPECT_EQ(elected.global_warp_aggregated, 1);
  // Every lane's own atomic: no vote, or a vote whose atomic every lane still issues.
  EXPECT_EQ(classify({"@P0 REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R5"}).global_warp_aggregated, 0);
  EXPECT_EQ(classify({"VOTEU.ANY UR4, UPT, PT", "UPOPC UR5, UR4", "REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R5"})
                .global_warp_aggregated,
            0);
  EXPECT_EQ(classify({"VOTE.ANY R3, PT, P0", "@P0 REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R5"}).global_warp_aggregated,
            0);
}

// A warp reduction before the elected lane's atomic aggregates too; a vote that belongs to an
// earlier atomic does not carry over to the next one.
TEST(SassAtomics, WarpAggregationByReductionAndPerAtomic) {
  EXPECT_EQ(classify({"REDUX.SUM.S32 UR5, R4", "@P0 REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R5"}).global_warp_aggregated,
            1);
  const an::SassAtomics two = classify({"VOTEU.ANY UR4, UPT, PT", "POPC R11, UR4",
                                        "@P1 ATOMG.E.ADD.STRONG.GPU PT, R7, desc[UR6][R6.64], R11",
                                        "@P2 REDG.E.ADD.STRONG.GPU desc[UR4][R8.64], R5"});
  EXPECT_EQ(two.global_matched(), 2);
  EXPECT_EQ(two.global_warp_aggregated, 1);
  EXPECT_FALSE(two.every_global_warp_aggregated());
  EXPECT_FALSE(two.has_global_exchange());
  EXPECT_TRUE(classify({"ATOMG.E.EXCH.STRONG.GPU PT, R3, desc[UR4][R2.64], RZ"}).has_global_exchange());
}
