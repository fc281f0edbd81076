#!/usr/bin/env bash
# The one command for the GPU machine (no network, no hatchling there): build torch-core's
# extension directly with CMake + Ninja, assemble our torch as a plain tree, then run a smoke
# check, the CUDA tests and benchmarks/gpu.py (ours against the machine's PyTorch).
#
#   bash tools/gpu_check.sh                     # on the GPU machine, from the repo root
#   OUT=/tmp/gpu_out PYTHON=.venv/bin/python REF_PYTHON=/path/to/pytorch/python \
#       bash tools/gpu_check.sh                 # dry run on a CPU machine (CUDA unavailable)
#
# Steps (each logs to $OUT/<step>.log, has a time limit, and a failure does not stop the
# later ones; the exit status is non-zero if any failed): setup, build, assemble, smoke,
# tests_gpu, tests_cpu, bench. $OUT ends up with at most 8 files.
#
# Environment (all optional):
#   PYTHON       interpreter to build for and run ours with (default: python3)
#   REF_PYTHON   interpreter whose plain `import torch` is PyTorch (default: $PYTHON)
#   OUT          where logs go (default: /tmp/gpu_check_out)
#   WORK         scratch folder for the wheels, build tree, our torch and its venv (default /tmp)
#   JOBS         parallel compile jobs (default: nproc)
#   CMAKE_ARGS   extra CMake arguments (as hatch_build.py takes them)
#   KEEP_BUILD=1 reuse $WORK/gpu_build (incremental) instead of building from scratch
#   BUDGET       seconds for the whole script; later steps shrink to fit (default 540)
#   LIMIT_<step> seconds allowed for that step, e.g. LIMIT_build=700 on a 2-core machine
#                (defaults: setup 60, build 300, assemble 60, smoke 60, tests_gpu 150,
#                tests_cpu 60, bench 200; a step also gets no more than BUDGET leaves it)
#   STEPS        which steps to run (default: "setup build assemble smoke tests_gpu tests_cpu bench")
#   PYTEST_ARGS  extra pytest arguments (default: -x -q, plus --timeout 120 with pytest-timeout)
#   BENCH_ARGS   extra benchmarks/gpu.py arguments, e.g. "--only add,matmul"
#   EXPECT_GPU   1: the smoke check fails when CUDA is unavailable (default: 1 iff
#                /dev/nvidia0 exists)
#   CPU_TESTS_HIDE_GPU  1 (default): test_cuda_cpu.py runs with CUDA_VISIBLE_DEVICES= (the
#                answers of a machine without a GPU); 0: with the GPU in view
#
# Ours runs as $WORK/ours-venv/bin/python with PYTHONPATH=$WORK/ours. That venv sees every
# package of $PYTHON's site-packages except torch-named ones (symlinks): our torch/__init__.py
# extends its __path__ over every `torch/` folder on sys.path (pkgutil.extend_path), so with
# PyTorch's site-packages in view a submodule missing from ours would be imported from PyTorch.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
abs_cmd() { # an interpreter's absolute path, symlinks kept (a venv's python is one)
    local p
    p=$(command -v "$1") || { echo "no such interpreter: $1" >&2; exit 2; }
    case "$p" in /*) echo "$p" ;; *) echo "$PWD/$p" ;; esac
}
PY=$(abs_cmd "${PYTHON:-python3}")
REF_PY=$(abs_cmd "${REF_PYTHON:-$PY}")
OUT=${OUT:-/tmp/gpu_check_out}
WORK=${WORK:-/tmp}
JOBS=${JOBS:-$(nproc)}
BUDGET=${BUDGET:-540}
STEPS=${STEPS:-setup build assemble smoke tests_gpu tests_cpu bench}
if [ -z "${EXPECT_GPU:-}" ]; then
    if [ -e /dev/nvidia0 ]; then EXPECT_GPU=1; else EXPECT_GPU=0; fi
fi
SITE=$WORK/gpu_site         # the carried wheels (.whl/), installed with pip --target
BUILD=$WORK/gpu_build       # CMake build tree and install stage
OURS=$WORK/ours             # our torch as a plain tree: $OURS/torch, $OURS/scipy_openblas32
OURS_VENV=$WORK/ours-venv   # interpreter for ours without PyTorch in view
OURS_PY=$OURS_VENV/bin/python
mkdir -p "$OUT" "$WORK"
export ROOT PY REF_PY OUT WORK JOBS SITE BUILD OURS OURS_VENV OURS_PY EXPECT_GPU
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
unset PYTHONPATH

find_tool() { # NAME MODULE_DIR_ATTR: next to $PY, on PATH, or from the pip package of that name
    local bin_dir
    bin_dir=$(dirname "$PY")
    if [ -x "$bin_dir/$1" ]; then
        echo "$bin_dir/$1"
    elif command -v "$1" >/dev/null; then
        command -v "$1"
    else
        "$PY" -c "import os, $1 as m; print(os.path.join(m.$2, '$1'))"
    fi
}

do_setup() {
    echo "repo: $ROOT ($(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'))"
    echo "python: $PY ($("$PY" -V 2>&1)); reference python: $REF_PY"
    echo "cores: $(nproc), jobs: $JOBS; expect a GPU: $EXPECT_GPU"
    command -v nvidia-smi >/dev/null && nvidia-smi -L || echo "nvidia-smi: not here"
    c++ --version | sed -n 1p
    local include
    include=$("$PY" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
    [ -f "$include/Python.h" ] || { echo "no Python.h in $include: cannot build"; return 1; }
    rm -rf "$SITE"
    if compgen -G "$ROOT/.whl/*.whl" >/dev/null; then
        "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
            --target "$SITE" "$ROOT"/.whl/*.whl
        ls "$SITE"
    else
        echo "no .whl/ folder: using $PY's own pybind11 and scipy_openblas32"
        mkdir -p "$SITE"
        local pkg
        for pkg in pybind11 scipy_openblas32; do
            cp -r "$("$PY" -c "import os, $pkg; print(os.path.dirname($pkg.__file__))")" "$SITE/"
        done
    fi
    PYTHONPATH=$SITE "$PY" -c "import pybind11, scipy_openblas32 as o; print('pybind11', \
pybind11.__version__, '/ scipy_openblas32', o.__version__)"
}

do_build() {
    local cmake ninja pybind11_dir openblas_dir version t0 t1 t2
    cmake=$(find_tool cmake CMAKE_BIN_DIR)
    ninja=$(find_tool ninja BIN_DIR)
    echo "cmake: $cmake ($("$cmake" --version | sed -n 1p)); ninja: $ninja ($("$ninja" --version))"
    pybind11_dir=$(PYTHONPATH=$SITE "$PY" -m pybind11 --cmakedir)
    openblas_dir=$(dirname "$(compgen -G "$SITE/scipy_openblas32/lib/cmake/*/OpenBLASConfig.cmake" \
        | sed -n 1p)")
    version=$(sed -n 's/^__version__ = "\(.*\)"/\1/p' "$ROOT/packages/torch-core/src/torch/version.py")
    [ "${KEEP_BUILD:-0}" = 1 ] || rm -rf "$BUILD"
    t0=$(date +%s.%N)
    # What hatch_build.py passes (minus ccache): Release, LTO off, the package's version.
    # shellcheck disable=SC2086
    "$cmake" -S "$ROOT/packages/torch-core" -B "$BUILD" -GNinja \
        -DCMAKE_MAKE_PROGRAM="$ninja" \
        -DPython_EXECUTABLE="$PY" \
        -Dpybind11_DIR="$pybind11_dir" \
        -DOpenBLAS_DIR="$openblas_dir" \
        -DTORCH_VERSION="$version" \
        -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF \
        ${CMAKE_ARGS:-}
    t1=$(date +%s.%N)
    "$cmake" --build "$BUILD" -j "$JOBS"
    t2=$(date +%s.%N)
    rm -rf "$BUILD/stage"
    "$cmake" --install "$BUILD" --prefix "$BUILD/stage" # sets the RPATH $ORIGIN/../scipy_openblas32/lib
    python3_time() { "$PY" -c "print(f'{$2 - $1:.1f}')"; }
    echo "BUILD TIME: configure $(python3_time "$t0" "$t1") s, compile+link $(python3_time "$t1" "$t2") s" \
        "on $JOBS jobs"
}

