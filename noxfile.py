"""Sessions for the torch monorepo; CI (.ci/run) runs the default ones (`nox.options.sessions`).

torch-core's wheel is compiled once per source state and cached in ``build/wheels/<hash>/``;
every session that needs the core installs that wheel.
"""

import functools
import glob
import hashlib
import os
import shutil
import tempfile
from pathlib import Path

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_venv = "no"
nox.options.sessions = [
    "lint",
    "tests",
    "core_only",
    "legacy_on_core",
    "interop",
    "docs",
    "example",
]

PYTHON = "3.11"
ROOT = Path(__file__).parent
CORE = ROOT / "packages" / "torch-core"
CORE_INPUTS = ["csrc", "src", "third_party", "CMakeLists.txt", "hatch_build.py", "pyproject.toml"]
PURE = [
    f"./packages/torch-{name}"
    for name in (
        "autograd",
        "nn",
        "optim",
        "multiprocessing",
        "legacy",
        "distributions",
        "distributed",
        "jit",
        "all",
    )  # fmt: skip
]
# oracles: scipy, mpmath; NVRTC compile-checks every CUDA kernel source (no GPU needed)
TEST_DEPS = [
    "pytest",
    "pytest-xdist",
    "hypothesis",
    "numpy",
    "scipy",
    "mpmath",
    "nvidia-cuda-nvrtc",
]
# Two pytest workers, each test file on one worker (its tests in order): the suites are mostly
# single-threaded Python, so two workers on two cores take about half the time.
PARALLEL = ["-n", "2", "--dist", "loadfile"]


def session(func):
    """A nox session on PYTHON whose venv is removed once it has run (pass or fail): with
    ``reuse_venv = "no"`` it is rebuilt next time anyway, and a CI machine's disk then holds
    one venv at a time (a torch-all venv is about 1.5 GB with Intel's MKL and oneDNN)."""

    @functools.wraps(func)
    def run(session: nox.Session) -> None:
        try:
            func(session)
        finally:
            shutil.rmtree(session.virtualenv.location, ignore_errors=True)

    return nox.session(python=PYTHON)(run)


def core_wheel(session: nox.Session, cmake_args: str = "") -> str:
    """Path of torch-core's wheel for the current sources, built with the session's Python
    (and extra CMake arguments, e.g. sanitizer flags)."""
    digest = hashlib.sha256(session.python.encode())  # the wheel's ABI tag follows the Python
    digest.update(cmake_args.encode())
    for name in CORE_INPUTS:
        paths = [CORE / name] if (CORE / name).is_file() else sorted((CORE / name).rglob("*"))
        for path in paths:
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".so":
                digest.update(str(path.relative_to(CORE)).encode() + b"\0" + path.read_bytes())
    cache = ROOT / "build" / "wheels" / digest.hexdigest()[:16]
    wheels = sorted(cache.glob("torch_core-*.whl"))
    if not wheels:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = tempfile.mkdtemp(dir=cache.parent)  # then renamed: a cache entry is whole or absent
        env = {"CMAKE_ARGS": cmake_args} if cmake_args else {}
        session.run("python", "-m", "pip", "wheel", "--no-deps", "-w", tmp, str(CORE), env=env)
        os.replace(tmp, cache)
        wheels = sorted(cache.glob("torch_core-*.whl"))
    else:
        session.log(f"reusing {wheels[0].relative_to(ROOT)}")
    return str(wheels[0])


def install_all(session: nox.Session, *extra: str) -> None:
    """Every package in one pip command (so local dependencies resolve among themselves)."""
    session.install(core_wheel(session), *PURE, *extra)


@session
def tests(session: nox.Session) -> None:
    """Build and install every package, then run all packages' tests (the Hogwild example's
    test reads scikit-learn's digits)."""
    install_all(
        session, *TEST_DEPS, "scikit-learn", "tensorboard", "onnx", "onnxruntime", "tabulate"
    )
    session.run("pytest", *PARALLEL, *sorted(glob.glob("packages/*/tests")), *session.posargs)


