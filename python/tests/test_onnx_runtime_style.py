"""The Python API as an ONNX Runtime user writes it (issue 27, points 1 and 4): inputs by name,
model.inputs / model.outputs, chosen outputs, dtypes, pathlib paths, __version__, type stubs,
messages in Python's names, extract and profile used too early, and lumen.compare on ONNX models
and bare model files.

    PYTHONPATH=build/python /usr/bin/python3 -m pytest -q python/tests/test_onnx_runtime_style.py
"""
import ast
import pathlib
import re
import threading

import numpy as np
import pytest

import lumen
from lumen import compare
from lumen.case_format import read_case

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = ROOT / "tmp/models"
ONNX = ROOT / "tmp/onnx"


def case_inputs(case_dir):
    return read_case(case_dir).input_arrays()


def test_inputs_by_name_by_position_or_one_array():
    model = lumen.Model(ONNX / "add/model.onnx")
    a, b = case_inputs(MODELS / "add")
    session = model.session(threads=1)
    assert model.input_names == ["in0", "in1"]
    (by_name,) = session.run({"in1": b, "in0": a})  # any order of keys
    (by_position,) = session.run([a, b])
    np.testing.assert_array_equal(by_name, a + b)
    np.testing.assert_array_equal(by_position, by_name)
    (single,) = lumen.Model(ONNX / "relu/model.onnx").session(threads=1).run(a)
    np.testing.assert_array_equal(single, np.maximum(a, 0))


def test_input_names_that_do_not_fit_the_model_are_refused_naming_them():
    session = lumen.Model(ONNX / "add/model.onnx").session(threads=1)
    a, b = case_inputs(MODELS / "add")
    with pytest.raises(lumen.Error, match=r"no input 'x' \(its inputs: 'in0', 'in1'\)"):
        session.run({"in0": a, "in1": b, "x": a})
    with pytest.raises(lumen.Error, match="input 'in1' is missing"):
        session.run({"in0": a})
    with pytest.raises(TypeError, match="input names must be str, got int"):
        session.run({0: a, 1: b})


def test_model_inputs_and_outputs_describe_name_shape_and_dtype():
    # ONNX with dynamic axes: free extents by their dim_param names, as ONNX Runtime shows them.
    model = lumen.Model(ONNX / "add_dynamic_1x4x9x11/model.onnx")
    (first, second) = model.inputs
    assert (first.name, first.shape, first.dtype) == ("in0", ["size0", 4, "size1", "size2"],
                                                      "float32")
    assert second.name == "in1" and first.declared_dtype == "float32"
    (output,) = model.outputs
    assert output.name == "out0" and output.shape == ["out0_axis0", 4, "out0_axis2", "out0_axis3"]
    assert repr(first) == "TensorInfo(name='in0', shape=['size0', 4, 'size1', 'size2'], " \
                          "dtype='float32')"
    # PNNX: the export's shapes, no names.
    pnnx = lumen.Model(MODELS / "chunk3_dim3/model.pnnx.param")
    assert [info.shape for info in pnnx.inputs] == [[1, 4, 9, 11]]
    assert [info.shape for info in pnnx.outputs] == [[1, 4, 9, 4], [1, 4, 9, 4], [1, 4, 9, 3]]
    assert [info.name for info in pnnx.outputs] == pnnx.output_names
    assert isinstance(pnnx.inputs[0], lumen.TensorInfo)


def test_declared_dtype_says_what_the_file_declares_dtype_what_lumen_returns():
    # TopK's indices: int64 in the file, float32 from Lumen (which computes in float32).
    model = lumen.Model(ONNX / "op_topk/model.onnx")
    values, indices = model.outputs
    assert (values.declared_dtype, values.dtype) == ("float32", "float32")
    assert (indices.declared_dtype, indices.dtype) == ("int64", "float32")
    outputs = model.session(threads=1).run(case_inputs(ONNX / "op_topk"))
    assert [output.dtype for output in outputs] == [np.float32, np.float32]


def test_run_returns_only_the_outputs_asked_for_in_their_order():
    model = lumen.Model(MODELS / "chunk3_dim3/model.pnnx.param")
    (x,) = case_inputs(MODELS / "chunk3_dim3")
    session = model.session(threads=1)
    every = session.run(x)
    last, first = model.output_names[2], model.output_names[0]
    chosen = session.run(x, outputs=[last, first])
    assert len(chosen) == 2
    np.testing.assert_array_equal(chosen[0], every[2])
    np.testing.assert_array_equal(chosen[1], every[0])
    with pytest.raises(lumen.Error, match="no operand 'nope'"):
        session.run(x, outputs=["nope"])
    with pytest.raises(TypeError, match="outputs must be None or a list of output names, got str"):
        session.run(x, outputs=last)


