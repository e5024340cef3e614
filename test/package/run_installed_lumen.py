"""An installed `lumen` (wheel, .deb or `cmake --install`) runs a golden case like PyTorch:

    python3 run_installed_lumen.py CASE_DIR EXPECTED_PACKAGE_DIR

Fails (status 1) when `import lumen` finds the package anywhere but EXPECTED_PACKAGE_DIR (a
build tree's copy on the path would prove nothing about the installed one) or when an output
differs from the case's reference beyond its tolerance. Uses only what the package installs.
"""
import pathlib
import sys

import numpy as np

import lumen
from lumen.case_format import read_case

case_dir = pathlib.Path(sys.argv[1])
expected_package = pathlib.Path(sys.argv[2]).resolve()
imported = pathlib.Path(lumen.__file__).resolve().parent
if imported != expected_package:
    sys.exit(f"lumen imported from {imported}, not from {expected_package}")

case = read_case(case_dir)
atol, rtol = case.tolerance
model = lumen.Model(str(case_dir / "model.pnnx.param"), str(case.weights))
outputs = model.session(threads=2).run(case.input_arrays())
expected = case.output_arrays()
if len(outputs) != len(expected):
    sys.exit(f"{len(outputs)} outputs, the case has {len(expected)}")
for index, (got, want) in enumerate(zip(outputs, expected)):
    if got.shape != want.shape or not np.allclose(got, want, atol=atol, rtol=rtol):
        sys.exit(f"output {index} differs from PyTorch's: shape {got.shape} vs {want.shape}, "
                 f"max |difference| {np.abs(got - want).max() if got.shape == want.shape else '-'}")
    print(f"{case_dir.name} output {index} {want.shape}: max |difference| "
          f"{np.abs(got - want).max():.2e} (atol {atol}, rtol {rtol}), lumen from {imported}")
