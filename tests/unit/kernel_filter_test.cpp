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

}  // namespace
}  // namespace atomq::analyzer
