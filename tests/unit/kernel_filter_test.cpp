// The kernel name filter with ncu's --kernel-name semantics (kernel_filter.hpp).
#include "atomq/analyzer/kernel_filter.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace atomq::analyzer {
namespace {

TEST(KernelFilter, FunctionNameDropsReturnTypeScopeTemplateArgumentsAndParameters) {
  EXPECT_EQ(kernel_function_name("add_conflict32(unsigned int*)"), "add_conflict32");
  EXPECT_EQ(kernel_function_name("void ns::inner::scale<float, 4>(float*, int)"), "scale");
  EXPECT_EQ(kernel_function_name("void hist<(Mode)1>(const unsigned char*, unsigned int*)"), "hist");
  EXPECT_EQ(kernel_function_name("plain"), "plain");
}

TEST(KernelFilter, NameMatchesWholeNamesOnly) {
  const KernelFilter f("scale");
  EXPECT_TRUE(f.matches("_ZN2ns5scaleIfEEvPf", "void ns::scale<float>(float*)"));
  EXPECT_FALSE(f.matches("_Z8rescalePf", "rescale(float*)"));
  EXPECT_TRUE(KernelFilter("_Z8rescalePf").matches("_Z8rescalePf", "rescale(float*)"));
  EXPECT_TRUE(KernelFilter("rescale(float*)").matches("_Z8rescalePf", "rescale(float*)"));
}

TEST(KernelFilter, RegexSearchesMangledAndDemangledNames) {
  EXPECT_TRUE(KernelFilter("regex:scale").matches("_Z8rescalePf", "rescale(float*)"));
  EXPECT_TRUE(KernelFilter("regex:^_Z8").matches("_Z8rescalePf", "rescale(float*)"));
  EXPECT_FALSE(KernelFilter("regex:^scale").matches("_Z8rescalePf", "rescale(float*)"));
}

TEST(KernelFilter, RefusesEmptyAndInvalidSpecsNamingThem) {
  EXPECT_THROW(KernelFilter(""), std::invalid_argument);
  EXPECT_THROW(KernelFilter("regex:"), std::invalid_argument);
  try {
    KernelFilter("regex:(");
    FAIL() << "an invalid regex is refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("regex:("), std::string::npos) << e.what();
  }
}

// std::regex recursed once per character and overflowed the stack (SIGSEGV) on a name of
// about 30 KB; long C++ template names reach that. RE2 matches in linear time, no recursion.
TEST(KernelFilter, RegexOnAOneMegabyteNameNeitherCrashesNorMisses) {
  const std::string name = "void k<" + std::string(1 << 20, 'a') + ">(int*)";
  EXPECT_TRUE(KernelFilter("regex:(a|b)*>").matches("_Z1kv", name));
  EXPECT_TRUE(KernelFilter("regex:^void k<(a)+>\\(int\\*\\)$").matches("_Z1kv", name));
  EXPECT_FALSE(KernelFilter("regex:(a|b)*c").matches("_Z1kv", name));
  EXPECT_TRUE(KernelFilter("regex:.*a.*a.*>").matches("_Z1kv", name));
}

// Today's syntax where RE2 has it; what RE2 lacks is refused with its reason, never ignored.
TEST(KernelFilter, RegexSyntaxRe2LacksIsRefusedWithTheReason) {
  EXPECT_TRUE(KernelFilter("regex:\\d+[[:alpha:]]\\w*").matches("_Z8rescalePf", ""));
  EXPECT_TRUE(KernelFilter("regex:^(scale|rescale)\\(").matches("_Z8rescalePf", "rescale(float*)"));
  for (const char* spec : {"regex:(a)\\1", "regex:a(?=b)", "regex:(?<!a)b"}) {
    try {
      KernelFilter f(spec);
      ADD_FAILURE() << spec << " is accepted";
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(spec), std::string::npos) << what;
      EXPECT_NE(what.find("RE2"), std::string::npos) << what;
    }
  }
  // Too large a program: the NFA RE2 falls back to is linear in the name times the program.
  try {
    KernelFilter f("regex:.*.{1000}1");
    ADD_FAILURE() << "a 2006-instruction program is accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("too large (2006 RE2 instructions, at most 200"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(KernelFilter("regex:.*.{90}1"));
  // Bytes, as before: a name that is not UTF-8 is searched, not refused.
  EXPECT_TRUE(KernelFilter("regex:k.x").matches("", "k\xff" "x"));
}

}  // namespace
}  // namespace atomq::analyzer
