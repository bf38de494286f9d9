"""Edge cases a real user's files hit (from a review): same-named helper modules in two folders,
annotated parameters, files that print, heuristics over type-only arguments, decorator order."""

from __future__ import annotations

from ir_names import with_param_names
from triton_features import TRITON

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from cli_helpers import assert_one_line_error, run_cli

from ttinspect.cli.main import cli

HEADER = "import triton\nimport triton.language as tl\n"


def write(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(body))
    return path


def test_same_named_helpers_in_two_folders(tmp_path):
    for folder, op in (("A", "x + 1.0"), ("B", "x * 3.0")):
        write(tmp_path / folder / "helpers.py", HEADER + f"\n@triton.jit\ndef op(x):\n    return {op}\n")
        write(tmp_path / folder / "k.py", HEADER + "from helpers import op\n\n@triton.jit\n"
              "def kern(x_ptr, y_ptr, n):\n    o = tl.arange(0, 128)\n"
              "    tl.store(y_ptr + o, op(tl.load(x_ptr + o, mask=o < n)), mask=o < n)\n")
    sig = "*fp32:16, *fp32:16, i32:16"
    a = run_cli("dump", tmp_path / "A" / "k.py:kern", "--signature", sig, "--stage", "ttir")
    b = run_cli("dump", tmp_path / "B" / "k.py:kern", "--signature", sig, "--stage", "ttir")
    assert a.exit_code == b.exit_code == 0, a.output + b.output
    assert "arith.addf" in a.output and "arith.mulf" in b.output


def test_annotated_parameters_take_their_type(tmp_path):
    path = write(tmp_path / "ann.py", HEADER + """
@triton.jit
def ann(x_ptr, n: tl.int64, alpha: tl.float32, stride: tl.int32, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + o * stride, tl.load(x_ptr + o * stride, mask=o < n) * alpha, mask=o < n)
""")
    out = run_cli("dump", f"{path}:ann", "--arg", "x_ptr=*fp32", "--arg", "n=4096", "--arg", "alpha=2",
                  "--arg", "stride=1", "--set", "BLOCK=128", "--stage", "ttir").output
    out = with_param_names(out, ["x_ptr", "n", "alpha", "stride"])
    assert "%n: i64 {tt.divisibility = 16 : i32}" in out
    # Triton 3.3's JIT reads only int/uint/bool annotations: a float annotation is ignored, and alpha=2
    # is an i32 there, as its launch would make it.
    alpha = "f32" if TRITON >= (3, 4) else "i32"
    assert f"%alpha: {alpha} loc" in out and "%stride: i32 loc" in out


