"""Hatchling build hook: compile ``torch._C`` with CMake + Ninja and put it into the wheel.

Regular wheels get every built ``.so`` at ``torch/<file name>``. Editable installs get a
symlink ``src/torch/<file name>`` -> the build tree instead, so ``cmake --build <build dir>``
followed by a Python restart picks up C++ changes (needs ``--no-build-isolation``).
Extra CMake arguments come from ``$CMAKE_ARGS``.
"""

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CMakeBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version, build_data):
        import pybind11
        import scipy_openblas32

        root = Path(self.root)
        build = root / "build" / sysconfig.get_config_var("SOABI")
        extra = os.environ.get("CMAKE_ARGS", "")
        if extra:  # e.g. a sanitizer build: its own tree, so the normal one is not rebuilt
            build = build.with_name(
                build.name + "-" + hashlib.sha256(extra.encode()).hexdigest()[:8]
            )
        stage = build / "stage"
        openblas = Path(scipy_openblas32.get_lib_dir()).glob("cmake/*/OpenBLASConfig.cmake")
        tools = {
            "cmake": shutil.which("cmake"),
            "ninja": shutil.which("ninja"),
            "python": sys.executable,
            "pybind11": pybind11.get_cmake_dir(),
            "openblas": str(next(openblas).parent),
        }
        if not tools["cmake"] or not tools["ninja"]:
            raise RuntimeError(f"torch-core needs cmake and ninja on PATH, found {tools}")
        # A build dir configured by another (since deleted) isolated build env points at its
        # tools: reconfigure from scratch whenever they change.
        stamp = build / "tools.json"
        fresh = not stamp.exists() or json.loads(stamp.read_text()) != tools
        args = [
            "-GNinja",
            f"-DCMAKE_MAKE_PROGRAM={tools['ninja']}",
            f"-DPython_EXECUTABLE={sys.executable}",
            f"-Dpybind11_DIR={tools['pybind11']}",
            f"-DOpenBLAS_DIR={tools['openblas']}",
            f"-DTORCH_VERSION={self.metadata.version}",
            "-DCMAKE_BUILD_TYPE=Release",
            "-DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF",  # LTO defers codegen past ccache
        ]
        if shutil.which("ccache"):
            args.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
        args += shlex.split(extra)
        env = {"CCACHE_BASEDIR": str(root), **os.environ}

        def cmake(*argv):
            subprocess.run([tools["cmake"], *map(str, argv)], check=True, env=env)

        cmake(*(["--fresh"] if fresh else []), "-S", root, "-B", build, *args)
        stamp.write_text(json.dumps(tools))
        cmake("--build", build, "-j", os.cpu_count() or 1)
        shutil.rmtree(stage, ignore_errors=True)
        cmake("--install", build, "--prefix", stage)

        for so in sorted(stage.rglob("*.so")):
            if version == "editable":
                link = root / "src" / "torch" / so.name
                link.unlink(missing_ok=True)
                link.symlink_to(build / so.name if (build / so.name).exists() else so)
            else:
                build_data["force_include"][str(so)] = f"torch/{so.name}"
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
