// NVTX range selection with ncu's push/pop syntax: which launches --nvtx-include and
// --nvtx-exclude select, by the ranges open on the launching thread (outermost first).
#include "atomq/analyzer/nvtx_filter.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace atomq::analyzer {
namespace {

const std::vector<std::string> kHistc = {"train_step", "forward", "aten::histc, seq = 12"};
const std::vector<std::string> kMatmul = {"train_step", "forward", "aten::mm, seq = 3"};

TEST(NvtxRangePattern, ARangeIsMatchedWhereverItIsOpen) {
  EXPECT_TRUE(NvtxRangePattern("train_step/").matches(kHistc));
  EXPECT_TRUE(NvtxRangePattern("forward/").matches(kHistc));
  EXPECT_FALSE(NvtxRangePattern("backward/").matches(kHistc));
  EXPECT_FALSE(NvtxRangePattern("forward/").matches({}));
}

TEST(NvtxRangePattern, NestedRangesAreDirectlyInsideOneAnother) {
  EXPECT_TRUE(NvtxRangePattern("train_step/forward/").matches(kHistc));
  EXPECT_FALSE(NvtxRangePattern("forward/train_step/").matches(kHistc));
  EXPECT_FALSE(NvtxRangePattern("train_step/aten::histc, seq = 12/").matches(kHistc));  // not directly inside
  EXPECT_TRUE(NvtxRangePattern("train_step/*/aten::histc, seq = 12/").matches(kHistc));
}

TEST(NvtxRangePattern, RegexNamesAreSearched) {
  const NvtxRangePattern histc("regex:aten::histc/");
  EXPECT_TRUE(histc.matches(kHistc));
  EXPECT_FALSE(histc.matches(kMatmul));
  EXPECT_TRUE(NvtxRangePattern("regex:^forward$/^aten::(histc|mm)/").matches(kMatmul));
  EXPECT_FALSE(NvtxRangePattern("aten::histc/").matches(kHistc)) << "a plain name is the whole name";
}

TEST(NvtxRangePattern, WhatItCannotSelectIsRefusedNamingTheSpec) {
  for (const char* spec : {"forward", "", "regex:", "dom@forward/", "a//b/", "regex:(/"}) {
    try {
      NvtxRangePattern p(spec);
      ADD_FAILURE() << "accepted " << spec;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("\"") + spec + "\""), std::string::npos) << e.what();
    }
  }
}

TEST(NvtxFilter, IncludesAreAlternativesAndExcludesWin) {
  EXPECT_TRUE(NvtxFilter().selects(kHistc));
  EXPECT_TRUE(NvtxFilter().selects({}));
  const NvtxFilter ops({"regex:aten::histc/", "regex:aten::mm/"}, {});
  EXPECT_TRUE(ops.selects(kHistc));
  EXPECT_TRUE(ops.selects(kMatmul));
  EXPECT_FALSE(ops.selects({"train_step"}));
  EXPECT_FALSE(ops.selects({})) << "a launch outside every range is not included";
  const NvtxFilter no_mm({}, {"regex:aten::mm/"});
  EXPECT_TRUE(no_mm.selects(kHistc));
  EXPECT_FALSE(no_mm.selects(kMatmul));
  EXPECT_TRUE(no_mm.selects({}));
  EXPECT_FALSE(NvtxFilter({"train_step/"}, {"regex:mm/"}).selects(kMatmul));
}

}  // namespace
}  // namespace atomq::analyzer
