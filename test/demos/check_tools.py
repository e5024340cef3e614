"""lumen_run, lumen_quantize and the demos as their users call them, one check per ctest entry (CMakeLists.txt).

    check_tools.py ROOT CHECK PROGRAM...      e.g. check_tools.py . npy build/lumen_run

Each check runs the program with arguments, then checks its exit status and output: that a
timing run needs nothing but the model, that --json parses, that .npy files go in and out and
match PyTorch's outputs, that --summary counts what the model file holds, that --version prints
the project's version, and that bad input gives a message and exit status 2, never a crash.
"""
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

import numpy as np

RESNET = "tmp/models/resnet18"
ONNX_RESNET = "tmp/onnx/resnet18/model.onnx"
# An ONNX export with dynamic axes: inputs in0, in1 of shape (?,4,?,?).
DYNAMIC = "tmp/onnx/add_dynamic_1x4x9x11"
VERSION = re.compile(r"^\S+ \d+\.\d+\.\d+\n$")


def run(*arguments, status=0):
    """Runs a program, checks its exit status, returns (stdout, stderr)."""
    result = subprocess.run([str(a) for a in arguments], capture_output=True, text=True,
                            timeout=600)
    if result.returncode != status:
        sys.exit(f"{' '.join(map(str, arguments))}: exit status {result.returncode}, expected "
                 f"{status}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}")
    return result.stdout, result.stderr


def expect(condition, message):
    if not condition:
        sys.exit(f"FAILED: {message}")


def check_benchmark(lumen_run):
    """A model and --repeat, nothing else: made-up inputs, the latency line with every figure."""
    for model in (f"{RESNET}/model.pnnx.param", ONNX_RESNET):
        out, _ = run(lumen_run, model, "--repeat", 3, "--warmup", 1, "--threads", 1)
        # The first line's start is what scripts/bench.sh reads.
        expect(re.search(r"^median [\d.]+ ms, min [\d.]+ ms, p90 [\d.]+ ms, max [\d.]+ ms "
                         r"\(3 runs after 1 warm-up, 1 threads\)$", out, re.M),
               f"latency line in:\n{out}")
        expect(re.search(r"^CPU: .+ \(\d+ cores for this process\); .*BLAS: ", out, re.M),
               f"CPU line in:\n{out}")
        expect("(1,1000)" in out, f"the output's shape in:\n{out}")
    # Issue 27's own words: the model and --repeat 50, nothing else; every core by default.
    out, _ = run(lumen_run, ONNX_RESNET, "--repeat", 50)
    cores = int(re.search(r"\((\d+) cores for this process\)", out).group(1))
    expect(f"(50 runs after 3 warm-up, {cores} threads)" in out, out)
    # --threads 0 is every core too, as in the API.
    out, _ = run(lumen_run, ONNX_RESNET, "--repeat", 1, "--threads", 0)
    expect(f"warm-up, {cores} threads)" in out, out)


def check_json(lumen_run):
    """--json: one object on stdout, nothing else, with ordered statistics."""
    out, _ = run(lumen_run, ONNX_RESNET, "--repeat", 5, "--warmup", 1, "--json")
    report = json.loads(out)
    latency = report["latency"]
    expect(latency["runs"] == 5 and latency["warmup"] == 1, latency)
    expect(0 < latency["min_ms"] <= latency["median_ms"] <= latency["p90_ms"] <= latency["max_ms"],
           latency)
    expect(latency["threads"] >= 1 and latency["cpu"], latency)
    expect(report["inputs"] == [{"name": "in0", "shape": [1, 3, 224, 224], "source": "random"}],
           report["inputs"])
    expect(report["outputs"][0]["shape"] == [1, 1000], report["outputs"])
    # A case run as JSON reports each output's comparison.
    out, _ = run(lumen_run, "--case", RESNET, "--json")
    report = json.loads(out)
    expect(report["passed"] is True and report["outputs"][0]["passed"] is True, report)


