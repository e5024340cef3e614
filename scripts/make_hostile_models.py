#!/usr/bin/env python3
"""Writes the hostile models of Lumen issue 9: tiny PNNX models that once crashed Lumen.

    python3 scripts/make_hostile_models.py OUT_DIR            the small cases (test/data/hostile/)
    python3 scripts/make_hostile_models.py --large OUT_DIR    also the cases with big input files
                                                              (scripts/hostile.sh, a temp dir)

Each case is a folder with model.pnnx.param, model.pnnx.bin (a stored zip), its input files and
run.txt, which says how scripts/hostile.sh runs build/lumen_run on it and what must come out:

    args model.pnnx.param --input in0.f32:2,3,4,5      lumen_run's arguments, run in the folder
    status 2                                           the exit status it must give
    expect torch.cat 'cat'                             text its one-line message must contain
                                                       (one line per fragment)

The C++ regression tests (test/hostile/test_hostile_models.cpp) load the same folders from
test/data/hostile/. Only the standard library is needed, except for the NaN/Inf cases, whose
references come from PyTorch: run with /usr/bin/python3 (Debian's python3-torch) to write them;
without torch those cases are written without references (lumen_run then only has to run them).
The script is deterministic: running it again rewrites identical files.
"""
import pathlib
import shutil
import struct
import sys
import zipfile


def write_floats(path, values):
    with open(path, "wb") as file:
        file.write(struct.pack(f"<{len(values)}f", *values))


class Case:
    """One hostile model: its param lines, weights, inputs and what lumen_run must answer."""

    def __init__(self, root, name):
        self.folder = pathlib.Path(root) / name
        if self.folder.exists():
            shutil.rmtree(self.folder)
        self.folder.mkdir(parents=True)
        self.lines = []
        self.operands = 0
        self.weights = {}

    def line(self, kind, name, inputs, outputs, items=""):
        self.lines.append(f"{kind:<24} {name:<24} {len(inputs)} {len(outputs)} "
                          + " ".join(str(o) for o in list(inputs) + list(outputs))
                          + (" " + items if items else ""))
        self.operands += len(outputs)

    def weight(self, member, data):
        self.weights[member] = data

    def input_file(self, name, values):
        write_floats(self.folder / name, values)

    def write(self, args, status, expect):
        text = "\n".join(["7767517", f"{len(self.lines)} {self.operands}"] + self.lines) + "\n"
        (self.folder / "model.pnnx.param").write_text(text)
        with zipfile.ZipFile(self.folder / "model.pnnx.bin", "w", zipfile.ZIP_STORED) as archive:
            for member in sorted(self.weights):
                info = zipfile.ZipInfo(member, date_time=(1980, 1, 1, 0, 0, 0))
                archive.writestr(info, self.weights[member])
        run = [f"args {args}", f"status {status}"] + [f"expect {e}" for e in expect]
        (self.folder / "run.txt").write_text("\n".join(run) + "\n")


def cat_lower_rank(root):
    # torch.cat whose second input has a lower rank than the output, dim past its rank: once a
    # heap overflow in Concatenate::Prepare.
    case = Case(root, "cat_lower_rank")
    case.line("pnnx.Input", "pnnx_input_0", [], [0], "#0=(2,3,4,5)f32")
    case.line("pnnx.Input", "pnnx_input_1", [], [1], "#1=(2,3)f32")
    case.line("torch.cat", "cat", [0, 1], [2], "dim=3 #0=(2,3,4,5)f32 #1=(2,3)f32 #2=(2,3,4,10)f32")
    case.line("pnnx.Output", "pnnx_output_0", [2], [])
    case.input_file("in0.f32", [0.5] * 120)
    case.input_file("in1.f32", [0.5] * 6)
    case.write("model.pnnx.param --input in0.f32:2,3,4,5 --input in1.f32:2,3", 2,
               ["torch.cat 'cat'", "input 1 has shape (2,3)"])
    # The same with the lower-rank input first: dim is checked against input 0's rank.
    case = Case(root, "cat_lower_rank_first")
    case.line("pnnx.Input", "pnnx_input_0", [], [0], "#0=(2,3)f32")
    case.line("pnnx.Input", "pnnx_input_1", [], [1], "#1=(2,3,4,5)f32")
    case.line("torch.cat", "cat", [0, 1], [2], "dim=3 #0=(2,3)f32 #1=(2,3,4,5)f32")
    case.line("pnnx.Output", "pnnx_output_0", [2], [])
    case.input_file("in0.f32", [0.5] * 6)
    case.input_file("in1.f32", [0.5] * 120)
    case.write("model.pnnx.param --input in0.f32:2,3 --input in1.f32:2,3,4,5", 2,
               ["torch.cat 'cat'", "dim 3 is out of range"])


