"""Lumen's Python wheel, built offline from Debian's packages: CMake compiles the library and the
module (target lumen_python) and the wheel takes the package CMake assembles in
BUILD/python/lumen, the one `PYTHONPATH=build/python` imports.

    python3 -m pip wheel --no-build-isolation -w build .  # build/lumen-0.2.0-cp311-...whl
    venv/bin/pip install .                                # build and install (README: which venv)
    LUMEN_BUILD_DIR=build python3 -m pip wheel ...        # the module of a configured tree
    LUMEN_CMAKE_ARGS=-DLUMEN_NATIVE=OFF ...               # a wheel for other CPUs than this one

There is deliberately no pyproject.toml: with one, pip (23.0.1, Debian's) builds in an isolated
environment and downloads setuptools and wheel into it, which fails offline. Without it pip runs
this file with the interpreter's own setuptools (python3-setuptools, python3-wheel).
"""
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.dist import Distribution

SOURCE = pathlib.Path(__file__).resolve().parent
# The files of the package, as `cmake --install` selects them (CMakeLists.txt).
PACKAGE_PATTERNS = ("*.py", "*.so", "*.pyi", "py.typed")


def cmake_project_version():
    """The version in CMakeLists.txt's project(): one number for the CMake package, the .deb and
    the wheel."""
    text = (SOURCE / "CMakeLists.txt").read_text()
    match = re.search(r"^project\(lumen VERSION ([0-9.]+)", text, re.MULTILINE)
    if not match:
        sys.exit("setup.py: no `project(lumen VERSION x.y.z` in CMakeLists.txt")
    return match.group(1)


def cmake_build_dir():
    """LUMEN_BUILD_DIR when given (an already configured tree: only lumen_python is built there),
    else build-wheel/ beside build/: at the same depth below the source tree, so that ccache
    (CCACHE_BASEDIR at the source tree) serves build/'s objects to it."""
    given = os.environ.get("LUMEN_BUILD_DIR")
    if given:
        return pathlib.Path(given).resolve(), True
    return SOURCE / "build-wheel", False


def run_with_ccache_settings(command):
    """Runs a CMake command with scripts/ccache_settings.sh's settings, as the other builds do."""
    subprocess.run(["bash", "-c", 'source scripts/ccache_settings.sh "$PWD" && exec "$@"', "bash",
                    *command], cwd=SOURCE, check=True)


class BuildWithCMake(build_ext):
    """Builds the module with CMake, then copies the package it assembled into the wheel."""

    def run(self):
        build_dir, given = cmake_build_dir()
        if not given:
            launcher = ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"] if shutil.which("ccache") else []
            # Only the library and the module: no tests, programs or demos, so no GoogleTest,
            # CLI11 or OpenCV needed. The module is built for the interpreter running this.
            run_with_ccache_settings(
                ["cmake", "-S", ".", "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                 "-DLUMEN_BUILD_TESTS=OFF", "-DLUMEN_BUILD_BENCHMARKS=OFF",
                 "-DLUMEN_BUILD_PROGRAMS=OFF", "-DLUMEN_BUILD_DEMOS=OFF",
                 "-DLUMEN_BUILD_PYTHON=ON", f"-DPython3_EXECUTABLE={sys.executable}", *launcher,
                 *shlex.split(os.environ.get("LUMEN_CMAKE_ARGS", ""))])
        # `--parallel` alone would let make start a job per file: ask for one per core.
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        run_with_ccache_settings(["cmake", "--build", str(build_dir), "--target", "lumen_python",
                                  "--parallel", jobs])

        package = build_dir / "python" / "lumen"
        # A module compiled for another interpreter (a given tree configured with another
        # python3) would install fine and fail at `import lumen`: refuse it here.
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        if not (package / f"_lumen{suffix}").is_file():
            sys.exit(f"setup.py: {package} has no _lumen{suffix} for this interpreter "
                     f"({sys.executable}); configure that tree with -DPython3_EXECUTABLE="
                     f"{sys.executable} or leave LUMEN_BUILD_DIR unset")
        target = pathlib.Path(self.build_lib) / "lumen"
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        for pattern in PACKAGE_PATTERNS:
            for path in package.glob(pattern):
                shutil.copy2(path, target)


class CompiledDistribution(Distribution):
    """The wheel holds a compiled module: tag it for this interpreter and platform
    (cp311-cp311-linux_x86_64), not as pure Python, and run build_ext (BuildWithCMake)."""

    def has_ext_modules(self):
        return True


# setuptools' own scratch (build/lib..., lumen.egg-info) defaults to build/ and the source root:
# keep it inside the CMake tree, away from CMake's build/ and from the repository's top level.
scratch = cmake_build_dir()[0] / "setuptools"
scratch.mkdir(parents=True, exist_ok=True)

setup(
    name="lumen",
    version=cmake_project_version(),
    description="A small CPU inference engine for PyTorch models exported with PNNX or ONNX",
    python_requires=">=3.8",
    # numpy is needed at run time but not declared: `pip wheel` builds a wheel of every
    # requirement, installed or not, and downloading numpy fails offline. Debian's python3-numpy
    # provides it (a venv made with --system-site-packages sees it).
    packages=[],  # the package is CMake's (BuildWithCMake), not found in this tree
    distclass=CompiledDistribution,
    cmdclass={"build_ext": BuildWithCMake},
    options={"build": {"build_base": str(scratch / "build")},
             "egg_info": {"egg_base": str(scratch)}},
    zip_safe=False,
)
