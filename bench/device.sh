#!/usr/bin/env bash
# The GPU figures of the README, in one run on the device machine:
#   bash bench/device-prepare.sh          (here, once)
#   run: command `bash bench/device.sh`, carry [".gl", ".device"], timeout_s 420
# wgpu's matMul 1024/2048/4096, the elementwise chain on 2^24 floats, dispatch overhead per
# tiny op and readback latency (bench/../crates/wgpu/examples/gpu_bench.rs), beside PyTorch's
# float32 matmul on the same GPU (bench/torch_matmul.py). Output: $OUT/gpu-figures.txt.
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
if ! ls /usr/share/vulkan/icd.d/ /etc/vulkan/icd.d/ 2>/dev/null | grep -qi nvidia; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
XDG_RUNTIME_DIR=$(mktemp -d)
export XDG_RUNTIME_DIR
out=${OUT:-.}/gpu-figures.txt
{
  date -u
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  timeout 300 ./.device/gpu_bench 1024,2048,4096 24
  timeout 90 python3 bench/torch_matmul.py 1024,2048,4096
} 2>&1 | tee "$out"