def shape_overflow(root):
    # An operand (1,4194304,2097152,2097152): 2^64 elements, which wrap around to 0 in size_t.
    case = Case(root, "reshape_overflow")
    case.line("pnnx.Input", "pnnx_input_0", [], [0], "#0=(1,4)f32")
    case.line("Tensor.reshape", "reshape", [0], [1],
              "shape=(1,4194304,2097152,2097152) #0=(1,4)f32 #1=(1,4194304,2097152,2097152)f32")
    case.line("pnnx.Output", "pnnx_output_0", [1], [])
    case.input_file("in0.f32", [1.0] * 4)
    case.write("model.pnnx.param --input in0.f32:1,4", 2, ["Tensor.reshape 'reshape'", "overflow"])
    # The same shape given as the input's shape on the command line.
    case = Case(root, "input_overflow")
    case.line("pnnx.Input", "pnnx_input_0", [], [0], "#0=(1,4194304,2097152,2097152)f32")
    case.line("nn.ReLU", "relu", [0], [1])
    case.line("pnnx.Output", "pnnx_output_0", [1], [])
    case.input_file("in0.f32", [1.0])
    case.write("model.pnnx.param --input in0.f32:1,4194304,2097152,2097152", 2,
               ["in0.f32", "overflows"])
    # A pnnx.Attribute whose byte count wraps to 0, with an empty member: the size check passed.
    case = Case(root, "attribute_overflow")
    case.line("pnnx.Input", "pnnx_input_0", [], [0], "#0=(1,4)f32")
    case.line("pnnx.Attribute", "attr", [], [1], "@data=(1,4194304,2097152,2097152)f32 "
              "#1=(1,4194304,2097152,2097152)f32")
    case.line("pnnx.Expression", "add", [0, 1], [2], "expr=add(@0,@1)")
    case.line("pnnx.Output", "pnnx_output_0", [2], [])
    case.weight("attr.data", b"")
    case.input_file("in0.f32", [1.0] * 4)
    case.write("model.pnnx.param --input in0.f32:1,4", 2,
               ["model.pnnx.param:4", "@data", "overflows"])


