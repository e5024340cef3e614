#!/usr/bin/env python3
"""Calibration inputs for lumen_quantize, and a quantised model's accuracy against its fp32 model.

    quantize_accuracy.py calibrate CASE_DIR OUT_DIR [--count 32] [--seed 1]
    quantize_accuracy.py compare CASE_DIR QUANTISED.pnnx.param [--count 32] [--seed 2]

Inputs are drawn from N(0, 1) at the case's input shape, as the corpus' own inputs are (its
case.txt notes "input seed 0"); `compare` uses another seed than `calibrate`, so that it measures
inputs the calibration never saw. It prints the cosine similarity of the two models' outputs
(minimum and mean over the inputs) and how often their arg-max (top-1) agrees:

    cosine min 0.99987 mean 0.99988; top-1 agrees on 32 of 32

Needs the lumen module (PYTHONPATH=build/python) and numpy.
"""
import argparse
import pathlib
import sys

import numpy as np

import lumen
from lumen.case_format import read_case


def samples(case_dir, count, seed):
    """`count` single-input samples at the case's input shape, from N(0, 1) with `seed`."""
    case = read_case(case_dir)
    if len(case.inputs) != 1:
        sys.exit(f"{case_dir}: {len(case.inputs)} inputs; this script feeds one-input models")
    shape = case.inputs[0][1]
    generator = np.random.default_rng(seed)
    return [generator.standard_normal(shape, dtype=np.float32) for _ in range(count)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["calibrate", "compare"])
    parser.add_argument("case_dir", type=pathlib.Path)
    parser.add_argument("target", type=pathlib.Path, help="OUT_DIR (calibrate) or the model")
    parser.add_argument("--count", type=int, default=32)
    parser.add_argument("--seed", type=int, default=None)
    arguments = parser.parse_args()
    if arguments.command == "calibrate":
        arguments.target.mkdir(parents=True, exist_ok=True)
        seed = 1 if arguments.seed is None else arguments.seed
        for i, sample in enumerate(samples(arguments.case_dir, arguments.count, seed)):
            np.save(arguments.target / f"sample{i:03d}.npy", sample)
        return
    seed = 2 if arguments.seed is None else arguments.seed
    exact = lumen.Model(str(arguments.case_dir / "model.pnnx.param")).session(threads=1)
    quantised = lumen.Model(str(arguments.target)).session(threads=1)
    cosines = []
    agree = 0
    inputs = samples(arguments.case_dir, arguments.count, seed)
    for x in inputs:
        a = exact.run(x)[0].ravel().astype(np.float64)
        b = quantised.run(x)[0].ravel().astype(np.float64)
        cosines.append(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
        agree += int(a.argmax() == b.argmax())
    print(f"cosine min {min(cosines):.5f} mean {np.mean(cosines):.5f}; "
          f"top-1 agrees on {agree} of {len(inputs)}")


if __name__ == "__main__":
    main()