def check_npy(lumen_run):
    """.npy inputs (float32 and float64) give PyTorch's outputs in NAME.npy files."""
    case = pathlib.Path(RESNET)
    image = np.fromfile(case / "in0.f32", "<f4").reshape(1, 3, 224, 224)
    expected = np.fromfile(case / "out0.f32", "<f4").reshape(1, 1000)
    with tempfile.TemporaryDirectory() as folder:
        folder = pathlib.Path(folder)
        for dtype in (np.float32, np.float64):
            np.save(folder / "image.npy", image.astype(dtype))
            out_dir = folder / f"out_{np.dtype(dtype).name}"
            out, _ = run(lumen_run, case / "model.pnnx.param", "--input", folder / "image.npy",
                         "--output-dir", out_dir)
            written = sorted(out_dir.glob("*.npy"))
            expect(len(written) == 1, f"one .npy output, got {written}; stdout:\n{out}")
            got = np.load(written[0])
            expect(got.dtype == np.float32 and got.shape == (1, 1000), (got.dtype, got.shape))
            np.testing.assert_allclose(got, expected, atol=1e-4, rtol=1e-4)
        # --save-outputs on made-up inputs: still numpy's files.
        run(lumen_run, ONNX_RESNET, "--save-outputs", "--output-dir", folder / "made_up")
        (output,) = (folder / "made_up").glob("*.npy")
        expect(np.load(output).shape == (1, 1000), output)
        # Fortran order and unread types are refused with a message.
        np.save(folder / "fortran.npy", np.asfortranarray(image[0, 0]))
        _, err = run(lumen_run, case / "model.pnnx.param", "--input", folder / "fortran.npy",
                     status=2)
        expect("Fortran order" in err, err)
        np.save(folder / "complex.npy", image.astype(np.complex64))
        _, err = run(lumen_run, case / "model.pnnx.param", "--input", folder / "complex.npy",
                     status=2)
        expect("is not read" in err, err)
        (folder / "broken.npy").write_bytes(b"\x93NUMPY\x01\x00\xff\x00{'descr': '<f4'")
        _, err = run(lumen_run, case / "model.pnnx.param", "--input", folder / "broken.npy",
                     status=2)
        expect("cut short" in err or "malformed" in err, err)


def check_summary(lumen_run):
    """--summary and --summary --json: what the model holds (figures from model.pnnx.param)."""
    out, _ = run(lumen_run, f"{RESNET}/model.pnnx.param", "--summary")
    for text in ("inputs: 1", "(1,3,224,224)", "(1,1000)", "nn.Conv2d", "parameters: 11684712",
                 "activation memory: "):
        expect(text in out, f"'{text}' in:\n{out}")
    out, _ = run(lumen_run, ONNX_RESNET, "--summary", "--json")
    summary = json.loads(out)
    # The ONNX file's initializers hold the same folded weights as model.pnnx.param.
    expect(summary["parameter_count"] == 11684712, summary)
    expect(summary["parameter_bytes"] == 4 * 11684712, summary)
    expect(summary["outputs"][0]["shape"] == [1, 1000] and summary["planned"], summary)
    expect(sum(o["count"] for o in summary["operators"]) == summary["operator_count"], summary)
    # Open extents: the summary says what is missing; --shape fills them in.
    out, _ = run(lumen_run, f"{DYNAMIC}/model.onnx", "--summary", "--json")
    summary = json.loads(out)
    expect(not summary["planned"] and "no fixed shape" in summary["planning_note"], summary)
    out, _ = run(lumen_run, f"{DYNAMIC}/model.onnx", "--summary", "--json", "--shape",
                 "in0:2,4,5,6", "--shape", "in1:2,4,5,6")
    summary = json.loads(out)
    expect(summary["planned"] and summary["outputs"][0]["shape"] == [2, 4, 5, 6], summary)


def check_shapes(lumen_run):
    """--shape for open extents, and a clear exit status 2 for bad or missing shapes."""
    model = f"{DYNAMIC}/model.onnx"
    _, err = run(lumen_run, model, "--repeat", 2, status=2)
    expect("input 'in0'" in err and "--shape in0:1,4,1,1" in err, err)
    out, _ = run(lumen_run, model, "--shape", "in0:1,4,9,11", "--shape", "in1:1,4,9,11",
                 "--repeat", 2)
    expect("(1,4,9,11)" in out and "(2 runs after 3 warm-up" in out, out)
    for bad, message in ((["--shape", "in0:1,x"], "bad shape"),
                         (["--shape", "in0:1,4,0,2"], "bad shape"),
                         (["--shape", "1,4,9,11"], "NAME:SHAPE"),
                         (["--shape", "nosuch:1,4,9,11"], "the model's inputs are 'in0', 'in1'"),
                         (["--shape", "in0:1,4,9,11", "--shape", "in0:1,4,9,11"], "twice")):
        _, err = run(lumen_run, model, *bad, status=2)
        expect(message in err and err.startswith("lumen_run: "), f"'{message}' in:\n{err}")
    # Shapes the layers cannot compute: the layer's own message, exit status 2.
    _, err = run(lumen_run, model, "--shape", "in0:1,4,9,11", "--shape", "in1:1,4,3,3", status=2)
    expect(err.startswith("lumen_run: "), err)
    _, err = run(lumen_run, "/nonexistent/model.onnx", status=2)
    expect(err.startswith("lumen_run: "), err)


