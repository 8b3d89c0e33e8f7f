// The L2 queue's what-ifs (l2_what_if.cpp): each a predicted kernel time with its basis in
// words. Private to the model library.
#pragma once

#include <string>
#include <vector>

#include "atomq/model/analysis.hpp"

namespace atomq::model::detail {

// The kernel already privatizes: it has shared atomics and merges few L2 requests per block.
bool looks_privatized(const KernelAnalysis& a, const KernelProfile& profile, const Rules& r);

// The what-ifs that fit the L2 queue's cause; why one is left out is added to details.
std::vector<WhatIf> l2_what_ifs(const KernelAnalysis& a, const KernelProfile& profile,
                                const ServiceTimeModel& m, const Rules& r, bool privatized,
                                std::vector<std::string>& details);

}  // namespace atomq::model::detail