def memory(root, large):
    # The export shape (1,3,100000,100000) (120 GB) with a 4-byte input file: refused before
    # reading or allocating anything.
    case = Case(root, "huge_input")
    case.line("pnnx.Input", "pnnx_input_0", [], [0], "#0=(1,3,100000,100000)f32")
    case.line("nn.ReLU", "relu", [0], [1], "#0=(1,3,100000,100000)f32 #1=(1,3,100000,100000)f32")
    case.line("pnnx.Output", "pnnx_output_0", [1], [])
    case.input_file("in0.f32", [1.0])
    case.write("model.pnnx.param --input in0.f32:1,3,100000,100000", 2,
               ["in0.f32", "(1,3,100000,100000)", "memory budget"])
    if large:
        # The same with an input file of the right size (sparse: no disk is used): the memory
        # budget refuses it before reading it.
        case = Case(root, "huge_input_file")
        case.line("pnnx.Input", "pnnx_input_0", [], [0], "#0=(1,3,100000,100000)f32")
        case.line("nn.ReLU", "relu", [0], [1])
        case.line("pnnx.Output", "pnnx_output_0", [1], [])
        with open(case.folder / "in0.f32", "wb") as file:
            file.truncate(3 * 100000 * 100000 * 4)
        case.write("model.pnnx.param --input in0.f32:1,3,100000,100000", 2,
                   ["in0.f32", "memory budget"])
    # A tiny input that one operator blows up: (1,1,8,8) upsampled by 10000 is 25.6 GB.
    case = Case(root, "upsample_budget")
    case.line("pnnx.Input", "pnnx_input_0", [], [0], "#0=(1,1,8,8)f32")
    case.line("nn.Upsample", "up", [0], [1],
              "align_corners=False mode=nearest scale_factor=(10000.0,10000.0) size=None")
    case.line("pnnx.Output", "pnnx_output_0", [1], [])
    case.input_file("in0.f32", [1.0] * 64)
    case.write("model.pnnx.param --input in0.f32:1,1,8,8", 2, ["memory budget", "'1'"])
    # Batch 65536: a 1->512 convolution of (65536,1,8,8) needs 8.6 GB of operands.
    case = Case(root, "batch_65536")
    case.line("pnnx.Input", "pnnx_input_0", [], [0], "#0=(65536,1,8,8)f32")
    case.line("nn.Conv2d", "conv", [0], [1],
              "bias=True dilation=(1,1) groups=1 in_channels=1 kernel_size=(3,3) out_channels=512 "
              "padding=(1,1) padding_mode=zeros stride=(1,1) @bias=(512)f32 @weight=(512,1,3,3)f32")
    case.line("pnnx.Output", "pnnx_output_0", [1], [])
    case.weight("conv.bias", struct.pack("<512f", *([0.0] * 512)))
    case.weight("conv.weight", struct.pack("<4608f", *([0.1] * 4608)))
    if large:
        with open(case.folder / "in0.f32", "wb") as file:
            file.truncate(65536 * 64 * 4)
    case.write("model.pnnx.param --input in0.f32:65536,1,8,8", 2, ["memory budget", "(65536,1,8,8)"])


def expressions(root):
    # 20,000 nested calls (a 100 KB line): the recursive parser once overflowed the stack.
    depth = 20000
    case = Case(root, "deep_expression")
    case.line("pnnx.Input", "pnnx_input_0", [], [0], "#0=(1,4)f32")
    case.line("pnnx.Expression", "expr", [0], [1], "expr=" + "neg(" * depth + "@0" + ")" * depth)
    case.line("pnnx.Output", "pnnx_output_0", [1], [])
    case.input_file("in0.f32", [1.0] * 4)
    case.write("model.pnnx.param --input in0.f32:1,4", 2,
               ["pnnx.Expression 'expr'", "nested more than 256 levels deep"])
    # 20,000 bare nested parentheses.
    case = Case(root, "deep_parentheses")
    case.line("pnnx.Input", "pnnx_input_0", [], [0], "#0=(1,4)f32")
    case.line("pnnx.Expression", "expr", [0], [1], "expr=" + "(" * depth + "@0" + ")" * depth)
    case.line("pnnx.Output", "pnnx_output_0", [1], [])
    case.input_file("in0.f32", [1.0] * 4)
    case.write("model.pnnx.param --input in0.f32:1,4", 2, ["pnnx.Expression 'expr'", "position 0"])


def windows(root):
    # MaxPool2d kernel 2^30, dilation 4: the window spans 2^32 rows; once wrapped around to a
    # plausible size, then ran for 70 s.
    case = Case(root, "maxpool_huge_kernel")
    case.line("pnnx.Input", "pnnx_input_0", [], [0], "#0=(1,3,8,8)f32")
    case.line("nn.MaxPool2d", "pool", [0], [1],
              "ceil_mode=False dilation=(4,4) kernel_size=(1073741824,1073741824) padding=(0,0) "
              "return_indices=False stride=(1,1)")
    case.line("pnnx.Output", "pnnx_output_0", [1], [])
    case.input_file("in0.f32", [1.0] * 192)
    case.write("model.pnnx.param --input in0.f32:1,3,8,8", 2, ["nn.MaxPool2d 'pool'"])


def paths(root):
    # A directory where a file is expected: the param (once reported as "empty file"), the bin,
    # an input.
    for name, args in (("directory_param", "a_directory --input in0.f32:1,4"),
                       ("directory_bin", "model.pnnx.param a_directory --input in0.f32:1,4"),
                       ("directory_input", "model.pnnx.param --input a_directory:1,4")):
        case = Case(root, name)
        case.line("pnnx.Input", "pnnx_input_0", [], [0], "#0=(1,4)f32")
        case.line("nn.ReLU", "relu", [0], [1])
        case.line("pnnx.Output", "pnnx_output_0", [1], [])
        case.input_file("in0.f32", [1.0] * 4)
        (case.folder / "a_directory").mkdir()
        (case.folder / "a_directory" / "keep").write_text("")
        case.write(args, 2, ["a_directory", "is a directory"])


