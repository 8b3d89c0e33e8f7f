# The model library's sources: read by this folder's CMakeLists.txt and by the fuzz build
# (tests/fuzz/CMakeLists.txt), which compiles them with its own flags.
set(atomq_model_sources
  src/kernel_profile.cpp
  src/rules.cpp
  src/wavefronts.cpp
  src/service_fit.cpp
  src/service_time.cpp
  src/inputs.cpp
  src/analysis.cpp
  src/findings.cpp
  src/l2_inputs.cpp
  src/l2_queue.cpp
  src/l2_findings.cpp
  src/l2_what_if.cpp
  src/l2_cas_what_if.cpp
  src/what_if.cpp
  src/gain_interval.cpp
  src/comparison.cpp
  src/analysis_json.cpp
  src/atomic_sites.cpp
  src/cas_retry.cpp
  src/units_in_sequence.cpp
  src/warp_copies_what_if.cpp
  src/kernel_time.cpp
  src/table_selection.cpp)
