#!/usr/bin/env bash
# Builds the standalone GPU harness with plain nvcc (no TensorFlow, no Bazel)
# and runs it: correctness against the CPU math, then GB/s against a copy.
#
#   tools/gpu_harness/run.sh                 # build for this machine's GPU and run
#   tools/gpu_harness/run.sh --compile-only  # build only (CI, no GPU needed)
#
# NVCC (default: $CUDA_TOOLKIT_PATH/bin/nvcc, /usr/local/cuda/bin/nvcc, nvcc on
# PATH) and HARNESS_ARCH (default: native when running, sm_75 when only
# compiling) can be set. The binary goes to ${HARNESS_OUT:-/tmp}/bilinear_harness.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"

compile_only=false
case "${1:-}" in
  --compile-only) compile_only=true ;;
  "") ;;
  *) echo "usage: $0 [--compile-only]" >&2; exit 2 ;;
esac

nvcc="${NVCC:-}"
for candidate in "${CUDA_TOOLKIT_PATH:-}/bin/nvcc" /usr/local/cuda/bin/nvcc; do
  if [[ -z "$nvcc" && -x "$candidate" ]]; then nvcc="$candidate"; fi
done
nvcc="${nvcc:-$(command -v nvcc || true)}"
if [[ -z "$nvcc" ]]; then echo "run.sh: no nvcc found" >&2; exit 1; fi

arch="${HARNESS_ARCH:-$($compile_only && echo sm_75 || echo native)}"
binary="${HARNESS_OUT:-/tmp}/bilinear_harness"
start=$(date +%s)
# -fmad=false and -ffp-contract=off: the same rounding as the op's kernels.
"$nvcc" -std=c++17 -O3 -arch="$arch" -fmad=false -Xcompiler=-ffp-contract=off \
  -I"$root" "$root/tools/gpu_harness/bilinear_harness.cu" -o "$binary"
echo "run.sh: built $binary for $arch with $("$nvcc" --version | grep -o 'release [0-9.]*') in $(( $(date +%s) - start )) s"
if $compile_only; then exit 0; fi
"$binary"
