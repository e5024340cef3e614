"""The Python module against PyTorch's stored outputs, and lumen.compare on a planted difference.

    PYTHONPATH=build/python /usr/bin/python3 -m pytest python/tests      (scripts/test.sh runs it)

Cases come from tmp/models (PyTorch's inputs and outputs, see tmp/models/README.md).
"""
import os
import pathlib
import subprocess
import sys
import threading
import zipfile

import numpy as np
import pytest

import lumen
from lumen import compare
from lumen.case_format import read_case

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = ROOT / "tmp/models"


def assert_case_matches(case_name, threads=1, folder=MODELS):
    """Runs a case through the module and checks every output against PyTorch's."""
    case_dir = folder / case_name
    case = read_case(case_dir)
    atol, rtol = case.tolerance
    model = lumen.Model(str(case_dir / "model.pnnx.param"), str(case.weights))
    outputs = model.session(threads=threads).run(case.input_arrays())
    expected = case.output_arrays()
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        assert got.dtype == np.float32 and got.shape == want.shape
        np.testing.assert_allclose(got, want, atol=atol, rtol=rtol)


@pytest.mark.parametrize("case_name", ["resnet18", "matmul_2d", "mha_cross_kdim_vdim",
                                       "lstm_2l_bidir_bf", "yolov5s_detect"])
def test_case_matches_pytorch(case_name):
    assert_case_matches(case_name, threads=2)


@pytest.mark.parametrize("case_name", ["rank0_matmul_dot", "rank0_input", "rank0_max_vector_dim0"])
def test_rank_zero_inputs_and_outputs_are_0d_arrays(case_name):
    # A dot product gives a 0-d array, as in PyTorch; a 0-d array is a valid input.
    assert_case_matches(case_name, folder=ROOT / "test/data/layers")


def test_one_array_or_a_list_of_arrays():
    case_dir = MODELS / "relu"
    inputs = read_case(case_dir).input_arrays()
    session = lumen.Model(str(case_dir / "model.pnnx.param")).session(threads=1)
    (from_array,) = session.run(inputs[0])
    (from_list,) = session.run(inputs)
    (from_tuple,) = session.run(tuple(inputs))
    np.testing.assert_array_equal(from_array, from_list)
    np.testing.assert_array_equal(from_array, from_tuple)
    np.testing.assert_array_equal(from_array, np.maximum(inputs[0], 0))


def test_any_input_size_and_batch():
    # ResNet18 exported at (1,3,224,224) runs at 160x160 and at batch 3 (PyTorch's outputs in
    # tmp/anysize).
    model = lumen.Model(str(MODELS / "resnet18/model.pnnx.param"))
    session = model.session(threads=2)
    for case_name in ["resnet18_160", "resnet18_b3"]:
        case_dir = ROOT / "tmp/anysize" / case_name
        case = read_case(case_dir)
        (got,) = session.run(case.input_arrays())
        atol, rtol = case.tolerance
        np.testing.assert_allclose(got, case.output_arrays()[0], atol=atol, rtol=rtol)


def test_extract_gives_pytorch_intermediate_operands():
    case_dir = MODELS / "resnet18"
    inputs = read_case(case_dir).input_arrays()
    session = lumen.Model(str(case_dir / "model.pnnx.param"), fuse=False).session(threads=1)
    session.run(inputs)
    lines = (case_dir / "operands/index.txt").read_text().split("\n")
    checked = 0
    for line in filter(None, lines):
        name, shape = line.split()
        expected = np.fromfile(case_dir / "operands" / f"{name}.f32", dtype="<f4")
        got = session.extract(name)
        assert got.shape == tuple(int(extent) for extent in shape.split(","))
        np.testing.assert_allclose(got.ravel(), expected, atol=1e-4, rtol=1e-4)
        checked += 1
    assert checked >= 5