def test_run_with_outputs_computes_only_what_they_need():
    # ResNet18 asked for its stem's ReLU: the convolutions after it and the classifier do not run.
    case_dir = MODELS / "resnet18"
    (x,) = case_inputs(case_dir)
    model = lumen.Model(case_dir / "model.pnnx.param", fuse=False)
    session = model.session(threads=1, profile=True)
    (stem,) = session.run(x, outputs=["3"])
    expected = np.fromfile(case_dir / "operands/3.f32", "<f4").reshape(stem.shape)
    np.testing.assert_allclose(stem, expected, atol=1e-4, rtol=1e-4)
    ran = [row["operator"] for row in session.profile() if row["milliseconds"] > 0]
    assert 0 < len(ran) <= 3, ran
    assert not any("nn.Linear" in operator for operator in ran)


def test_other_dtypes_are_a_type_error_naming_the_input_unless_cast():
    session = lumen.Model(ONNX / "add/model.onnx").session(threads=1)
    a, b = case_inputs(MODELS / "add")
    with pytest.raises(TypeError, match=r"input 'in1' has dtype float64; Lumen takes float32"):
        session.run({"in0": a, "in1": b.astype(np.float64)})
    with pytest.raises(TypeError, match=r"input 0 \('in0'\) has dtype int64.*cast=True"):
        session.run([np.ones(a.shape, np.int64), b])
    (cast,) = session.run({"in0": a.astype(np.float64), "in1": np.ones(b.shape, np.int64)},
                          cast=True)
    np.testing.assert_array_equal(cast, a + 1)
    (big_endian,) = session.run([a.astype(">f4"), b])  # float32 still
    np.testing.assert_array_equal(big_endian, a + b)


def test_paths_may_be_pathlib_paths():
    case_dir = MODELS / "resnet18"
    model = lumen.Model(case_dir / "model.pnnx.param", case_dir / "model.pnnx.bin")
    assert model.output_names
    with pytest.raises(TypeError, match="path must be a path"):
        lumen.Model(3)


def test_version_is_cmakes_project_version():
    declared = re.search(r"project\(lumen VERSION ([0-9.]+)",
                         (ROOT / "CMakeLists.txt").read_text()).group(1)
    assert lumen.__version__ == declared


def test_type_stubs_cover_the_whole_module():
    package = pathlib.Path(lumen.__file__).parent
    assert (package / "py.typed").is_file()
    stub = ast.parse((package / "_lumen.pyi").read_text())
    declared = {}
    for node in stub.body:
        if isinstance(node, ast.ClassDef):
            declared[node.name] = {item.name for item in node.body
                                   if isinstance(item, ast.FunctionDef)}
        elif isinstance(node, ast.AnnAssign):
            declared[node.target.id] = set()
        elif isinstance(node, ast.FunctionDef):  # a module-level function (quantize)
            declared[node.name] = set()
    compiled = lumen._lumen
    for name in [name for name in vars(compiled) if not name.startswith("_")]:
        assert name in declared, f"lumen._lumen.{name} is missing from _lumen.pyi"
        value = getattr(compiled, name)
        if isinstance(value, type) and not issubclass(value, Exception):
            for member in [member for member in vars(value) if not member.startswith("_")]:
                assert member in declared[name], f"{name}.{member} is missing from _lumen.pyi"
    assert "__version__" in declared


def test_messages_name_python_methods_not_cpp_ones():
    resnet = MODELS / "resnet18"
    session = lumen.Model(resnet / "model.pnnx.param", fuse=False).session(threads=1)
    session.run(case_inputs(resnet))
    with pytest.raises(lumen.Error) as not_kept:
        session.operand("24")
    message = str(not_kept.value)
    assert "Session.keep_all_operands()" in message and "KeepAllOperands" not in message
    fused = lumen.Model(resnet / "model.pnnx.param").session(threads=1)
    fused.run(case_inputs(resnet))
    with pytest.raises(lumen.Error, match=r"lumen\.Model\(path, fuse=False\)"):
        fused.extract("1")
    with pytest.raises(lumen.Error, match=r"Model\.session\(max_memory_bytes=\.\.\.\)"):
        lumen.Model(resnet / "model.pnnx.param").session(
            threads=1, max_memory_bytes=1 << 20).run(case_inputs(resnet))