@session
def core_only(session: nox.Session) -> None:
    """torch-core alone: a NumPy-like library whose missing parts name the package to install."""
    session.install(core_wheel(session), *TEST_DEPS)
    session.run("python", "-c", MISSING_NN_CHECK)
    # the slow tests (the checkpoint fuzzer) already run in the `tests` session
    session.run(
        "pytest", *PARALLEL, "packages/torch-core/tests", "-m", "not slow", *session.posargs
    )


MISSING_NN_CHECK = """
try:
    import torch.nn
except ImportError as e:
    assert "torch-nn" in str(e), f"error does not name torch-nn: {e}"
else:
    raise AssertionError("import torch.nn worked with only torch-core installed")
"""


@session
def legacy_on_core(session: nox.Session) -> None:
    """torch-legacy on top of torch-core only, the install for Lua-Torch ports."""
    session.install(core_wheel(session), "./packages/torch-legacy", *TEST_DEPS)
    session.run("pytest", "packages/torch-legacy/tests", *session.posargs)


@session
def lint(session: nox.Session) -> None:
    """ruff on all Python; clang-format on torch-core's C++."""
    session.install("ruff", "clang-format")
    session.run("ruff", "check", ".")
    cxx = sorted(glob.glob("packages/torch-core/csrc/**/*.[ch]*", recursive=True))
    if cxx:
        session.run("clang-format", "--dry-run", "--Werror", *cxx)


@session
def docs(session: nox.Session) -> None:
    """The Sphinx site (warnings are errors) and its doctests. Both builders share one doctree
    folder: the doctest builder reuses the pages the html build read (with autodoc and the
    tutorials' output) instead of reading them all again, and Sphinx-Gallery runs each tutorial
    once (the second build finds their outputs current)."""
    install_all(session, "sphinx", "sphinx-gallery", "matplotlib", "numpy", "scikit-learn")
    for builder in ("html", "doctest"):
        session.run(
            "sphinx-build",
            "-W",
            "--keep-going",
            "-b",
            builder,
            "-d",
            "docs/_build/doctrees",
            "docs",
            f"docs/_build/{builder}",
            *session.posargs,
        )


@session
def build(session: nox.Session) -> None:
    """A wheel per package into dist/."""
    os.makedirs("dist", exist_ok=True)
    shutil.copy(core_wheel(session), "dist")
    session.run("python", "-m", "pip", "wheel", "--no-deps", "-w", "dist", *PURE)


@session
def example(session: nox.Session) -> None:
    """The README's main job: train the MNIST CNN (examples/mnist) to at least 95% test
    accuracy, then the tensor tour."""
    install_all(session, "numpy", "scikit-learn")
    with tempfile.TemporaryDirectory() as folder:
        model = os.path.join(folder, "mnist_cnn.pt")
        session.run(
            "python",
            "examples/mnist/main.py",
            "--save-model",
            model,
            "--min-accuracy",
            "0.95",
            *session.posargs,
        )
    session.run("python", "examples/tensor_demo.py")


def pytorch_venv(session: nox.Session, *extra: str, ref: Path = ROOT / ".nox" / "bench-ref") -> str:
    """Python of a separate venv with real PyTorch 2.13 (kept in .nox/bench-ref unless another
    folder is given): oracle and peer only."""
    ref_python = ref / "bin" / "python"
    if not ref_python.exists():
        session.run("python", "-m", "venv", str(ref))
    session.run(
        str(ref_python),
        "-m",
        "pip",
        "install",
        "-q",
        "torch==2.13.0",
        "numpy",
        *extra,
        external=True,
    )
    return str(ref_python)


@session
def interop(session: nox.Session) -> None:
    """Checkpoints written by this project load in PyTorch 2.13, values and sharing intact."""
    session.install(core_wheel(session))
    script = str(CORE / "tests" / "checkpoints" / "interop_check.py")
    with tempfile.TemporaryDirectory() as folder:  # PyTorch's venv goes with it (CI's disk)
        ref_python = pytorch_venv(session, ref=Path(folder) / "pytorch")
        session.run("python", script, "write", folder)
        session.run(ref_python, script, "check", folder, external=True)


