#!/usr/bin/env python3
"""ONNX's backend node tests through Lumen: every case of tmp/onnx_node against its expectation.

tmp/onnx_node holds the float node tests of ONNX 1.12 as golden cases
(scripts/make_onnx_node_cases.py). Each runs in a lumen_run process of its own
(`lumen_run --case DIR --threads 1`), so that a crash or a hang is seen as one, and gets a status:

  pass      every output matches ONNX's reference (atol 1e-7, rtol 1e-3)
  mismatch  it runs, but an output's values or shape differ from the reference
  refused   lumen_run stops with a lumen::Error (an op, an opset, an attribute Lumen does not
            support; a value it needs when loading): exit status 2 and a message
  crash     anything else: a signal, a time-out, another exit status, exit 2 without a
            lumen::Error's message (lumen_run's last-resort 'out of memory')

test/onnx/onnx_node_expected.txt lists every case that does not pass, one line each:
`NAME STATUS REASON` (REASON is Lumen's message, shortened; only NAME and STATUS are compared).
The check (the ctest onnx_node_cases) fails when
  - a case crashes or times out (never allowed, listed or not);
  - a case that is not listed does not pass (a regression, or a new case);
  - a listed case passes (remove its line: the list only shrinks);
  - a listed case's status changed (refused -> mismatch: the op is now read but computes wrongly);
  - a listed name is no case.
The file's header is a summary grouped by cause (ops not implemented with counts, opsets outside
Lumen's range, undeclared shapes, inputs Lumen needs when loading, other refusals, mismatches):
the work list for the ONNX reader.

    test/onnx/check_onnx_node_cases.py build/lumen_run            check (the ctest)
    test/onnx/check_onnx_node_cases.py build/lumen_run --write    rewrite the expectations file

--write rewrites the file from this run (it refuses while any case crashes); review its diff: a
line added is a case that passed before.
"""
import argparse
import collections
import concurrent.futures
import os
import pathlib
import re
import signal
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
CASES = ROOT / "tmp" / "onnx_node"
EXPECTED = ROOT / "test" / "onnx" / "onnx_node_expected.txt"
LISTABLE = {"mismatch", "refused"}
# A node test runs in milliseconds; this only tells a hang from a slow machine.
TIMEOUT_SECONDS = 60


def list_cases(folder):
    """Names of the case folders (holding a case.txt) under `folder`, sorted."""
    return sorted(p.name for p in folder.iterdir() if (p / "case.txt").is_file())


def one_line(text):
    """Collapses a (possibly multi-line) message into one line."""
    return " ".join(text.split())