ONE_SESSION_TWO_THREADS = """
import sys, threading
import lumen
from lumen.case_format import read_case
case = read_case(sys.argv[1])
session = lumen.Model(sys.argv[1] + "/model.pnnx.param").session(threads=1)
inputs = case.input_arrays()
refused = []

def worker():
    for _ in range(20):
        try:
            session.run(inputs)
        except lumen.Error as error:
            assert "running in another thread" in str(error), error
            refused.append(error)

threads = [threading.Thread(target=worker) for _ in range(2)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print("refused", len(refused))
"""


def test_one_session_in_two_threads_is_refused_not_a_crash():
    # Session.run releases the GIL, so a second thread could enter the same session: that once
    # ended in "double free or corruption" (exit 134). Run in a child so a crash fails the test.
    child = subprocess.run([sys.executable, "-c", ONE_SESSION_TWO_THREADS,
                            str(MODELS / "mobilenet_v3_large_075_160")],
                           capture_output=True, text=True, timeout=300,
                           env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert child.returncode == 0, child.stderr
    assert int(child.stdout.split()[-1]) > 0, "the two threads never overlapped"


def test_sessions_in_threads_agree_with_a_sequential_run():
    case_dir = MODELS / "mobilenet_v3_large_075_160"
    inputs = read_case(case_dir).input_arrays()
    model = lumen.Model(str(case_dir / "model.pnnx.param"))
    (sequential,) = model.session(threads=1).run(inputs)
    results = [None] * 3

    def worker(index):
        session = model.session(threads=1)
        for _ in range(3):
            (results[index],) = session.run(inputs)

    threads = [threading.Thread(target=worker, args=(index,)) for index in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for result in results:
        np.testing.assert_array_equal(result, sequential)


def test_profile_names_every_operator():
    case_dir = MODELS / "resnet18"
    inputs = read_case(case_dir).input_arrays()
    session = lumen.Model(str(case_dir / "model.pnnx.param")).session(threads=1, profile=True)
    session.run(inputs)
    profile = session.profile()
    assert any(row["type"] == "nn.Conv2d" for row in profile)
    assert all(row["milliseconds"] >= 0 for row in profile)
    assert sum(row["milliseconds"] for row in profile) > 0


def test_errors_are_python_exceptions_with_lumens_message(tmp_path):
    with pytest.raises(lumen.Error, match="missing.pnnx.param"):
        lumen.Model(str(tmp_path / "missing.pnnx.param"))
    bad = tmp_path / "bad.pnnx.param"
    bad.write_text("7767517\n1 1\npnnx.Input input 0\n")
    with pytest.raises(lumen.Error, match=r"bad.pnnx.param:3: "):
        lumen.Model(str(bad))
    session = lumen.Model(str(MODELS / "relu/model.pnnx.param")).session(threads=1)
    with pytest.raises(lumen.Error, match="input"):
        session.run([np.zeros((1, 4, 9, 11), np.float32), np.zeros((1,), np.float32)])
    with pytest.raises(lumen.Error, match="no operand|unknown operand|not an operand"):
        session.extract("no such operand")
    assert issubclass(lumen.Error, RuntimeError)


def write_perturbed_weights(source, target, entry, factor):
    """A copy of a .pnnx.bin (stored zip) with one weight tensor multiplied by factor."""
    with zipfile.ZipFile(source) as original, \
            zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as copy:
        for info in original.infolist():
            data = original.read(info)
            if info.filename == entry:
                data = (np.frombuffer(data, dtype="<f4") * factor).astype("<f4").tobytes()
            copy.writestr(info.filename, data)


@pytest.mark.parametrize("case_name,operator", [
    ("mobilenet_v3_large_075_160", "convbn2d_20"),  # PyTorch side: the case's model_pnnx.py
    ("resnet18", "convbn2d_9"),                     # PyTorch side: lumen.torch_graph
])
def test_compare_names_the_layer_whose_weights_were_perturbed(tmp_path, case_name, operator):
    pytest.importorskip("torch")
    case_dir = MODELS / case_name
    _, first_outside = compare.compare(case_dir, stream=open(tmp_path / "clean.txt", "w"))
    assert first_outside is None, (tmp_path / "clean.txt").read_text()

    perturbed = tmp_path / "model.pnnx.bin"
    write_perturbed_weights(case_dir / "model.pnnx.bin", perturbed, f"{operator}.weight", 1.01)
    with open(tmp_path / "planted.txt", "w") as report:
        rows, first_outside = compare.compare(case_dir, weights=perturbed, stream=report)
    text = (tmp_path / "planted.txt").read_text()
    producer = next(row[1] for row in rows if row[0] == first_outside)
    assert f"'{operator}'" in producer, text
    assert "first operand outside" in text and operator in text.splitlines()[-1]


def test_compare_command_line_exit_status(tmp_path, capsys):
    pytest.importorskip("torch")
    assert compare.main([str(MODELS / "relu")]) == 0
    assert "every operand within" in capsys.readouterr().out
    assert compare.main([str(tmp_path)]) == 2
    assert "no case.txt" in capsys.readouterr().err


def test_quantize_writes_a_model_that_loads_and_stays_close(tmp_path):
    """lumen.quantize: int8 from numpy samples (bare arrays and dicts by input name), then bf16;
    the written models load and stay close to the fp32 model; the report lists the layer."""
    param = str(MODELS / "conv_bn/model.pnnx.param")
    generator = np.random.default_rng(0)
    samples = [generator.standard_normal((1, 4, 9, 11), dtype=np.float32) for _ in range(3)]
    name = lumen.Model(param).input_names[0]
    calibration = [samples[0], {name: samples[1]}, [samples[2]]]
    report = lumen.quantize(param, calibration, tmp_path / "int8", method="percentile")
    assert report["param_path"] == str(tmp_path / "int8") + ".pnnx.param"
    assert report["calibration_samples"] == 3
    (layer,) = report["layers"]
    assert layer["type"] == "lumen.QuantizedConv2d" and "convbn2d_0" in layer["description"]
    low, high = layer["input_range"]
    assert low < 0 < high and layer["input_scale"] > 0 and 0 <= layer["input_zero_point"] <= 255
    x = generator.standard_normal((1, 4, 9, 11), dtype=np.float32)
    (exact,) = lumen.Model(param).session(threads=1).run(x)
    (got,) = lumen.Model(report["param_path"]).session(threads=1).run(x)
    assert np.linalg.norm(got - exact) < 0.03 * np.linalg.norm(exact)
    # The least-error range, without bias correction: another scale, the same weights and bias.
    plain = lumen.quantize(param, calibration, tmp_path / "plain", method="mse",
                           bias_correction=False)
    (plain_layer,) = plain["layers"]
    assert plain_layer["input_range"] != layer["input_range"]
    (got,) = lumen.Model(plain["param_path"]).session(threads=1).run(x)
    assert np.linalg.norm(got - exact) < 0.03 * np.linalg.norm(exact)
    bf16 = lumen.quantize(param, None, str(tmp_path / "bf16"), to="bf16")
    (got,) = lumen.Model(bf16["param_path"]).session(threads=1).run(x)
    assert np.linalg.norm(got - exact) < 0.01 * np.linalg.norm(exact)


def test_quantize_errors():
    """Bad arguments: ValueError for the options, lumen.Error (Lumen's message) for the rest."""
    param = str(MODELS / "conv_bn/model.pnnx.param")
    sample = np.zeros((1, 4, 9, 11), np.float32)
    with pytest.raises(ValueError, match="to must be 'int8' or 'bf16'"):
        lumen.quantize(param, [sample], "/tmp/x", to="int4")
    with pytest.raises(ValueError, match="method must be"):
        lumen.quantize(param, [sample], "/tmp/x", method="entropy")
    with pytest.raises(lumen.Error, match="needs calibration inputs"):
        lumen.quantize(param, [], "/tmp/x")
    with pytest.raises(lumen.Error, match="calibration sample 0: "):
        lumen.quantize(param, [np.zeros((1, 3, 9, 11), np.float32)], "/tmp/x")
    with pytest.raises(TypeError):
        lumen.quantize(param, [sample.astype(np.float64)], "/tmp/x")
