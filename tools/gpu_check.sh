#!/usr/bin/env bash
# The GPU checks and every GPU benchmark in one command, for a session that has a GPU for a few minutes:
#
#     bash tools/gpu_check.sh [OUT_DIR]          # OUT_DIR: default $OUT, else benchmarks/results
#
# Steps, each under its own time limit (about 8 minutes in all), each run even when one before failed:
#   tests         tests/device/cuda on the GPU, as `make test-gpu` runs it, the simulator forced off
#   gpu_kernels   benchmarks/gpu_kernels_bench.py  -> OUT_DIR/gpu_kernels.json
#   gpu_matmul    benchmarks/gpu_matmul_bench.py   -> OUT_DIR/gpu_matmul.json
#   gpu_training  benchmarks/gpu.py                -> OUT_DIR/gpu_training.json
# Everything printed also goes to OUT_DIR/gpu_check.log, the tests' report to OUT_DIR/gpu_tests.xml, and a
# summary (each step's verdict and seconds) ends the output; the exit status is the number of failed steps
# (1 at once where numba sees no GPU).
# Python packages the machine lacks (the debugger tests' jsonschema, graphviz) travel as wheels in .whl/
# (ignored by git: carry it) and are installed into /tmp/site first. PYTHON picks the interpreter.
set -u
cd "$(dirname "$0")/.."
out=${1:-${OUT:-benchmarks/results}}
mkdir -p "$out"
log=$out/gpu_check.log
: >"$log"
py=${PYTHON:-python3}
export PYTHONUNBUFFERED=1
unset NUMBA_ENABLE_CUDASIM    # the benchmarks measure the GPU itself
summary=()
failed=0

step() {  # step NAME SECONDS COMMAND...: run it under a time limit, printing to the screen and the log
    local name=$1 limit=$2 start=$SECONDS verdict=ok
    shift 2
    echo "=== $name (limit ${limit}s): $*" | tee -a "$log"
    timeout --kill-after=10 "$limit" "$@" 2>&1 | tee -a "$log"
    local rc=${PIPESTATUS[0]}
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then verdict="TIMED OUT"; elif [ "$rc" != 0 ]; then verdict="FAILED ($rc)"; fi
    [ "$verdict" = ok ] || failed=$((failed + 1))
    summary+=("$(printf '%-13s %-12s %4d s' "$name" "$verdict" $((SECONDS - start)))")
}

if ls .whl/*.whl >/dev/null 2>&1; then
    $py -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
        && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
nvidia-smi -L 2>&1 | tee -a "$log"
$py -c 'import sys, numba, torch; from numba import cuda
print("python", sys.version.split()[0], "| numba", numba.__version__, "| torch", torch.__version__,
      "| numba sees a GPU:", cuda.is_available(), "| torch sees one:", torch.cuda.is_available())
sys.exit(0 if cuda.is_available() else 1)' 2>&1 | tee -a "$log"
if [ "${PIPESTATUS[0]}" != 0 ]; then
    echo "no GPU that numba sees here (or the probe above failed): nothing to check" | tee -a "$log"
    exit 1
fi

# a test that hangs fails alone, where pytest-timeout is installed
per_test=$($py -c 'import pytest_timeout' 2>/dev/null && echo "--timeout=120")
step tests 240 env NUMBA_ENABLE_CUDASIM=0 $py -m pytest -q -p no:cacheprovider --continue-on-collection-errors \
    $per_test --junitxml="$out/gpu_tests.xml" tests/device/cuda
step gpu_kernels 45 $py benchmarks/gpu_kernels_bench.py "$out/gpu_kernels.json"
step gpu_matmul 60 $py benchmarks/gpu_matmul_bench.py "$out/gpu_matmul.json"
step gpu_training 150 $py benchmarks/gpu.py --rounds 3 --json "$out/gpu_training.json"

echo "=== summary (results in $out)" | tee -a "$log"
printf '%s\n' "${summary[@]}" | tee -a "$log"
exit "$failed"