def run_case(lumen_run, folder, timeout):
    """Runs one case; returns (status, reason)."""
    # A session of its own, so that a time-out ends the process and anything it started.
    process = subprocess.Popen([lumen_run, "--case", str(folder), "--threads", "1"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return "crash", f"no result after {timeout} s"
    status = process.returncode
    output = stdout + stderr
    if status == 0:
        return "pass", ""
    if status == 1:
        failed = [line for line in stdout.splitlines() if line.endswith("FAIL")]
        reason = failed[0] if failed else one_line(output)
        return "mismatch", reason.replace(folder.name + " ", "", 1).removesuffix(": FAIL")
    message = stderr.strip()
    if status == 2 and message.startswith("lumen_run: ") and \
            message != "lumen_run: out of memory":
        message = message[len("lumen_run: "):].replace(str(folder / "model.onnx") + ": ", "")
        # lumen_run's comparison throws when an output's shape or count is not the reference's.
        if re.match(r"(output \d+ has shape|the case lists)", message):
            return "mismatch", one_line(message)
        return "refused", shorten(message)
    if status < 0:
        return "crash", f"signal {-status}: {one_line(output)[-300:]}"
    return "crash", f"exit status {status}: {one_line(output)[-300:]}"


def shorten(message):
    """Lumen's refusal as one line, the unsupported-op list as 'ONNX ops not implemented: A, B'."""
    if "the model uses ONNX ops Lumen does not implement" in message:
        ops = re.findall(r"^\s+(\S+)(?: \(domain [^)]*\))?, first at node", message, flags=re.M)
        return "ONNX ops not implemented: " + ", ".join(ops)
    return one_line(message)


def cause(status, reason):
    """The group a failing case is summarised under: (group, [keys within the group])."""
    if status == "mismatch":
        return "mismatch", [""]
    if reason.startswith("ONNX ops not implemented: "):
        return "op not implemented", reason[len("ONNX ops not implemented: "):].split(", ")
    opset = re.match(r"ONNX opset (\d+) is not supported", reason)
    if opset:
        return "opset outside Lumen's range", [f"opset {opset.group(1)}"]
    if "is not declared" in reason:
        return "shape not declared", [""]
    # Other refusals: by op type and message, without the node's name.
    node = re.match(r"node '[^']*' \((\w+), opset \d+\): (.*)", reason)
    if node and re.search(r"must be known when loading|computed at run time is not", reason):
        return "needed when loading", [f"{node.group(1)}: {node.group(2)}"]
    if node:
        return "other refusal", [f"{node.group(1)}: {node.group(2)}"]
    layer = re.match(r"(\S+) '[^']*': (.*)", reason)
    if layer:
        return "other refusal", [f"{layer.group(1)}: {layer.group(2)}"]
    return "other refusal", [reason]


def summary(results, names, cases_folder):
    """The header of the expectations file: figures and the failures grouped by cause."""
    skipped = (cases_folder / "SKIPPED.txt").read_text().splitlines()[0].lstrip("# ")
    counts = collections.Counter(status for status, _ in results.values())
    lines = [
        f"{skipped}.",
        f"Through Lumen: {counts['pass']} pass, {counts['refused']} refused, "
        f"{counts['mismatch']} mismatch" +
        (f", {counts['crash']} CRASH" if counts["crash"] else "") +
        f" ({100.0 * counts['pass'] / len(names):.1f}% pass).", ""
    ]
    groups = collections.defaultdict(lambda: collections.defaultdict(list))
    for name in names:
        status, reason = results[name]
        if status == "pass":
            continue
        group, keys = cause(status, reason)
        for key in keys:
            groups[group][key].append(name)
    titles = {
        "op not implemented": "ONNX ops not implemented (cases naming each op; a case can name "
                              "several; opset-refused cases are not counted)",
        "opset outside Lumen's range": "opset outside Lumen's range (refused before any op is "
                                       "looked at)",
        "shape not declared": "a shape not declared in the file",
        "needed when loading": "an input Lumen needs when loading (a weight, a bound, scales) is "
                               "a graph input here, by op and message",
        "other refusal": "other refusals, by op and message",
        "mismatch": "mismatches (runs, wrong values or shape)",
    }
    for group, title in titles.items():
        cases = {name for names_of_key in groups[group].values() for name in names_of_key}
        lines.append(f"{title}: {len(cases)} cases")
        for key, members in sorted(groups[group].items(), key=lambda item: (-len(item[1]),
                                                                             item[0])):
            if group == "mismatch":
                lines += [f"  {name}: {results[name][1]}" for name in members]
            elif group == "op not implemented":
                alone = sum(1 for name in members if "," not in results[name][1])
                lines.append(f"  {key} {len(members)} (the only missing op in {alone})")
            else:
                lines.append(f"  {len(members):3d}  {key}: " + " ".join(members))
        lines.append("")
    return lines


def read_expected(path):
    """The expectations file as {name: (status, reason)}."""
    expected = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split(maxsplit=2)
        if len(fields) < 2 or fields[1] not in LISTABLE:
            sys.exit(f"{path}:{number}: expected 'NAME STATUS REASON' with STATUS one of "
                     f"{sorted(LISTABLE)}, got '{line}'")
        expected[fields[0]] = (fields[1], fields[2] if len(fields) > 2 else "")
    return expected


def write_expected(path, results, names, cases_folder):
    """Rewrites the expectations file from this run's results."""
    header = [
        "Cases of tmp/onnx_node (ONNX's backend node tests, scripts/make_onnx_node_cases.py) that",
        "do not pass in Lumen: NAME STATUS REASON. test/onnx/check_onnx_node_cases.py fails when a",
        "case not listed here does not pass, when a listed case passes or changes status, and on",
        "any crash. Rewrite with: test/onnx/check_onnx_node_cases.py build/lumen_run --write",
        ""
    ] + summary(results, names, cases_folder)
    lines = [f"# {line}".rstrip() for line in header]
    for name in names:
        status, reason = results[name]
        if status != "pass":
            lines.append(f"{name} {status} {reason}")
    path.write_text("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("lumen_run", help="the lumen_run program")
    parser.add_argument("--cases", type=pathlib.Path, default=CASES)
    parser.add_argument("--expected", type=pathlib.Path, default=EXPECTED)
    parser.add_argument("--write", action="store_true", help="rewrite the expectations file")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--timeout", type=float, default=TIMEOUT_SECONDS,
                        help="seconds one case may take")
    args = parser.parse_args()
    names = list_cases(args.cases)
    if not names:
        sys.exit(f"{args.cases}: no cases (run scripts/make_onnx_node_cases.py)")
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {name: pool.submit(run_case, args.lumen_run, args.cases / name, args.timeout)
                   for name in names}
        results = {name: future.result() for name, future in futures.items()}
    problems = [f"{name}: CRASH: {reason}" for name, (status, reason) in results.items()
                if status == "crash"]
    if args.write:
        if problems:
            sys.exit("\n".join(problems + ["not written: a crash is never an expectation"]))
        write_expected(args.expected, results, names, args.cases)
        print(f"wrote {args.expected}")
    expected = read_expected(args.expected)
    for name, (status, reason) in results.items():
        if status in ("crash", "pass") and name not in expected:
            continue
        if name not in expected:
            problems.append(f"{name}: {status} and not listed in {args.expected.name}: {reason}")
        elif status == "pass":
            problems.append(f"{name}: passes now: remove its line from {args.expected.name}")
        elif status != "crash" and status != expected[name][0]:
            problems.append(f"{name}: {status} ({reason}), listed as {expected[name][0]}: update "
                            "its line")
    problems += [f"{name}: listed in {args.expected.name} but no case" for name in expected
                 if name not in results]
    for line in summary(results, names, args.cases)[:2]:
        print(line)
    if problems:
        print(f"{len(problems)} problem(s):\n  " + "\n  ".join(problems))
        return 1
    print(f"every case as {args.expected.name} expects")
    return 0


if __name__ == "__main__":
    sys.exit(main())
