#!/usr/bin/env bash
# Builds the libFuzzer target over the TensorFlow-free bilinear math with clang
# (AddressSanitizer + UndefinedBehaviorSanitizer + libFuzzer) and runs it.
# Arguments go to libFuzzer, e.g. for an hour with a fixed seed:
#   tools/fuzz_bilinear_math.sh -max_total_time=3600 -seed=1
# Needs Debian's clang package (apt-get install clang); findings are written
# to /tmp/bilinear_math_fuzz/crash-*, the corpus is kept in .../corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
work=/tmp/bilinear_math_fuzz
mkdir -p "$work/corpus"
clang++ -std=c++17 -O1 -g -ffp-contract=off \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -I. \
    tensorflow_ops/my_bilinear/cc/tests/bilinear_math_fuzzer.cc -o "$work/fuzzer"
exec "$work/fuzzer" "$work/corpus" -artifact_prefix="$work/" -print_final_stats=1 "$@"
