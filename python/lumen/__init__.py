"""Lumen from Python: load a PNNX export once, run it in sessions, numpy in and out.

    import lumen
    model = lumen.Model("resnet18.pnnx.param")      # weights: the .bin beside it
    session = model.session(threads=2)
    (logits,) = session.run(image)                  # float32 numpy, PyTorch's layout
    stem = session.extract("2")                     # any operand (load with fuse=False
                                                    # to read the ones fusion removes)

Errors are raised as lumen.Error with Lumen's message (a bad file, a shape a layer refuses);
values of the wrong kind (run given anything but numpy arrays of numbers, or a list of them) as
TypeError. `python3 -m lumen.compare CASE_DIR` compares every operand with PyTorch.
"""
from ._lumen import Error, Model, Session

__all__ = ["Error", "Model", "Session"]
