set -u
tar -xJf build-gpu-pack/bg.tar.xz
export PATH=$PATH:/usr/local/cuda/bin
CUPTI=$(dirname "$(find /usr/local/cuda*/ -name libnvperf_host.so | head -1)"); export LD_LIBRARY_PATH=$CUPTI:${LD_LIBRARY_PATH:-}
W=/tmp/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $W/gpu.csv 2>&1
cp build-gpu/commit.txt $W/
date -u > $W/date.txt
( time build-gpu/bin/atomq calibrate -o $W/table.json --csv $W/table.csv --no-progress ) > $W/calibrate.log 2>&1
echo "calibrate rc $?"
tar -cf $OUT/part1.tar -C /tmp w
M=gpu__time_duration.sum,sm__cycles_active.avg,smsp__inst_executed_op_global_red.sum,lts__t_requests_op_red.sum,lts__t_requests_op_red.max,lts__cycles_elapsed.max,lts__d_atomic_input_cycles_active.max,l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_red.sum,l1tex__t_set_accesses_pipe_lsu_mem_global_op_red.sum,l1tex__t_set_conflicts_pipe_lsu_mem_global_op_red.sum,l1tex__m_l1tex2xbar_req_cycles_active.avg,l1tex__m_l1tex2xbar_req_cycles_active.max,l1tex__m_l1tex2xbar_req_cycles_stalled.avg,l1tex__cycles_elapsed.avg,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__lsu_writeback_active.avg,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__m_l1tex2xbar_write_sectors_mem_global_op_red.sum,lts__t_sectors_op_red.sum,smsp__sass_sectors_mem_global.sum
PROBE_TIMEOUT=60 tools/ncu_probe.sh build-gpu $W/probe "$M" smooth_pixel_hist:global_atomics smooth_pixel_hist:warp_merged smooth_pixel_hist:no_atomics noisy_pixel_hist:global_atomics coo_spmv:global_atomics label_area:global_atomics
echo "probe rc $?"
tar -cf $OUT/part2.tar -C /tmp w
PROBE_TIMEOUT=60 tools/ncu_probe.sh build-gpu $W/probe_bd "breakdown:l1tex__throughput.avg.pct_of_peak_sustained_elapsed,breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed" smooth_pixel_hist:global_atomics noisy_pixel_hist:global_atomics smooth_pixel_hist:no_atomics
echo "breakdown rc $?"
tar -cf $OUT/part3.tar -C /tmp w
rm -f $OUT/part1.tar $OUT/part2.tar
grep -i "word\|L2 sweep\|wall\|real" $W/calibrate.log | tail -50