def test_what_a_file_prints_stays_out_of_json(tmp_path):
    path = write(tmp_path / "p.py", "print('loading my kernels')\n" + HEADER + """
@triton.jit
def k(x_ptr, BLOCK: tl.constexpr = 64):
    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)
""")
    result = CliRunner().invoke(cli, ["report", f"{path}:k", "--arg", "x_ptr=*fp32", "--json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["label"] == "p.py:k"


def test_heuristics_over_type_only_arguments_and_above_autotune(tmp_path):
    path = write(tmp_path / "h.py", HEADER + """
@triton.heuristics({"IS_FP16": lambda a: a["x_ptr"].shape[0] % 2 == 0})
@triton.autotune(configs=[triton.Config({"B": 64}), triton.Config({"B": 128})], key=["n"])
@triton.jit
def k(x_ptr, n, B: tl.constexpr, IS_FP16: tl.constexpr):
    o = tl.arange(0, B)
    tl.store(x_ptr + o, 1.0, mask=o < n)
""")
    listing = json.loads(run_cli("list", path, "--json").output)
    assert listing["kernels"][0]["kind"] == "heuristics"
    result = run_cli("dump", f"{path}:k", "--arg", "x_ptr=*fp16", "--arg", "n=64", "--config", "1")
    assert result.exit_code == 2 and "IS_FP16 could not be computed" in result.output
    assert "x_ptr was given only as" in result.output and "the code read .shape" in result.output


def test_example_with_a_bad_arch(tmp_path):
    path = write(tmp_path / "e.py", HEADER + """
@triton.jit
def k(x_ptr, BLOCK: tl.constexpr = 64):
    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)

TTINSPECT_EXAMPLES = {"e": {"kernel": k, "args": {"x_ptr": "*fp32"}, "arch": 90}}
""")
    result = run_cli("dump", f"{path}:e")
    assert result.exit_code == 2 and "'arch' must be a string" in result.output


def test_signature_may_stop_before_constexprs_given_with_set(tmp_path):
    """`--signature` for the runtime parameters, `--set` for the trailing constexpr: accepted; a missing
    parameter that is neither a constexpr given with --set nor defaulted is still named."""
    path = write(tmp_path / "soft.py", HEADER + """
@triton.jit
def soft(out_ptr, in_ptr, n_cols, SCALE, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + o, mask=o < n_cols, other=0.0)
    tl.store(out_ptr + o, x * SCALE, mask=o < n_cols)
""")
    ok = run_cli("dump", f"{path}:soft", "--signature", "*fp32:16, *fp32:16, i32, fp32", "--set", "BLOCK=1024",
                 "--stage", "ttir")
    assert ok.exit_code == 0, ok.output
    assert "1024" in ok.output
    short = run_cli("dump", f"{path}:soft", "--signature", "*fp32:16, *fp32:16, i32", "--set", "BLOCK=1024",
                    "--stage", "ttir")
    assert short.exit_code == 2 and "no entry for SCALE" in short.output and "BLOCK" not in short.output
    unset = run_cli("dump", f"{path}:soft", "--signature", "*fp32:16, *fp32:16, i32, fp32", "--stage", "ttir")
    assert unset.exit_code == 2 and "no entry for BLOCK" in unset.output


HELPER = """import triton

@triton.jit
def twice(x):
    return x * 2
"""

KERNEL = """import triton
import triton.language as tl
from lib.helper import twice

@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr = 128):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + o, twice(tl.load(x_ptr + o, mask=o < n)), mask=o < n)
"""


def make_project(root):
    (root / "lib").mkdir(parents=True)
    (root / "lib" / "__init__.py").write_text("")
    (root / "lib" / "helper.py").write_text(HELPER)
    (root / "k.py").write_text(KERNEL)
    return root / "k.py"


def test_an_edited_helper_in_a_subfolder_is_compiled_again(tmp_path):
    """The record of what `k.py:k` resolved to lists every user file the kernel was made of (not only its
    folder's): after editing lib/helper.py the kernel is compiled again, in a fresh process as here."""
    import subprocess
    import sys

    kernel = make_project(tmp_path / "proj")
    code = ("import sys; from click.testing import CliRunner; from ttinspect.cli.main import cli; "
            "r = CliRunner().invoke(cli, ['dump', sys.argv[1], '--signature', '*fp32:16, i32', '--stage', 'ttir']); "
            "print(sum(('arith.mulf' in l) or ('arith.addf' in l) for l in r.output.splitlines()))")

    def ops() -> int:
        done = subprocess.run([sys.executable, "-c", code, f"{kernel}:k"], capture_output=True, text=True,
                              timeout=300)
        return int(done.stdout.strip().splitlines()[-1])

    assert ops() == 1
    (tmp_path / "proj" / "lib" / "helper.py").write_text(HELPER.replace("x * 2", "x * 3 + 1"))
    assert ops() == 2


HEURISTIC_AND_PRUNER_THAT_FAIL = '''import triton
import triton.language as tl


def _zero(configs, named_args, **kwargs):
    return [c for c in configs if named_args["n"] // 0]


def _broken(args):
    return {}["missing"] if args["n"] < 0 else 1 // (args["n"] - args["n"])


@triton.autotune(configs=[triton.Config({"BLOCK": 256}), triton.Config({"BLOCK": 512})], key=["n"],
                 prune_configs_by={"early_config_prune": _zero})
@triton.jit
def pruned(x_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + o, 1.0, mask=o < n)


@triton.heuristics({"FLAG": _broken})
@triton.jit
def guessed(x_ptr, n, BLOCK: tl.constexpr, FLAG: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + o, 1.0, mask=o < n)
'''


@pytest.mark.parametrize("kernel, extra, said, line", [
    ("pruned", ["--config", "all"], "its early_config_prune raised ZeroDivisionError", 6),
    ("guessed", ["--set", "BLOCK=128"], "the @triton.heuristics value for FLAG raised ZeroDivisionError", 10),
])
def test_a_heuristic_or_pruner_that_fails_by_itself_names_its_line_not_the_arguments(tmp_path, kernel, extra, said,
                                                                                     line):
    """Given every argument as a value, a rule that fails on its own (a bug, a division by zero) is its own
    line (file:line), not advice to give arguments already given."""
    path = tmp_path / "rules.py"
    path.write_text(HEURISTIC_AND_PRUNER_THAT_FAIL)
    result = run_cli("report", f"{path}:{kernel}", "--arg", "x_ptr=*fp32", "--arg", "n=4096", "--arch", "sm_90",
                     *extra)
    assert_one_line_error(result, 2, said, f"rules.py:{line}")
    assert "give the arguments" not in result.output


@pytest.mark.parametrize("rule", ["args['n'] / 64 > 1", "1024 // args['n']", "args['n'] >> 4", "round(args['n'])"])
def test_a_heuristic_reading_an_argument_known_only_by_type_asks_for_its_value(tmp_path, rule):
    """Whatever operator the rule applies to an argument given only by type (`--arg n=i32`), the advice is
    to give it as a value, never Python's own complaint about a stand-in."""
    path = tmp_path / "rule.py"
    path.write_text(HEURISTIC_AND_PRUNER_THAT_FAIL.replace("_broken}", "lambda args: " + rule + "}"))
    result = run_cli("report", f"{path}:guessed", "--arg", "x_ptr=*fp32", "--arg", "n=i32", "--set", "BLOCK=128",
                     "--arch", "sm_90")
    assert_one_line_error(result, 2, "could not be computed from the arguments given", "n was given only as i32",
                          "--arg n=4096")
    assert "_KnownByTypeOnly" not in result.output


def test_a_compile_error_whose_cause_is_a_bare_key_says_what_failed(tmp_path):
    """libdevice.tanh has no bf16 version: Triton's innermost error is a KeyError whose text is only the key."""
    path = write(tmp_path / "g.py", HEADER + """from triton.language.extra import libdevice

@triton.jit
def gelu(x_ptr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(x_ptr + o, libdevice.tanh(tl.load(x_ptr + o)))
""")
    result = run_cli("report", f"{path}:gelu", "--arch", "sm_90", "--signature", "*bf16:16, 64")
    assert result.exit_code != 0
    first = result.output.splitlines()[0]
    assert f"{path}:8" in first and "KeyError" in first and "bfloat16" in first and "no entry" in first