def special_values(root):
    # NaN and Inf in the input: PyTorch propagates them and so must Lumen, without crashing (and
    # without undefined behaviour: FastExp once shifted a negative int for NaN). The references
    # are PyTorch's; NaN matches NaN (torch.allclose(equal_nan=True)).
    values = [float("nan"), float("inf"), -float("inf"), 0.0, 1.0, -1.0, 100.0, -100.0,
              float("nan"), 3.0, -2.0, 0.5, float("inf"), -0.5, 2.0, -3.0]
    inputs = values * 2  # (1,2,4,4)
    case = Case(root, "nan_inf")
    case.line("pnnx.Input", "pnnx_input_0", [], [0], "#0=(1,2,4,4)f32")
    case.line("nn.SiLU", "silu", [0], [1])
    case.line("nn.Sigmoid", "sigmoid", [0], [2])
    case.line("F.softmax", "softmax", [0], [3], "dim=-1")
    case.line("pnnx.Expression", "expr", [0], [4], "expr=exp(@0)")
    case.line("nn.MaxPool2d", "pool", [0], [5],
              "ceil_mode=False dilation=(1,1) kernel_size=(2,2) padding=(0,0) "
              "return_indices=False stride=(2,2)")
    case.line("nn.ReLU", "relu", [0], [6])
    case.line("nn.Conv2d", "conv", [0], [7],
              "bias=True dilation=(1,1) groups=1 in_channels=2 kernel_size=(3,3) out_channels=2 "
              "padding=(1,1) padding_mode=zeros stride=(1,1) @bias=(2)f32 @weight=(2,2,3,3)f32")
    case.line("pnnx.Output", "pnnx_output_0", [1, 2, 3, 4, 5, 6, 7], [])
    weight = [((i * 7) % 11 - 5) / 10.0 for i in range(36)]
    bias = [0.25, -0.25]
    case.weight("conv.bias", struct.pack("<2f", *bias))
    case.weight("conv.weight", struct.pack("<36f", *weight))
    case.input_file("in0.f32", inputs)
    outputs = []
    try:
        import torch
        import torch.nn.functional as F
        x = torch.tensor(inputs, dtype=torch.float32).reshape(1, 2, 4, 4)
        w = torch.tensor(weight, dtype=torch.float32).reshape(2, 2, 3, 3)
        b = torch.tensor(bias, dtype=torch.float32)
        outputs = [F.silu(x), torch.sigmoid(x), F.softmax(x, dim=-1), torch.exp(x),
                   F.max_pool2d(x, 2, 2), F.relu(x), F.conv2d(x, w, b, padding=1)]
    except ImportError:
        pass
    if outputs:
        lines = ["input in0.f32 1,2,4,4"]
        for index, tensor in enumerate(outputs):
            write_floats(case.folder / f"out{index}.f32", tensor.flatten().tolist())
            lines.append(f"output out{index}.f32 " + ",".join(str(d) for d in tensor.shape))
        lines += ["tolerance 1e-05 1e-05",
                  "note NaN/Inf in the input; references from PyTorch "
                  "(scripts/make_hostile_models.py)"]
        (case.folder / "case.txt").write_text("\n".join(lines) + "\n")
        case.write("--case .", 0, ["PASS"])
    else:
        case.write("model.pnnx.param --input in0.f32:1,2,4,4", 0, ["output 0"])


def main():
    arguments = sys.argv[1:]
    large = "--large" in arguments
    arguments = [a for a in arguments if a != "--large"]
    if len(arguments) != 1:
        sys.exit(__doc__)
    root = pathlib.Path(arguments[0])
    root.mkdir(parents=True, exist_ok=True)
    cat_lower_rank(root)
    shape_overflow(root)
    memory(root, large)
    expressions(root)
    windows(root)
    paths(root)
    special_values(root)


if __name__ == "__main__":
    main()
