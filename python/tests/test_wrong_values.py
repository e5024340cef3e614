"""Every public entry point of the Python module given values of the wrong kind and shape.

Each probe must end in the expected Python exception (TypeError for the wrong kind of value,
lumen.Error for a shape or value Lumen refuses), or return when the value is valid, and never crash
or hang the interpreter. The probes run in a child interpreter that is restarted after a probe that
kills it, so that a crash fails that probe's test instead of pytest, and every probe is reported.

    PYTHONPATH=build/python /usr/bin/python3 -m pytest -q python/tests/test_wrong_values.py
"""
import json
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = ROOT / "tmp/models"

# (id, code run in the child, expected outcome, regular expression the message must contain).
# The code sees np, warnings, lumen, compare, the models relu (one input (1,4,9,11)), add (two)
# and resnet (ResNet18), x (a (1,4,9,11) float32 array), session(model=relu, **options) (a new
# one-thread session) and SCRATCH (a folder with not_a_model.txt and truncated.bin).
PROBES = [
    # Session.run: not an array, nor a list, tuple or dict of arrays.
    ("run_str", "session().run('abc')", "TypeError",
     r"Session\.run: inputs must be a numpy array, a list of them or a dict .*got str"),
    ("run_bytes", "session().run(b'abc')", "TypeError", "got bytes"),
    ("run_none", "session().run(None)", "TypeError", "got NoneType"),
    ("run_set", "session().run({1})", "TypeError", "got set"),
    ("run_object", "session().run(object())", "TypeError", "got object"),
    ("run_int", "session().run(1)", "TypeError", "got int"),
    ("run_float", "session().run(1.5)", "TypeError", "got float"),
    ("run_numpy_scalar", "session().run(np.float32(1))", "TypeError", "got numpy.float32"),
    ("run_memoryview", "session().run(memoryview(x))", "TypeError", "got memoryview"),
    ("run_bytearray", "session().run(bytearray(16))", "TypeError", "got bytearray"),
    ("run_no_argument", "session().run()", "TypeError", "run"),
    ("run_unknown_keyword", "session().run(image=x)", "TypeError", "run"),
    # Session.run: a dict by input names: names that are not the model's, or not str.
    ("run_dict_empty", "session().run({})", "lumen.Error",
     r"Session\.run: input '0' is missing \(the model's inputs: '0'\)"),
    ("run_dict_of_arrays",
     "(y,) = session().run({'0': x})\nassert np.array_equal(y, np.maximum(x, 0))", "returned", ""),
    ("run_dict_unknown_name", "session().run({'0': x, 'image': x})", "lumen.Error",
     "no input 'image'"),
    ("run_dict_int_key", "session().run({0: x})", "TypeError", "input names must be str, got int"),
    ("run_dict_of_none", "session().run({'0': None})", "TypeError",
     "input '0' must be a numpy array, got NoneType"),
    ("run_dict_two_inputs_one_given", "session(add).run({'0': x})", "lumen.Error",
     "input '1' is missing"),
    # Session.run: outputs that are not a list of names, or names the model does not have.
    ("run_outputs_str", "session().run(x, outputs='1')", "TypeError",
     "outputs must be None or a list of output names, got str"),
    ("run_outputs_int", "session().run(x, outputs=[1])", "TypeError",
     "output names must be str, got int"),
    ("run_outputs_unknown", "session().run(x, outputs=['nope'])", "lumen.Error",
     "no operand 'nope'"),
    ("run_outputs_empty", "assert session().run(x, outputs=[]) == []", "returned", ""),
    ("run_outputs_input", "(y,) = session().run(x, outputs=['0'])\nassert np.array_equal(y, x)",
     "returned", ""),
    ("run_cast_str", "session().run(x, cast='yes')", "TypeError", ""),
    # Session.run: a list or tuple holding something else than arrays.
    ("run_list_of_none", "session().run([None])", "TypeError",
     r"Session\.run: input 0 \('0'\) must be a numpy array, got NoneType"),
    ("run_list_of_str", "session().run(['abc'])", "TypeError", "input 0 .* got str"),
    ("run_list_of_dict", "session().run([{}])", "TypeError", "input 0 .* got dict"),
    ("run_tuple_with_none", "session().run((x, None))", "TypeError", "input 1 .* got NoneType"),
    ("run_nested_list_of_floats", "session().run([[1.0, -2.0]])", "TypeError", "got list"),
    ("run_nested_list_of_arrays", "session().run([[x]])", "TypeError", "got list"),
    # Session.run: lists of the wrong length.
    ("run_empty_list", "session().run([])", "lumen.Error", r"1 input\(s\) but 0"),
    ("run_list_too_long", "session().run([x, x])", "lumen.Error", r"1 input\(s\) but 2"),
    ("run_two_inputs_given_one", "session(add).run(x)", "lumen.Error", r"2 input\(s\) but 1"),
    ("run_two_inputs_second_str", "session(add).run([x, 'abc'])", "TypeError", "input 1"),
    # Session.run: numpy arrays that hold no numbers.
    ("run_str_array", "session().run(np.array(['a', 'b']))", "TypeError",
     r"Session\.run: input 0 \('0'\) must hold real numbers, got a numpy array of dtype <U1"),
    ("run_numeric_str_array", "session().run(np.array(['1.5']))", "TypeError", "dtype <U3"),
    ("run_bytes_array", "session().run(np.array([b'1']))", "TypeError", "dtype \\|S1"),
    ("run_object_array", "session().run(np.array([object(), None]))", "TypeError", "dtype object"),
    ("run_object_array_of_floats", "session().run(np.array([1.0, -2.0], dtype=object))",
     "TypeError", "dtype object"),
    ("run_str_array_in_list", "session(add).run([x, np.array(['a'])])", "TypeError",
     r"input 1 \('1'\) must hold real numbers"),
    ("run_void_array", "session().run(np.zeros(3, 'V4'))", "TypeError", "dtype"),
    ("run_structured_array", "session().run(np.zeros(3, [('a', 'f4')]))", "TypeError", "dtype"),
    ("run_datetime_array", "session().run(np.zeros(3, 'datetime64[s]'))", "TypeError", "dtype"),
    ("run_timedelta_array", "session().run(np.zeros(3, 'timedelta64[s]'))", "TypeError", "dtype"),
    # Session.run: numeric arrays of other dtypes are refused as ONNX Runtime refuses them, and
    # converted with cast=True; float32 in the other byte order is float32.
    ("run_bool_array", "session().run(np.array([True, False]))", "TypeError",
     r"input 0 \('0'\) has dtype bool; Lumen takes float32 .*cast=True"),
    ("run_int_array", "session().run(np.array([-1, 2]))", "TypeError", "has dtype int64"),
    ("run_uint8_array", "session().run(np.array([1, 2], np.uint8))", "TypeError",
     "has dtype uint8"),
    ("run_float64_array", "session().run(x.astype(np.float64))", "TypeError", "has dtype float64"),
    ("run_float16_array", "session().run(x.astype(np.float16))", "TypeError", "has dtype float16"),
    ("run_int_array_cast", "(y,) = session().run(np.array([-1, 2]), cast=True)\n"
     "assert y.dtype == np.float32 and list(y) == [0, 2]", "returned", ""),
    ("run_float64_array_cast", "(y,) = session().run(x.astype(np.float64), cast=True)\n"
     "assert np.array_equal(y, np.maximum(x, 0))", "returned", ""),
    ("run_big_endian_array", "(y,) = session().run(x.astype('>f4'))\n"
     "assert np.array_equal(y, np.maximum(x, 0))", "returned", ""),
    ("run_complex_array", "session().run(np.ones(3, complex))", "TypeError",
     "must hold real numbers"),
    ("run_complex_array_cast", "session().run(np.ones(3, complex), cast=True)", "TypeError",
     "must hold real numbers"),
    # numpy's conversion itself raising (here its ComplexWarning made an error) is passed on.
    ("run_conversion_raises", "with warnings.catch_warnings():\n"
     "    warnings.simplefilter('error')\n"
     "    session().run(np.ones(3, complex))", ("ComplexWarning", "TypeError"), ""),
    # Session.run: shapes and sizes Lumen cannot hold, and ones a model's layers refuse.
    ("run_rank_9", "session().run(np.zeros((1,) * 9, np.float32))", "lumen.Error", "rank 9"),
    ("run_rank_32", "session().run(np.zeros((1,) * 32, np.float32))", "lumen.Error", "rank 32"),
    ("run_extent_above_uint32", "session().run(np.broadcast_to(np.float32(1), (1, 2**33)))",
     "lumen.Error", "extent 8589934592"),
    ("run_empty_extent_above_uint32", "session().run(np.zeros((0, 2**33), np.float32))",
     "lumen.Error", "extent 8589934592"),
    ("run_too_large_to_copy", "session().run(np.broadcast_to(np.float32(1), (2**20, 2**20)))",
     "MemoryError", ""),
    ("run_resnet_rank_3", "session(resnet).run(np.zeros((1, 3, 32), np.float32))", "lumen.Error",
     "nn.Conv2d"),
    ("run_resnet_rank_1", "session(resnet).run(np.zeros(32, np.float32))", "lumen.Error",
     "nn.Conv2d"),
    ("run_resnet_0d", "session(resnet).run(np.array(1.0, np.float32))", "lumen.Error", ""),
    ("run_resnet_four_channels", "session(resnet).run(np.zeros((1, 4, 32, 32), np.float32))",
     "lumen.Error", r"\(N,3,H,W\)"),
    ("run_resnet_empty_plane", "session(resnet).run(np.zeros((1, 3, 0, 32), np.float32))",
     "lumen.Error", "empty plane"),
    ("run_resnet_no_channels", "session(resnet).run(np.zeros((1, 0, 32, 32), np.float32))",
     "lumen.Error", "nn.Conv2d"),
    ("run_add_unbroadcastable", "session(add).run([x, np.zeros(3, np.float32)])", "lumen.Error",
     "broadcast"),
    # Session.run: valid arrays of unusual shapes and layouts give PyTorch's answer.
    ("run_0d", "(y,) = session().run(np.array(-2.0, np.float32))\n"
     "assert y.shape == () and y == 0, y", "returned", ""),
    ("run_0d_in_list", "(y,) = session().run([np.array(3.0, np.float32)])\n"
     "assert y.shape == () and y == 3, y", "returned", ""),
    ("run_add_0d_broadcast", "(y,) = session(add).run([x, np.array(1.0, np.float32)])\n"
     "assert np.array_equal(y, x + 1)", "returned", ""),
    ("run_zero_size", "(y,) = session().run(np.zeros((0, 4), np.float32))\n"
     "assert y.shape == (0, 4)", "returned", ""),
    ("run_resnet_batch_0", "(y,) = session(resnet).run(np.zeros((0, 3, 32, 32), np.float32))\n"
     "assert y.shape == (0, 1000)", "returned", ""),
    ("run_non_contiguous", "(y,) = session().run(x[..., ::2])\n"
     "assert np.array_equal(y, np.maximum(x[..., ::2], 0))", "returned", ""),
    ("run_negative_strides", "(y,) = session().run(x[:, ::-1])\n"
     "assert np.array_equal(y, np.maximum(x[:, ::-1], 0))", "returned", ""),
    ("run_fortran_order", "(y,) = session().run(np.asfortranarray(x))\n"
     "assert np.array_equal(y, np.maximum(x, 0))", "returned", ""),
    ("run_array_subclass", "(y,) = session().run(np.matrix([[1.0, -1.0]], np.float32))\n"
     "assert np.array_equal(y, [[1.0, 0.0]])", "returned", ""),
    # Session.extract, operand, operands, keep_all_operands, profile, threads.
    ("extract_int", "session().extract(3)", "TypeError", "extract"),
    ("extract_none", "session().extract(None)", "TypeError", "extract"),
    ("extract_list", "session().extract(['1'])", "TypeError", "extract"),
    ("extract_unknown", "session().extract('no such operand')", "lumen.Error", "no operand"),
    ("extract_empty_name", "session().extract('')", "lumen.Error", "no operand"),
    ("extract_before_run", "session().extract('1')", "lumen.Error",
     r"call Session\.run\(inputs\) before Session\.extract"),
    ("operand_int", "session().operand(1)", "TypeError", "operand"),
    ("operand_unknown", "session().operand('no such operand')", "lumen.Error", "no operand"),
    ("operand_not_kept", "session().operand('0')", "lumen.Error", "not kept"),
    ("operands_argument", "session().operands(1)", "TypeError", "operands"),
    ("keep_all_operands_argument", "session().keep_all_operands(True)", "TypeError",
     "keep_all_operands"),
    ("profile_argument", "session().profile(1)", "TypeError", "profile"),
    ("profile_not_enabled", "session().profile()", "lumen.Error",
     r"Model\.session\(profile=True\)"),
    ("threads_assigned", "session().threads = 2", "AttributeError", ""),
    # Model: paths and weights of the wrong kind, and files that are not models.
    ("model_none", "lumen.Model(None)", "TypeError", ""),
    ("model_int", "lumen.Model(3)", "TypeError", ""),
    ("model_list", "lumen.Model(['a'])", "TypeError", ""),
    ("model_no_argument", "lumen.Model()", "TypeError", ""),
    ("model_missing_file", "lumen.Model(str(SCRATCH / 'missing.pnnx.param'))", "lumen.Error",
     "cannot open"),
    ("model_empty_path", "lumen.Model('')", "lumen.Error", "cannot open"),
    ("model_directory", "lumen.Model(str(SCRATCH))", "lumen.Error", "directory"),
    ("model_not_a_model", "lumen.Model(str(SCRATCH / 'not_a_model.txt'))", "lumen.Error",
     "not a model file"),
    ("model_bin_as_param", "lumen.Model(str(MODELS / 'relu/model.pnnx.bin'))", "lumen.Error", ""),
    ("model_nul_in_path", "lumen.Model(str(MODELS / 'relu/model.pnnx.param') + '\\0x')",
     "ValueError", r"Model: path contains a NUL character"),
    ("model_weights_none", "lumen.Model(str(MODELS / 'relu/model.pnnx.param'), None)",
     "returned", ""),
    ("model_pathlib", "lumen.Model(MODELS / 'resnet18/model.pnnx.param', MODELS / "
     "'resnet18/model.pnnx.bin')", "returned", ""),
    ("model_bytes_path", "lumen.Model(bytes(MODELS / 'relu/model.pnnx.param'))", "returned", ""),
    ("model_weights_int", "lumen.Model(str(MODELS / 'relu/model.pnnx.param'), 3)", "TypeError",
     r"Model: weights must be a path \(str, bytes or os\.PathLike\), got int"),
    ("model_weights_missing",
     "lumen.Model(str(MODELS / 'resnet18/model.pnnx.param'), str(SCRATCH / 'missing.bin'))",
     "lumen.Error", "cannot open"),
    ("model_weights_directory",
     "lumen.Model(str(MODELS / 'resnet18/model.pnnx.param'), str(SCRATCH))", "lumen.Error",
     "directory"),
    ("model_weights_truncated",
     "lumen.Model(str(MODELS / 'resnet18/model.pnnx.param'), str(SCRATCH / 'truncated.bin'))",
     "lumen.Error", "truncated"),
    ("model_weights_of_another_model",
     "lumen.Model(str(MODELS / 'resnet18/model.pnnx.param'), str(MODELS / 'add/model.pnnx.bin'))",
     "lumen.Error", "missing weight"),
    ("model_weights_nul", "lumen.Model(str(MODELS / 'relu/model.pnnx.param'), 'a\\0b')",
     "ValueError", "weights contains a NUL character"),
    ("model_fuse_str", "lumen.Model(str(MODELS / 'relu/model.pnnx.param'), fuse='no')",
     "TypeError", ""),
    ("model_unknown_keyword", "lumen.Model(str(MODELS / 'relu/model.pnnx.param'), threads=2)",
     "TypeError", ""),
    # Model.session: thread counts and memory budgets out of range or of the wrong kind.
    ("session_threads_negative", "relu.session(threads=-1)", "lumen.Error",
     r"Model\.session: threads must be between 0 and 1024, got -1"),
    ("session_threads_1025", "relu.session(threads=1025)", "lumen.Error", "got 1025"),
    ("session_threads_huge", "relu.session(threads=2**40)", "lumen.Error", "got 1099511627776"),
    ("session_threads_beyond_int64", "relu.session(threads=2**70)", "lumen.Error", "threads"),
    ("session_threads_float", "relu.session(threads=2.5)", "TypeError",
     r"Model\.session: threads must be an integer, got float"),
    ("session_threads_str", "relu.session(threads='2')", "TypeError", "got str"),
    ("session_threads_none", "relu.session(threads=None)", "TypeError", "got NoneType"),
    ("session_threads_numpy_int", "assert relu.session(threads=np.int64(1)).threads == 1",
     "returned", ""),
    ("session_profile_str", "relu.session(profile='yes')", "TypeError", ""),
    ("session_memory_negative", "relu.session(max_memory_bytes=-1)", "lumen.Error",
     r"Model\.session: max_memory_bytes must be between 0 and .*got -1"),
    ("session_memory_beyond_int64", "relu.session(max_memory_bytes=2**70)", "lumen.Error",
     "max_memory_bytes"),
    ("session_memory_float", "relu.session(max_memory_bytes=1.5)", "TypeError",
     "max_memory_bytes must be an integer"),
    ("session_memory_too_small", "relu.session(threads=1, max_memory_bytes=1).run(x)",
     "lumen.Error", "memory budget"),
    # Objects made by __new__ without __init__, methods called on another type, no constructor.
    ("model_new_input_names", "lumen.Model.__new__(lumen.Model).input_names", "TypeError",
     r"Model\.input_names: .*__init__"),
    ("model_new_output_names", "lumen.Model.__new__(lumen.Model).output_names", "TypeError", ""),
    ("model_new_export_shapes", "lumen.Model.__new__(lumen.Model).export_input_shapes",
     "TypeError", ""),
    ("model_new_inputs", "lumen.Model.__new__(lumen.Model).inputs", "TypeError",
     r"Model\.inputs: .*__init__"),
    ("model_new_outputs", "lumen.Model.__new__(lumen.Model).outputs", "TypeError", ""),
    ("model_inputs", "assert [i.name for i in add.inputs] == ['0', '1'] and "
     "add.outputs[0].dtype == 'float32'", "returned", ""),
    ("model_new_session", "lumen.Model.__new__(lumen.Model).session()", "TypeError",
     r"Model\.session: .*__init__"),
    # Model.summary (issue 27): shapes that are not lists of extents, counts, uninitialised models.
    ("model_new_summary", "lumen.Model.__new__(lumen.Model).summary()", "TypeError",
     r"Model\.summary: .*__init__"),
    ("summary_on_session", "lumen.Model.summary(session())", "TypeError", "Model.summary"),
    ("summary_shapes_str", "relu.summary('1,4,9,11')", "TypeError", "input_shapes"),
    ("summary_shapes_negative", "relu.summary([[1, -4, 9, 11]])", "TypeError", "input_shapes"),
    ("summary_shapes_huge", "relu.summary([[2**40, 4, 9, 11]])", "TypeError", "input_shapes"),
    ("summary_shapes_count", "relu.summary([[1, 4, 9, 11], [1, 4, 9, 11]])", "lumen.Error",
     r"1 input\(s\) but 2"),
    ("summary_shapes_refused", "assert not add.summary([[1, 4, 9, 11], [1, 5, 9, 11]])['planned']",
     "returned", ""),
    ("session_new_run", "lumen.Session.__new__(lumen.Session).run(x)", "TypeError",
     r"Session\.run: .*Model\.session"),
    ("session_new_extract", "lumen.Session.__new__(lumen.Session).extract('1')", "TypeError", ""),
    ("session_new_operand", "lumen.Session.__new__(lumen.Session).operand('1')", "TypeError", ""),
    ("session_new_operands", "lumen.Session.__new__(lumen.Session).operands()", "TypeError", ""),
    ("session_new_keep_all", "lumen.Session.__new__(lumen.Session).keep_all_operands()",
     "TypeError", ""),
    ("session_new_profile", "lumen.Session.__new__(lumen.Session).profile()", "TypeError", ""),
    ("session_new_threads", "lumen.Session.__new__(lumen.Session).threads", "TypeError", ""),
    ("session_constructor", "lumen.Session()", "TypeError", ""),
    ("session_run_on_none", "lumen.Session.run(None, x)", "TypeError", ""),
    ("session_run_on_model", "lumen.Session.run(relu, x)", "TypeError", ""),
    ("model_session_on_none", "lumen.Model.session(None)", "TypeError", ""),
    ("model_init_on_session", "lumen.Model.__init__(session(), 'a')", "TypeError", ""),
    # lumen.compare and the case reader (pure Python; a bad case is exit status 2).
    ("compare_missing_case", "assert compare.main([str(SCRATCH / 'no case')]) == 2", "returned",
     ""),
    ("compare_none", "compare.compare(None)", "TypeError", ""),
]

