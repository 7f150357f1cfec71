#!/usr/bin/env bash
# Builds the standalone GPU harness with plain nvcc (no TensorFlow, no Bazel)
# and runs it: correctness against the CPU math, then GB/s against a copy.
#
#   tools/gpu_harness/run.sh                   # build for this machine's GPU and run
#   tools/gpu_harness/run.sh --compile-only    # build only (CI, no GPU needed)
#   tools/gpu_harness/run.sh --quick --table t.md   # arguments after the
#                                              # options go to the harness
#
# NVCC (default: $CUDA_TOOLKIT_PATH/bin/nvcc, /usr/local/cuda/bin/nvcc, nvcc on
# PATH) and HARNESS_ARCH (default: native when running, sm_75 when only
# compiling) can be set. The binary goes to ${HARNESS_OUT:-/tmp}/bilinear_harness.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"

compile_only=false
harness_args=()
for arg in "$@"; do
  case "$arg" in
    --compile-only) compile_only=true ;;
    -h|--help)
      echo "usage: $0 [--compile-only] [--quick] [--no-benchmark] [--table FILE]" >&2
      exit 0 ;;
    *) harness_args+=("$arg") ;;
  esac
done
if $compile_only && (( ${#harness_args[@]} > 0 )); then
  echo "run.sh: --compile-only runs nothing, so it takes no harness arguments" \
    "(got: ${harness_args[*]})" >&2
  exit 2
fi

nvcc="${NVCC:-}"
for candidate in "${CUDA_TOOLKIT_PATH:-}/bin/nvcc" /usr/local/cuda/bin/nvcc; do
  if [[ -z "$nvcc" && -x "$candidate" ]]; then nvcc="$candidate"; fi
done
nvcc="${nvcc:-$(command -v nvcc || true)}"
if [[ -z "$nvcc" ]]; then echo "run.sh: no nvcc found" >&2; exit 1; fi

arch="${HARNESS_ARCH:-$($compile_only && echo sm_75 || echo native)}"
binary="${HARNESS_OUT:-/tmp}/bilinear_harness"
mkdir -p "$(dirname "$binary")"
start=$(date +%s)
# -fmad=false, -ftz=true and -ffp-contract=off: the same rounding and the same
# denormal flushing as the op's kernels. -diag-suppress=1675: nvcc's front end
# does not know the CPU math's `#pragma GCC unroll`, meant for the host
# compiler. -pthread: the CPU references of the large cases use every core.
"$nvcc" -std=c++17 -O3 -arch="$arch" -fmad=false -ftz=true -Xcompiler=-ffp-contract=off \
  -Xcompiler=-pthread -diag-suppress=1675 -I"$root" \
  "$root/tools/gpu_harness/bilinear_harness.cu" -o "$binary" -lpthread
echo "run.sh: built $binary for $arch with $("$nvcc" --version | grep -o 'release [0-9.]*') in $(( $(date +%s) - start )) s"
if $compile_only; then exit 0; fi
# ${a[@]+...}: an empty array is "unbound" to set -u before bash 4.4.
"$binary" ${harness_args[@]+"${harness_args[@]}"}
