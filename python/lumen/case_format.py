"""A golden case folder's case.txt (format: tmp/models/README.md), read in one place for every tool.

    case = read_case("tmp/models/resnet18")
    inputs = case.input_arrays()           # float32 numpy arrays in PyTorch's layout
    atol, rtol = case.tolerance

Needs only numpy, so the tools without the compiled module (scripts/) can load it by path.
"""
import pathlib

import numpy as np


class CaseError(Exception):
    """A case folder that cannot be read."""


class Case:
    """What case.txt says: data files as (path, shape), the tolerance and the weights file."""

    def __init__(self, folder):
        self.folder = pathlib.Path(folder)
        self.inputs = []    # [(path, shape)]
        self.outputs = []   # [(path, shape)]
        self.tolerance = None  # (atol, rtol)
        self.weights = self.folder / "model.pnnx.bin"

    def input_arrays(self):
        """The inputs as float32 numpy arrays."""
        return read_arrays(self.inputs)

    def output_arrays(self):
        """PyTorch's outputs as float32 numpy arrays."""
        return read_arrays(self.outputs)


def read_arrays(files):
    """Raw little-endian float32 files [(path, shape)] as numpy arrays."""
    return [np.fromfile(path, dtype="<f4").reshape(shape) for path, shape in files]


def read_case(folder):
    """Reads folder/case.txt; raises CaseError naming the file and line when it is malformed."""
    case = Case(folder)
    description = case.folder / "case.txt"
    if not description.is_file():
        raise CaseError(f"{case.folder}: no case.txt (see tmp/models/README.md for the case format)")
    for number, line in enumerate(description.read_text().splitlines(), 1):
        words = line.split()
        if not words:
            continue
        try:
            if words[0] in ("input", "output"):
                # "1,3,224,224", or "()" for a rank-0 tensor (one value).
                extents = words[2].strip("()")
                shape = tuple(int(extent) for extent in extents.split(",")) if extents else ()
                files = case.inputs if words[0] == "input" else case.outputs
                files.append((case.folder / words[1], shape))
            elif words[0] == "tolerance":
                case.tolerance = (float(words[1]), float(words[2]))
            elif words[0] == "bin":
                case.weights = (case.folder / words[1]).resolve()
        except (IndexError, ValueError) as error:
            raise CaseError(f"{description}:{number}: {error}") from error
    if not case.inputs or case.tolerance is None:
        raise CaseError(f"{description}: needs input and tolerance lines")
    return case
