#!/usr/bin/env bash
# The whole GPU check of a borrowed machine in one go, under 8 minutes, with
# nothing but this repository and a stock CUDA toolkit:
#   1. the GPU, its driver and compute capability (nvidia-smi), nvcc's CUDA;
#   2. the harness (bilinear_harness.cu) built for that GPU and run, its table
#      written to $OUT/device_check.md;
#   3. the harness again under compute-sanitizer memcheck, with --quick;
#   4. my_bilinear_gpu_test with MY_BILINEAR_REQUIRE_GPU=1 (a skip fails),
#      where TensorFlow's GPU build imports and bazel-bin holds a
#      my_bilinear_op.so built with --config=cuda; otherwise it says why not.
# All output also goes to $OUT/device_check.log, and each step's verdict ends
# $OUT/device_check.md. OUT defaults to a new temporary folder; PYTHON (default
# .venv/bin/python, else python3) is the Python with TensorFlow. Exits 1 if a
# step that ran failed or ran out of time.
#
#   tools/gpu_harness/device_check.sh
#   OUT=/tmp/check tools/gpu_harness/device_check.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/device_check.XXXXXX")}"
mkdir -p "$OUT"
log="$OUT/device_check.log"
table="$OUT/device_check.md"
build="$(mktemp -d "${TMPDIR:-/tmp}/device_check_build.XXXXXX")"  # not in $OUT: MBs
binary="$build/bilinear_harness"

budget_s=450  # all steps together: 8 minutes less the kill grace and the start
started=$SECONDS
failures=0
verdicts=()

# step NAME SECONDS COMMAND...: runs COMMAND under timeout, for SECONDS or what
# is left of the budget, and records its verdict.
step() {
  local name="$1" limit="$2"
  shift 2
  local left=$((budget_s - (SECONDS - started)))
  if ((limit > left)); then limit=$left; fi
  if ((limit < 5)); then
    echo "== $name: not run, the ${budget_s} s budget is spent"
    verdicts+=("$name: NOT RUN (time budget spent)")
    failures=$((failures + 1))
    return 0
  fi
  echo "== $name (at most ${limit} s)"
  local begin=$SECONDS status=0 verdict
  timeout --kill-after=10 "$limit" "$@" || status=$?
  if ((status == 0)); then
    verdict="ok"
  elif ((status == 124 || status == 137)); then
    verdict="TIMED OUT after ${limit} s"
  else
    verdict="FAILED (exit $status)"
  fi
  if ((status != 0)); then failures=$((failures + 1)); fi
  echo "== $name: $verdict in $((SECONDS - begin)) s"
  verdicts+=("$name: $verdict, $((SECONDS - begin)) s")
  return 0
}

# A step that could not run here, and why: not a failure.
not_run() {
  echo "== $1: not run: $2"
  verdicts+=("$1: not run: $2")
}

find_nvcc() {
  local candidate
  for candidate in "${NVCC:-}" "${CUDA_TOOLKIT_PATH:-}/bin/nvcc" /usr/local/cuda/bin/nvcc \
    "$(command -v nvcc || true)"; do
    if [[ -n "$candidate" && -x "$candidate" ]]; then
      echo "$candidate"
      return 0
    fi
  done
  return 0
}

find_sanitizer() {
  local toolkit candidate
  toolkit="$(dirname "$(dirname "$nvcc")")"
  for candidate in "$(command -v compute-sanitizer || true)" "$toolkit/bin/compute-sanitizer" \
    "$toolkit/compute-sanitizer/compute-sanitizer"; do
    if [[ -n "$candidate" && -x "$candidate" ]]; then
      echo "$candidate"
      return 0
    fi
  done
  return 0
}

