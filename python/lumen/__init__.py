"""Lumen from Python: load a PNNX or ONNX export once, run it in sessions, numpy in and out.

    import lumen
    model = lumen.Model("resnet18.pnnx.param")      # weights: the .bin beside it (or a .onnx)
    print(model.inputs)                             # [TensorInfo(name='0', shape=[1, 3, 224, 224],
                                                    #   dtype='float32')]
    session = model.session(threads=2)
    (logits,) = session.run(image)                  # float32 numpy, PyTorch's layout
    (logits,) = session.run({"0": image}, outputs=["49"])  # inputs by name, chosen outputs
    stem = session.extract("2")                     # any operand (load with fuse=False
                                                    # to read the ones fusion removes)
    lumen.quantize("resnet18.pnnx.param", samples, "resnet18_int8")   # int8, calibrated on
                                                    # samples (each as run takes its inputs)

Errors are raised as lumen.Error with Lumen's message (a bad file, a shape a layer refuses, an
unknown name); values of the wrong kind (run given anything but float32 numpy arrays, without
cast=True) as TypeError. `python3 -m lumen.compare CASE_DIR` compares every operand with PyTorch.
"""
from ._lumen import Error, Model, Session, TensorInfo, __version__, quantize

__all__ = ["Error", "Model", "Session", "TensorInfo", "__version__", "quantize"]