def test_extract_before_any_run_is_an_error_not_stale_values():
    session = lumen.Model(MODELS / "relu/model.pnnx.param").session(threads=1)
    with pytest.raises(lumen.Error, match=r"call Session\.run\(inputs\) before Session\.extract"):
        session.extract("1")
    (x,) = case_inputs(MODELS / "relu")
    session.run(x)
    np.testing.assert_array_equal(session.extract("1"), np.maximum(x, 0))


def test_profile_without_profiling_is_an_error_saying_how_to_turn_it_on():
    session = lumen.Model(MODELS / "relu/model.pnnx.param").session(threads=1)
    session.run(case_inputs(MODELS / "relu"))
    with pytest.raises(lumen.Error, match=r"Model\.session\(profile=True\)"):
        session.profile()


def test_extract_releases_the_gil():
    # While one thread is inside extract, the main thread runs Python and finds the session busy:
    # with the GIL held it could not run until extract had returned.
    case_dir = MODELS / "resnet18"
    session = lumen.Model(case_dir / "model.pnnx.param", fuse=False).session(threads=1)
    session.run(case_inputs(case_dir))
    done = threading.Event()

    def worker():
        for _ in range(5):
            session.extract("46")
        done.set()

    thread = threading.Thread(target=worker)
    thread.start()
    refused = 0
    while not done.is_set():
        try:
            session.threads
        except lumen.Error as error:
            assert "running in another thread" in str(error)
            refused += 1
    thread.join()
    assert refused > 0


ADD_MODULE = """
import torch

class Add(torch.nn.Module):
    def forward(self, a, b):
        return a + b

def subtract():
    return Sub()

class Sub(torch.nn.Module):
    def forward(self, a, b):
        return a - b
"""


def test_compare_an_onnx_case_against_its_stored_outputs(tmp_path):
    with open(tmp_path / "report.txt", "w") as report:
        rows, first_outside = compare.compare(ONNX / "resnet18", stream=report)
    text = (tmp_path / "report.txt").read_text()
    assert first_outside is None, text
    compared = [row for row in rows if row[5] is not None]
    assert [row[0] for row in compared] == lumen.Model(ONNX / "resnet18/model.onnx").output_names
    assert "every operand within atol 0.0001" in text


def test_compare_a_bare_onnx_file_with_inputs_and_the_users_module(tmp_path):
    pytest.importorskip("torch")
    (tmp_path / "net.py").write_text(ADD_MODULE)
    a, b = case_inputs(MODELS / "add")
    np.save(tmp_path / "a.npy", a)
    b.tofile(tmp_path / "b.f32")
    inputs = [str(tmp_path / "a.npy"), f"{tmp_path / 'b.f32'}:1,4,9,11"]
    model = ONNX / "add/model.onnx"
    stream = open(tmp_path / "out.txt", "w")
    _, first_outside = compare.compare(model, inputs=inputs, module=f"{tmp_path}/net.py:Add",
                                       stream=stream)
    assert first_outside is None
    _, first_outside = compare.compare(model, inputs=inputs,
                                       module=f"{tmp_path}/net.py:subtract", stream=stream)
    assert first_outside == "out0"
    assert compare.main([str(model), "--input", inputs[0], "--input", inputs[1],
                         "--module", f"{tmp_path}/net.py:Add"]) == 0
    # No reference for a bare ONNX file without a module: a usage error, not a pass.
    assert compare.main([str(model), "--input", inputs[0], "--input", inputs[1]]) == 2


def test_compare_a_bare_pnnx_file_with_a_raw_input(tmp_path, capsys):
    pytest.importorskip("torch")
    case_dir = MODELS / "resnet18"
    (x,) = case_inputs(case_dir)
    x.tofile(tmp_path / "x.f32")
    status = compare.main([str(case_dir / "model.pnnx.param"), "--input",
                           f"{tmp_path / 'x.f32'}:1,3,224,224"])
    out = capsys.readouterr().out
    assert status == 0, out
    # Every operand had a PyTorch value (the op-by-op rebuild), not only the output.
    assert "no PyTorch value" not in out