def check_version(*programs):
    """--version on every tool: the program's name and the project's version."""
    for program in programs:
        out, _ = run(program, "--version")
        expect(VERSION.match(out) and pathlib.Path(program).name in out, f"{program}: {out!r}")


def check_demo_arguments(resnet, yolo):
    """The demos take the model as a positional path, and report a missing image by themselves."""
    out, _ = run(resnet, f"{RESNET}/model.pnnx.param", f"{RESNET}/model.pnnx.bin", "--threads", 0)
    expect("top-5" in out, out)
    out, _ = run(resnet, ONNX_RESNET, "--top", 2)
    expect("top-2" in out, out)
    _, err = run(resnet, ONNX_RESNET, "--param", f"{RESNET}/model.pnnx.param", status=2)
    expect("not both" in err, err)
    with tempfile.TemporaryDirectory() as folder:
        out, _ = run(yolo, "tmp/models/yolov5s_detect/model.pnnx.param", "--output",
                     f"{folder}/boxes.jpg")
        expect("detections" in out, out)
    for program in (resnet, yolo):
        _, err = run(program, "--image", "/nonexistent/photo.jpg", status=2)
        expect(err.startswith(pathlib.Path(program).name + ": /nonexistent/photo.jpg: cannot open"),
               f"Lumen's message first, no OpenCV warning before it:\n{err}")


def check_quantize(lumen_quantize, lumen_run):
    """lumen_quantize on ResNet18 with a folder of .npy and .f32 samples, int8 (both methods) and
    bf16; lumen_run runs what it writes, close to PyTorch's logits; bad input gives status 2."""
    reference = np.fromfile(f"{RESNET}/out0.f32", dtype=np.float32)
    with tempfile.TemporaryDirectory() as folder:
        calibration = pathlib.Path(folder, "calibration")
        calibration.mkdir()
        generator = np.random.default_rng(5)
        for i in range(3):
            sample = generator.standard_normal((1, 3, 224, 224), dtype=np.float32)
            np.save(calibration / f"s{i}.npy", sample)
        generator.standard_normal((1, 3, 224, 224), dtype=np.float32).tofile(calibration / "s3.f32")
        (calibration / "README.txt").write_text("skipped")
        for arguments, name in (([], "minmax"), (["--method", "percentile"], "percentile"),
                                (["--method", "mse"], "mse"),
                                (["--no-bias-correction"], "uncorrected"),
                                (["--to", "bf16"], "bf16")):
            prefix = f"{folder}/{name}"
            calibration_arguments = [] if name == "bf16" else ["--calibration", calibration]
            out, _ = run(lumen_quantize, f"{RESNET}/model.pnnx.param", *calibration_arguments,
                         "--output", prefix, *arguments)
            samples = 0 if name == "bf16" else 4
            expect("21 layers" in out and f"({samples} calibration samples)" in out, out)
            run(lumen_run, f"{prefix}.pnnx.param", "--input", f"{RESNET}/in0.f32",
                "--output-dir", f"{folder}/{name}_out")
            got = np.fromfile(f"{folder}/{name}_out/out0.f32", dtype=np.float32)
            cosine = got @ reference / np.linalg.norm(got) / np.linalg.norm(reference)
            expect(cosine > (0.999 if name == "bf16" else 0.995), f"{name}: cosine {cosine}")
            expect(got.argmax() == reference.argmax(), f"{name}: top-1 differs")
        empty = pathlib.Path(folder, "empty")
        empty.mkdir()
        for arguments, message in (
                (["--calibration", empty], "no calibration file"),
                ([], "int8 needs --calibration DIR"),
                (["--to", "bf16", "--keep-float", "nope"], "keep_float names 'nope'")):
            _, err = run(lumen_quantize, f"{RESNET}/model.pnnx.param", "--output",
                         f"{folder}/x", *arguments, status=2)
            expect(message in err, err)
        _, err = run(lumen_quantize, "tmp/models/conv_depthwise/model.pnnx.param", "--to", "bf16",
                     "--output", f"{folder}/x", status=2)
        expect("nothing to quantise" in err, err)


CHECKS = {
    "benchmark": check_benchmark,
    "json": check_json,
    "npy": check_npy,
    "summary": check_summary,
    "shapes": check_shapes,
    "version": check_version,
    "demo_arguments": check_demo_arguments,
    "quantize": check_quantize,
}

if __name__ == "__main__":
    root, check, *programs = sys.argv[1:]
    programs = [pathlib.Path(p).resolve() for p in programs]
    os.chdir(root)
    CHECKS[check](*programs)
    print(f"{check}: passed")