do_assemble() {
    local pkg so
    rm -rf "$OURS"
    mkdir -p "$OURS"
    cp -r "$ROOT/packages/torch-core/src/torch" "$OURS/torch"
    for pkg in "$ROOT"/packages/*/src/torch; do
        [ "$pkg" = "$ROOT/packages/torch-core/src/torch" ] || cp -r "$pkg/." "$OURS/torch/"
    done
    # an editable install leaves a link to its build tree's _C*.so in src/torch: not ours here
    find "$OURS" \( -name '*.so' -o -name '__pycache__' \) -prune -exec rm -rf {} +
    for so in "$BUILD"/stage/*.so; do cp "$so" "$OURS/torch/"; done
    cp -r "$SITE/scipy_openblas32" "$OURS/"
    ls "$OURS" "$OURS/torch"/_C*.so
    readelf -d "$OURS"/torch/_C*.so 2>/dev/null | grep -E 'RPATH|RUNPATH' || true

    # the venv that runs ours: $PY's site-packages, less anything torch-named, as symlinks
    rm -rf "$OURS_VENV"
    local dst src entry
    if "$PY" -m venv --without-pip "$OURS_VENV"; then
        dst=$("$OURS_PY" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
        for src in $("$PY" -c "import site; print(' '.join(site.getsitepackages()))"); do
            [ -d "$src" ] || continue
            for entry in "$src"/*; do
                case "$(basename "$entry" | tr 'A-Z' 'a-z')" in
                *torch* | scipy_openblas32* | __pycache__) continue ;;
                esac
                [ -e "$dst/$(basename "$entry")" ] || ln -s "$entry" "$dst/"
            done
        done
        # libraries some wheels put in <prefix>/lib (mkl, onednn-cpu-gomp), where ours looks
        for entry in "$("$PY" -c "import sys; print(sys.prefix)")"/lib/*.so*; do
            [ -e "$entry" ] && ln -sf "$entry" "$OURS_VENV/lib/"
        done
        echo "ours venv: $OURS_PY, site-packages $dst ($(ls "$dst" | wc -l) links)"
    else
        echo "WARNING: no venv: ours runs on $PY itself, with PyTorch in view"
        rm -rf "$OURS_VENV"
        mkdir -p "$OURS_VENV/bin"
        printf '#!/bin/sh\nexec "%s" "$@"\n' "$PY" >"$OURS_PY"
        chmod +x "$OURS_PY"
    fi

    # which torch each interpreter imports
    local check='import sys, torch; print(torch.__version__, torch.__file__, list(torch.__path__))'
    echo "ours:      $(PYTHONPATH=$OURS "$OURS_PY" -c "$check")"
    echo "reference: $("$REF_PY" -c "$check")"
    PYTHONPATH=$OURS "$OURS_PY" -c "
import torch
want = '$OURS/torch'
assert torch.__file__.startswith(want + '/'), ('ours is not', want, torch.__file__)
if not all(p.startswith(want) for p in torch.__path__):
    print('WARNING: torch.__path__ reaches another torch:', torch.__path__)
import torch._C; assert torch._C.__file__.startswith(want + '/'), torch._C.__file__
"
    "$REF_PY" -c "
import torch
assert not torch.__file__.startswith('$OURS/'), ('reference imports ours', torch.__file__)
"
    echo "torch.__file__ checks: ok"
}

do_smoke() {
    local code='
import os, sys, time
t0 = time.perf_counter()
import torch
print(f"{sys.argv[1]}: torch {torch.__version__} from {torch.__file__} "
      f"(import {time.perf_counter() - t0:.2f} s)")
t0 = time.perf_counter()
ok = torch.cuda.is_available()
print(f"  torch.cuda.is_available(): {ok} ({time.perf_counter() - t0:.2f} s)")
if not ok:
    try:  # ours says why (torch.cuda._load returns the reason)
        print(f"  why: {torch.cuda._load()}")
    except Exception:
        pass
    if os.environ["EXPECT_GPU"] == "1":
        sys.exit("  FAILED: this machine has a GPU but torch.cuda.is_available() is False")
    print("  no GPU here: nothing more to check")
    sys.exit(0)
for name, args in (("device_count", ()), ("get_device_name", (0,)),
                   ("get_device_capability", (0,)), ("mem_get_info", (0,))):
    try:
        print(f"  torch.cuda.{name}{args}: {getattr(torch.cuda, name)(*args)}")
    except Exception as e:
        print(f"  torch.cuda.{name}{args}: {type(e).__name__}: {e}")
a = torch.tensor([1.0, 2.0, 3.0, 4.0]).to("cuda")
b = torch.tensor([10.0, 20.0, 30.0, 40.0]).to("cuda")
torch.cuda.synchronize()
t0 = time.perf_counter()
c = a + b
torch.cuda.synchronize()
dt = time.perf_counter() - t0
print(f"  first CUDA add: {c.device} {c.cpu().tolist()} ({dt * 1e3:.1f} ms)")
assert c.cpu().tolist() == [11.0, 22.0, 33.0, 44.0], c.cpu().tolist()
x = torch.rand(1 << 20)
y = (x.to("cuda") + x.to("cuda")).cpu()
assert torch.equal(y, x + x), "1M-element CUDA add differs from the CPU result"
print("  1M-element add matches the CPU: ok")
'
    local rc=0
    PYTHONPATH=$OURS "$OURS_PY" -c "$code" ours || rc=1
    "$REF_PY" -c "$code" reference || rc=1
    return $rc
}

pytest_args() {
    if [ -n "${PYTEST_ARGS:-}" ]; then
        echo "$PYTEST_ARGS"
    elif PYTHONPATH=$OURS "$OURS_PY" -c "import pytest_timeout" 2>/dev/null; then
        echo "-x -q --timeout 120"
    else
        echo "-x -q"
    fi
}

do_tests_gpu() {
    local rc=0
    # shellcheck disable=SC2046
    PYTHONPATH=$OURS "$OURS_PY" -m pytest -p no:cacheprovider $(pytest_args) \
        packages/torch-core/tests/test_cuda_gpu*.py packages/torch-jit/tests/test_jit_cuda_gpu.py ||
        rc=$?
    if [ "$rc" = 5 ] && [ "$EXPECT_GPU" = 0 ]; then
        echo "no GPU here: the module skipped itself, as it should (pytest exit 5 taken as ok)"
        rc=0
    fi
    return $rc
}

do_tests_cpu() {
    # the answers of a machine without a GPU: the GPU hidden (the driver still loads),
    # unless CPU_TESTS_HIDE_GPU=0
    if [ "${CPU_TESTS_HIDE_GPU:-1}" = 1 ]; then export CUDA_VISIBLE_DEVICES=; fi
    # shellcheck disable=SC2046
    PYTHONPATH=$OURS "$OURS_PY" -m pytest -p no:cacheprovider $(pytest_args) \
        packages/torch-core/tests/test_cuda_cpu.py
}

do_bench() {
    # the runner itself imports no torch; each case runs in its own process of each side
    # shellcheck disable=SC2086
    "$REF_PY" benchmarks/gpu.py --ours-python "$OURS_PY" --ours-path "$OURS" \
        --ref-python "$REF_PY" --budget "$BENCH_BUDGET" --json "$OUT/bench.json" \
        --markdown "$OUT/bench.md" ${BENCH_ARGS:-}
}
export -f find_tool do_setup do_build do_assemble do_smoke pytest_args do_tests_gpu \
    do_tests_cpu do_bench

# name, log file, time cap (s): each step gets its cap or what is left of BUDGET
declare -A LOG=([setup]=build [build]=build [assemble]=build [smoke]=smoke
    [tests_gpu]=tests_gpu [tests_cpu]=tests_cpu [bench]=bench)
declare -A CAP=([setup]=60 [build]=300 [assemble]=60 [smoke]=60 [tests_gpu]=150
    [tests_cpu]=60 [bench]=200)
# Time kept back for the later steps; none before the build, which everything needs (a
# squeezed build once left a GPU visit with nothing to run).
declare -A RESERVE=([setup]=0 [build]=0 [assemble]=0 [smoke]=180 [tests_gpu]=150
    [tests_cpu]=150 [bench]=0)
START=$SECONDS
FAILED=()
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
rm -f "$OUT"/{build,smoke,tests_gpu,tests_cpu,bench}.log "$OUT"/bench.{md,json}
for step in $STEPS; do
    log=$OUT/${LOG[$step]}.log
    left=$((BUDGET - (SECONDS - START)))
    cap=${CAP[$step]}
    override=LIMIT_$step
    cap=${!override:-$cap}
    limit=$((left - ${RESERVE[$step]}))
    if ((limit > cap)); then limit=$cap; fi
    if ((limit < 20)); then # squeezed by the reserve: take at most 20 s of it
        limit=$((left - 5 < 20 ? left - 5 : 20))
        if ((limit > cap)); then limit=$cap; fi
    fi
    if ((limit < 5)); then
        line="$step: SKIPPED (out of time: ${left}s left of BUDGET=$BUDGET)"
        FAILED+=("$step")
    else
        export BENCH_BUDGET=$((limit - 10))
        echo "=== $step (limit ${limit}s, log ${LOG[$step]}.log) ==="
        echo "=== $step: $(date -u +%H:%M:%S) limit ${limit}s" >>"$log"
        t0=$SECONDS
        set +e
        timeout -k 10 "$limit" bash -c "set -euo pipefail; do_$step" >>"$log" 2>&1
        rc=$?
        set -e
        dt=$((SECONDS - t0))
        if [ "$rc" = 0 ]; then status=ok; else
            status="FAILED (exit $rc)"
            if [ "$rc" = 124 ]; then status="FAILED (timed out: exit 124)"; fi
            FAILED+=("$step")
        fi
        line="$step: $status in ${dt}s"
        case $step in tests_*) # pytest's count line
            counts=$(grep -E '(passed|failed|error|skipped|no tests ran).* in [0-9.]+s' "$log" |
                sed -n '$p' | tr -d '=' | sed 's/^ *//;s/ *$//')
            line="$line${counts:+ ($counts)}"
            ;;
        esac
        echo "=== $step: $status in ${dt}s" >>"$log"
        if [ "$step" = bench ] && [ -f "$OUT/bench.md" ]; then
            tail -n 3 "$log"
        else
            tail -n 12 "$log" | cut -c1-300
        fi
    fi
    echo "$line" | tee -a "$SUMMARY"
done

echo
echo "=== benchmark (benchmarks/gpu.py) ==="
cat "$OUT/bench.md" 2>/dev/null || echo "(no table)"
echo
grep -h 'BUILD TIME' "$OUT/build.log" 2>/dev/null | tail -n 1 >>"$SUMMARY" || true
echo "total $((SECONDS - START))s; logs in $OUT: $(ls "$OUT" | tr '\n' ' ')" >>"$SUMMARY"
echo "=== summary"
cat "$SUMMARY"
if [ ${#FAILED[@]} -gt 0 ]; then
    echo "FAILED steps: ${FAILED[*]}" | tee -a "$SUMMARY"
    exit 1
fi
echo "all steps passed" | tee -a "$SUMMARY"
