"""Model.summary(): what the model takes, gives and holds, as lumen_run --summary prints it.

    PYTHONPATH=build/python /usr/bin/python3 -m pytest python/tests/test_summary.py
"""
import pathlib

import pytest

import lumen

ROOT = pathlib.Path(__file__).resolve().parents[2]
RESNET = ROOT / "tmp/models/resnet18/model.pnnx.param"
DYNAMIC = ROOT / "tmp/onnx/add_dynamic_1x4x9x11/model.onnx"


def test_summary_of_resnet18_at_its_declared_shape():
    model = lumen.Model(str(RESNET))
    summary = model.summary()
    assert summary["inputs"] == [{"name": model.input_names[0], "shape": [1, 3, 224, 224]}]
    assert summary["outputs"] == [{"name": model.output_names[0], "shape": [1, 1000]}]
    # Every @weight/@bias in model.pnnx.param: torchvision's 11,689,512 parameters less the
    # BatchNorm scales and shifts pnnx folded into the convolutions (9,600), plus their biases.
    assert summary["parameter_count"] == 11689512 - 9600 + 4800
    assert summary["parameter_bytes"] == 4 * summary["parameter_count"]
    assert summary["operators"]["nn.Conv2d"] == 20
    assert sum(summary["operators"].values()) == summary["operator_count"]
    assert summary["planned"] and summary["planning_note"] == ""
    assert 0 < summary["planned_activation_bytes"] < summary["separate_activation_bytes"]
    assert "parameters: 11684712" in summary["text"]


def test_summary_at_other_shapes():
    model = lumen.Model(str(RESNET))
    declared = model.summary()
    batch = model.summary(input_shapes=[[2, 3, 160, 160]])
    assert batch["inputs"][0]["shape"] == [2, 3, 160, 160]
    assert batch["outputs"][0]["shape"] == [2, 1000]
    assert batch["planned_activation_bytes"] != declared["planned_activation_bytes"]


def test_open_extents_are_reported_not_raised():
    model = lumen.Model(str(DYNAMIC))
    summary = model.summary()
    assert summary["inputs"][0]["shape"] == [-1, 4, -1, -1]
    assert not summary["planned"]
    assert summary["outputs"][0]["shape"] is None
    assert summary["planned_activation_bytes"] is None
    assert "in0" in summary["planning_note"]
    given = model.summary([[1, 4, 9, 11], [1, 4, 9, 11]])
    assert given["planned"] and given["outputs"][0]["shape"] == [1, 4, 9, 11]


def test_wrong_input_shapes():
    model = lumen.Model(str(RESNET))
    with pytest.raises(lumen.Error, match="1 input"):
        model.summary([[1, 3, 224, 224], [1, 3, 224, 224]])
    with pytest.raises(TypeError, match="input_shapes"):
        model.summary([[1, -3, 224, 224]])
    with pytest.raises(TypeError, match="input_shapes"):
        model.summary("1,3,224,224")