# The child: runs the probes from argv[1] on, one JSON line before and after each.
CHILD = r"""
import json, pathlib, resource, sys, warnings
# Far above what the probes need, far below the machine: a runaway copy fails in numpy instead.
resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))
import numpy as np
import lumen
from lumen import compare

start, MODELS, SCRATCH = int(sys.argv[1]), pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
relu = lumen.Model(str(MODELS / "relu/model.pnnx.param"))
add = lumen.Model(str(MODELS / "add/model.pnnx.param"))
resnet = lumen.Model(str(MODELS / "resnet18/model.pnnx.param"))
x = np.linspace(-1, 1, 4 * 9 * 11, dtype=np.float32).reshape(1, 4, 9, 11)

def session(model=relu, **options):
    return model.session(threads=1, **options)

codes = json.load(sys.stdin)
for index in range(start, len(codes)):
    print(json.dumps({"started": index}), flush=True)
    try:
        exec(codes[index], dict(globals()))
        outcome, message = "returned", ""
    except BaseException as error:
        name = "lumen.Error" if isinstance(error, lumen.Error) else type(error).__name__
        outcome, message = name, str(error)
    print(json.dumps({"index": index, "outcome": outcome, "message": message[:2000]}),
          flush=True)
"""


def run_probes(scratch):
    """{probe index: (outcome, message)}; a probe that kills or hangs the child is an outcome."""
    codes = json.dumps([code for _, code, _, _ in PROBES])
    results = {}
    start = 0
    while start < len(PROBES):
        # faulthandler: a crash leaves the Python stack of the probe in the test's message.
        command = [sys.executable, "-X", "faulthandler", "-c", CHILD, str(start), str(MODELS),
                   str(scratch)]
        try:
            child = subprocess.run(command, input=codes, capture_output=True, text=True,
                                   timeout=120)
            output, failure = child.stdout, f"crashed (exit status {child.returncode})"
        except subprocess.TimeoutExpired as timeout:
            output, failure = timeout.stdout or "", "hung (killed after 120 s)"
            output = output.decode() if isinstance(output, bytes) else output
            child = None
        started = None
        for line in output.splitlines():
            record = json.loads(line)
            if "started" in record:
                started = record["started"]
            else:
                results[record["index"]] = (record["outcome"], record["message"])
        if child is not None and child.returncode == 0 and len(results) == len(PROBES):
            break
        if started is None or started in results:
            stderr = child.stderr if child is not None else ""
            raise AssertionError(f"the probe child failed outside a probe: {failure}\n{stderr}")
        results[started] = (failure, child.stderr[-2000:] if child is not None else "")
        start = started + 1
    return results


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    scratch = tmp_path_factory.mktemp("wrong_values")
    (scratch / "not_a_model.txt").write_text("hello\n")
    weights = (MODELS / "resnet18/model.pnnx.bin").read_bytes()
    (scratch / "truncated.bin").write_bytes(weights[:1000])
    return run_probes(scratch)


@pytest.mark.parametrize("index", range(len(PROBES)), ids=[probe[0] for probe in PROBES])
def test_wrong_value_ends_in_a_python_exception(outcomes, index):
    _, code, expected, pattern = PROBES[index]
    accepted = expected if isinstance(expected, tuple) else (expected,)
    outcome, message = outcomes[index]
    assert outcome in accepted, f"{code}\n-> {outcome}: {message}"
    if outcome != "returned":
        assert re.search(pattern, message), f"{code}\n-> {outcome}: {message}"


def test_probes_cover_every_public_entry_point():
    # A new method or property of Model or Session needs probes of its own above.
    import lumen
    probed = "\n".join(code for _, code, _, _ in PROBES)
    for cls in (lumen.Model, lumen.Session):
        for name in [name for name in vars(cls) if not name.startswith("_")]:
            assert re.search(rf"\.{name}\b", probed), f"{cls.__name__}.{name} has no probe"