# Runs my_bilinear_gpu_test where it can test the op's GPU kernels.
op_gpu_test() {
  local library=bazel-bin/tensorflow_ops/my_bilinear/my_bilinear_op.so
  local test_file=tensorflow_ops/my_bilinear/python/tests/my_bilinear_gpu_test.py
  local python="${PYTHON:-}"
  if [[ -z "$python" ]]; then
    if [[ -x .venv/bin/python ]]; then python=.venv/bin/python; else python=python3; fi
  fi
  if [[ ! -f "$library" ]]; then
    not_run "my_bilinear_gpu_test" "no $library (build it: python3 configure.py --cuda && bazel build :my_bilinear_op.so)"
    return 0
  fi
  if ! grep -aqF .nv_fatbin "$library"; then
    not_run "my_bilinear_gpu_test" "$library has no CUDA device code (built without --config=cuda)"
    return 0
  fi
  local left=$((budget_s - (SECONDS - started)))
  if ((left < 20)); then
    echo "== my_bilinear_gpu_test: not run, the ${budget_s} s budget is spent"
    verdicts+=("my_bilinear_gpu_test: NOT RUN (time budget spent)")
    failures=$((failures + 1))
    return 0
  fi
  local probe status=0
  probe="$(timeout $((left < 60 ? left : 60)) "$python" -c '
import sys
import tensorflow as tf
print(tf.__version__, "with CUDA" if tf.test.is_built_with_cuda() else "CPU-only")
sys.exit(0 if tf.test.is_built_with_cuda() else 3)' 2>&1 | tail -n 1)" || status=$?
  if ((status != 0)); then
    not_run "my_bilinear_gpu_test" "$python has no TensorFlow GPU build ($probe)"
    return 0
  fi
  echo "TensorFlow: $probe ($python)"
  local runner=("$python" "$test_file")
  if "$python" -c 'import pytest' 2>/dev/null; then
    runner=("$python" -m pytest -q -rs "$test_file")
  fi
  step "my_bilinear_gpu_test" 150 env MY_BILINEAR_REQUIRE_GPU=1 \
    PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" "${runner[@]}"
}

main() {
  echo "device_check: $(date -u +%FT%TZ) in $PWD, output in $OUT"
  local smi="" arch=native gpu
  if command -v nvidia-smi >/dev/null; then
    step "nvidia-smi" 30 nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv
    gpu="$(timeout 15 nvidia-smi --query-gpu=name,driver_version,compute_cap \
      --format=csv,noheader 2>/dev/null | head -n 1 || true)"
    smi="${gpu:-(nvidia-smi answered nothing)}"
    local capability="${gpu##*,}"
    capability="${capability//[ .]/}"
    if [[ "$capability" =~ ^[0-9]+$ ]]; then arch="sm_$capability"; fi
  else
    smi="no nvidia-smi"
    echo "== nvidia-smi: not found; building for -arch=native"
  fi

  nvcc="$(find_nvcc)"
  if [[ -z "$nvcc" ]]; then
    echo "== build: FAILED, no nvcc (set NVCC or CUDA_TOOLKIT_PATH)"
    verdicts+=("build: FAILED (no nvcc)")
    failures=$((failures + 1))
  else
    echo "nvcc: $nvcc, $("$nvcc" --version | grep -o 'release [0-9.]*, V[0-9.]*')"
    step "build for $arch" 240 env NVCC="$nvcc" HARNESS_ARCH="$arch" HARNESS_OUT="$build" \
      tools/gpu_harness/run.sh --compile-only
  fi

  if [[ -x "$binary" ]]; then
    step "harness" 150 "$binary" --table "$table"
    local sanitizer
    sanitizer="$(find_sanitizer)"
    if [[ -n "$sanitizer" ]]; then
      step "compute-sanitizer memcheck, --quick" 180 "$sanitizer" --tool memcheck \
        --error-exitcode 3 --print-limit 20 "$binary" --quick --table "$OUT/memcheck_quick.md"
    else
      not_run "compute-sanitizer memcheck" "no compute-sanitizer beside $nvcc or on PATH"
    fi
  else
    not_run "harness" "it was not built"
    failures=$((failures + 1))
  fi

  op_gpu_test

  # The verdicts under the harness's table (or alone, where it wrote none).
  if [[ ! -f "$table" ]]; then echo "# MyBilinear GPU harness: no table" >"$table"; fi
  {
    echo
    echo "## device_check.sh"
    echo
    echo "- GPU: $smi"
    echo "- nvcc: ${nvcc:-none}"
    printf -- '- %s\n' "${verdicts[@]}"
    echo
    if ((failures == 0)); then echo "**device_check: PASS**"; else
      echo "**device_check: FAIL ($failures)**"; fi
  } >>"$table"
  echo
  printf '%s\n' "${verdicts[@]}"
  echo "device_check: $([[ $failures == 0 ]] && echo PASS || echo "FAIL ($failures)")" \
    "in $((SECONDS - started)) s; table $table, log $log"
  rm -rf "$build"
  ((failures == 0))
}

main "$@" 2>&1 | tee "$log"
exit "${PIPESTATUS[0]}"
