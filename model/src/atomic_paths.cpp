#include "atomq/model/atomic_paths.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "atomq/model/kernel_profile.hpp"
#include "atomq/model/metric_names.hpp"
#include "atomq/model/sass_opcode.hpp"

namespace atomq::model {

namespace {

// A vector of 32- or 64-bit elements (F32x2, F32x4, U32x4, F64x2...); F16x2 and BF16x2 are one
// packed 32-bit word, which the L2 serves as one lane's word (atom.add.f16x2 is calibrated).
bool is_vector_type(const std::string& type) {
  return type.size() > 2 && type[type.size() - 2] == 'x' && type != "F16x2" && type != "BF16x2";
}

}  // namespace

std::optional<AtomicPath> sass_atomic_path(const std::string& opcode) {
  const SassOpcode p = parse_sass_opcode(opcode);
  const std::string& base = p.base;
  if (base == "ATOMS") return AtomicPath::kSharedUnit;
  if (base == "REDG" || base == "ATOMG") return is_vector_type(p.type) ? AtomicPath::kVectorL2 : AtomicPath::kL2;
  if (base == "ATOM" || base == "RED") return is_vector_type(p.type) ? AtomicPath::kVectorL2 : AtomicPath::kGeneric;
  if (base == "REDAS") return AtomicPath::kDsmem;
  if (base == "UBLKRED" || base == "UTMAREDG" || base == "UTMARED") return AtomicPath::kBulkReduction;
  return std::nullopt;
}

AtomicPath resolve_generic_path(const KernelProfile& profile, bool reduction) {
  const bool dsmem = profile.counter_or_zero(metric::kDsmemAtomRequests) > 0;
  const bool global =
      profile.counter_or_zero(reduction ? metric::kL1GlobalRedRequests : metric::kL1GlobalAtomRequests) > 0;
  if (dsmem && !global) return AtomicPath::kDsmem;
  if (global && !dsmem) return AtomicPath::kL2;
  return AtomicPath::kGeneric;
}

std::vector<PathTraffic> unmodelled_path_traffic(const KernelProfile& p, const std::vector<GlobalAtomicOp>& calibrated_ops) {
  std::vector<PathTraffic> out;
  const double dsmem_atom = p.counter_or_zero(metric::kDsmemAtomRequests);
  const double dsmem_redas = p.counter_or_zero(metric::kDsmemRedAsyncRequests);
  if (dsmem_atom + dsmem_redas > 0) {
    PathTraffic t{AtomicPath::kDsmem, dsmem_atom + dsmem_redas, "warp requests", "", false};
    t.text = fmt::format("atomics on a cluster peer's shared memory (DSMEM): {:.3g} warp requests ({:.3g} "
                         "ATOM/RED, {:.3g} red.async)", t.amount, dsmem_atom, dsmem_redas);
    const auto busy = p.counter(metric::kDsmemRequestBusyMax);
    const auto cycles = p.counter(metric::kCyclesActiveMax);
    if (busy && cycles && *cycles > 0)
      t.text += fmt::format("; the busiest SM's DSMEM request path active {:.0f}% of its cycles", 100.0 * *busy / *cycles);
    out.push_back(std::move(t));
  }
  if (const double bulk = p.counter_or_zero(metric::kBulkReductionInst); bulk > 0)
    out.push_back({AtomicPath::kBulkReduction, bulk, "instructions",
                   fmt::format("TMA bulk reductions (cp.reduce.async.bulk): {:.3g} instructions towards the L2, which "
                               "counts them among its reduction requests",
                               bulk),
                   true});
  const auto calibrated = [&](GlobalAtomicOp op) {
    return std::find(calibrated_ops.begin(), calibrated_ops.end(), op) != calibrated_ops.end();
  };
  const bool vector_ops_calibrated = calibrated(GlobalAtomicOp::kRedAddF32x2) && calibrated(GlobalAtomicOp::kRedAddF32x4);
  if (const auto v = p.sass_atomic_paths.find(AtomicPath::kVectorL2);
      v != p.sass_atomic_paths.end() && v->second > 0 && !vector_ops_calibrated)
    out.push_back({AtomicPath::kVectorL2, static_cast<double>(v->second), "instructions in the SASS",
                   fmt::format("vector float atomics (REDG/ATOMG .F32x2/.F32x4): {} in the SASS; the table has "
                               "no cells for red.add.f32x2 and red.add.f32x4 (calibrated before atomq knew them: "
                               "run atomq calibrate)",
                               v->second),
                   true});
  // Host-memory atomics come from the kernel's SMs, beyond the one system-aperture RED a launch
  // makes of its own: multi_kernel_app's no_atomics (no atomic at all) read one on the H200, and
  // the whole-graph profiles of a PyTorch CUDA graph (a global-atomic histogram among the nodes)
  // read a few, which called that graph "host-memory atomics" until the allowance per kernel
  // node was kept (integration.analyze_torch_graph, live).
  const double launches = p.graph && !p.graph->kernels.empty() ? static_cast<double>(p.graph->kernels.size()) : 1.0;
  const double sm_atomics = p.counter_or_zero(metric::kL1GlobalAtomRequests) + p.counter_or_zero(metric::kL1GlobalRedRequests);
  const double host = p.counter_or_zero(metric::kL2HostAtomRequests) + p.counter_or_zero(metric::kL2HostRedRequests);
  if (host > launches && sm_atomics > 0)
    out.push_back({AtomicPath::kHostMemory, host, "L2 requests",
                   fmt::format("atomics on host memory (the L2's system aperture): {:.3g} L2 requests, served "
                               "across the host link",
                               host),
                   true});
  return out;
}

}  // namespace atomq::model