@session
def bench(session: nox.Session) -> None:
    """Benchmarks under this project and under PyTorch 2.13 (.nox/bench-ref), in one table."""
    install_all(session, "numpy", "scikit-learn")
    ref_python = pytorch_venv(session, "scikit-learn")
    ours = os.path.join(session.bin, "python")
    session.run(
        "python",
        "benchmarks/compare.py",
        "--ours",
        ours,
        "--ref",
        str(ref_python),
        *session.posargs,
    )


@nox.session(python=False)
def gpu(session: nox.Session) -> None:
    """The GPU machine's one check (not in CI's list: CI has no GPU): tools/gpu_check.sh builds
    torch-core with CMake + Ninja into /tmp, runs the CUDA tests and benchmarks/gpu.py against
    the machine's PyTorch, and logs to $OUT. Its environment variables (PYTHON, OUT, STEPS,
    BENCH_ARGS, ...) pass through."""
    session.run("bash", "tools/gpu_check.sh", external=True)


FUZZERS = {  # name -> (script, its count flag); each prints its counts and fails on a finding
    "load": ("packages/torch-core/tests/fuzz/fuzz_load.py", "--inputs"),
    "ops": ("packages/torch-core/tests/fuzz/fuzz_ops.py", "--calls"),
    "t7": ("packages/torch-legacy/tests/fuzz_t7.py", "--inputs"),
}


@session
def fuzz(session: nox.Session) -> None:
    """The long fuzz runs: 100,000 mutated checkpoints, 100,000 bad op calls (exception families
    compared with PyTorch 2.13 from .nox/bench-ref) and 100,000 mutated .t7 files. Pass
    `-- COUNT [SEED]` for other sizes."""
    install_all(session, *TEST_DEPS)
    count = session.posargs[0] if session.posargs else "100000"
    seed = session.posargs[1] if len(session.posargs) > 1 else "0"
    ref_python = pytorch_venv(session)
    for name, (script, flag) in FUZZERS.items():
        extra = ["--ref", ref_python] if name == "ops" else []
        session.run("python", script, flag, count, "--seed", seed, *extra)


SANITIZE_FLAGS = (
    "-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
)


@session
def sanitize(session: nox.Session) -> None:
    """torch-core built with AddressSanitizer and UndefinedBehaviorSanitizer (its own build
    tree and wheel cache), then the core's tests and a short run of each fuzzer under it.
    Any sanitizer report stops the run with an error."""
    cmake_args = (
        f"-DCMAKE_CXX_FLAGS='{SANITIZE_FLAGS}' -DCMAKE_BUILD_TYPE=RelWithDebInfo "
        f"-DCMAKE_SHARED_LINKER_FLAGS='-fsanitize=address,undefined'"
    )
    session.install(core_wheel(session, cmake_args), *PURE, *TEST_DEPS)
    runtime = [
        session.run("gcc", f"-print-file-name={lib}", silent=True, external=True).strip()
        for lib in ("libasan.so", "libubsan.so")
    ]
    env = {
        "LD_PRELOAD": " ".join(runtime),  # the Python binary itself is not instrumented
        # leaks: CPython's own allocations at exit are not ours; a huge request must fail
        # as an exception (the tests ask for 2^47 floats on purpose), not abort
        # (the fuzzers skip their RLIMIT_AS under ASan, whose shadow memory needs the address
        # space: max_allocation_size_mb is the cap instead)
        "ASAN_OPTIONS": "detect_leaks=0:allocator_may_return_null=1:halt_on_error=1:"
        "max_allocation_size_mb=2048",
        "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1",
    }
    session.run("pytest", "packages/torch-core/tests", "-m", "not slow", "-x", "-q",
                *session.posargs, env=env)  # fmt: skip
    for script, flag in FUZZERS.values():
        session.run("python", script, flag, "3000", "--seed", "1", env=env)


@session
def format(session: nox.Session) -> None:
    """Apply what lint checks: ruff's fixes and formatting, clang-format in place."""
    session.install("ruff", "clang-format")
    session.run("ruff", "check", "--fix", ".")
    cxx = sorted(glob.glob("packages/torch-core/csrc/**/*.[ch]*", recursive=True))
    if cxx:
        session.run("clang-format", "-i", *cxx)
