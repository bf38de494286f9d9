"""A user's own kernels: `PATH.py:NAME` references, --arg/--signature, declared examples, @triton.autotune
configs, the API and the plugin taking kernel objects — and one clear line for every bad input."""

from __future__ import annotations

from ir_names import with_param_names

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cli_helpers import assert_error_first_line, assert_one_line_error, run_cli, run_cli_ok

from ttinspect import offline_imports

FILE = Path(__file__).parent / "data" / "user_kernels" / "my_mm.py"
ADD_SIGNATURE = "*fp32:16, *fp32:16, *fp32:16, i32:16"
ADD_ARGS = ["--arg", "x_ptr=*fp32", "--arg", "y_ptr=*fp32", "--arg", "out_ptr=*fp32", "--arg", "n=4096"]
MM_ARGS = [x for k, v in (("a_ptr", "*fp16"), ("b_ptr", "*fp16"), ("c_ptr", "*fp16"), ("M", 1024), ("N", 1024),
                          ("K", 1024), ("stride_am", 1024), ("stride_ak", 1), ("stride_bk", 1024), ("stride_bn", 1),
                          ("stride_cm", 1024), ("stride_cn", 1)) for x in ("--arg", f"{k}={v}")]


def write(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


# --- the file, its kernels and examples -------------------------------------------------------

def test_list_a_file_shows_kernels_and_examples():
    listing = json.loads(run_cli_ok("list", FILE, "--json"))
    kernels = {k["name"]: k for k in listing["kernels"]}
    assert list(kernels) == ["matmul", "add_kernel"]  # `grid` is a plain function: not listed
    assert kernels["matmul"]["kind"] == "autotune" and kernels["matmul"]["autotune_configs"] == 3
    assert kernels["add_kernel"]["constexprs"] == ["BLOCK"] and kernels["add_kernel"]["line"] == 40
    assert [e["name"] for e in listing["examples"]] == ["small", "big", "add"]
    assert "kernels in" in run_cli_ok("list", FILE)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_signature_arg_and_example_give_the_same_ptx(arch):
    """Three ways to say the same launch; a JIT function object through build_jit is the fourth."""
    by_signature = run_cli_ok("dump", f"{FILE}:add_kernel", "--signature", ADD_SIGNATURE, "--arch", arch, "--no-header")
    by_arg = run_cli_ok("dump", f"{FILE}:add_kernel", *ADD_ARGS, "--arch", arch, "--no-header")
    by_example = run_cli_ok("dump", f"{FILE}:add", "--arch", arch, "--no-header")
    assert by_signature == by_arg == by_example
    assert ".visible .entry add_kernel" in by_arg and f".target sm_{arch[3:]}" in by_arg

    import importlib.util

    from ttinspect import Pointer, build_jit

    spec = importlib.util.spec_from_file_location("my_mm_direct", FILE)
    module = importlib.util.module_from_spec(spec)
    with offline_imports():  # Triton 3.3's @triton.autotune needs a GPU driver at import otherwise
        spec.loader.exec_module(module)
    built = build_jit(module.add_kernel, {"x_ptr": Pointer("fp32"), "y_ptr": Pointer("fp32"),
                                          "out_ptr": Pointer("fp32"), "n": 4096}, {"BLOCK": 1024}, arch)
    assert built.artifacts.text("ptx") == by_arg


def test_specialization_follows_the_launch_rules():
    names = ["x_ptr", "y_ptr", "out_ptr", "n"]
    aligned = with_param_names(run_cli_ok("dump", f"{FILE}:add_kernel", "--signature", ADD_SIGNATURE, "--stage",
                                          "ttir"), names)
    assert "%n: i32 {tt.divisibility = 16 : i32}" in aligned
    odd = with_param_names(run_cli_ok("dump", f"{FILE}:add_kernel", "--signature", "*fp32:16, *fp32:16, *fp32, i32",
                                      "--stage", "ttir"), names)
    assert "%n: i32 loc" in odd and "%out_ptr: !tt.ptr<f32> loc" in odd
    one = run_cli_ok("dump", f"{FILE}:add_kernel", "--signature", "*fp32:16, *fp32:16, *fp32:16, i32:1", "--stage",
                     "ttir")
    assert "%n:" not in one and "%arg3:" not in one  # equal to 1: folded into a constant, as a launch does
    bigger = run_cli_ok("dump", f"{FILE}:add_kernel", *ADD_ARGS, "--set", "BLOCK=256", "--stage", "ttir")
    assert "tensor<256xi32>" in bigger


def test_declared_examples_diff_by_name():
    data = json.loads(run_cli_ok("diff", f"{FILE}:small", f"{FILE}:big", "--json"))
    changes = {c["key"]: c for c in data["changes"]}
    assert changes["num_warps"]["a"] == 4 and changes["num_warps"]["b"] == 8
    assert "shared_memory" in changes
    assert data["a"]["label"] == "my_mm.py:small#1" and data["b"]["label"] == "my_mm.py:big#3"


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_autotune_config_all_is_one_row_per_config(arch):
    rows = json.loads(run_cli_ok("report", f"{FILE}:matmul", *MM_ARGS, "--config", "all", "--arch", arch, "--json"))
    assert [r["label"] for r in rows] == ["my_mm.py:matmul#1", "my_mm.py:matmul#2", "my_mm.py:matmul#3"]
    assert [r["config"]["num_stages"] for r in rows] == [3, 4, 3]
    assert all(r["config"]["EVEN_K"] is True for r in rows)  # the heuristic, computed from K and BLOCK_K
    for row in rows:
        facts = row["facts"]
        assert facts["fits"] is True and isinstance(facts["registers"], int) and facts["spills"] == 0
        assert facts["pipeline_depth"] == row["config"]["num_stages"]
        assert facts["tensor_core_path"] == ("wgmma" if arch == "sm_90" else "mma.sync")
        assert "no prune_configs_by" in row["note"]
    table = run_cli_ok("report", f"{FILE}:matmul", *MM_ARGS, "--config", "all", "--arch", arch)
    assert "3 autotune configs of my_mm.py:matmul" in table and any(row.startswith("#2 ") for row in table.splitlines())


def test_one_autotune_config_and_the_heuristic():
    r2 = json.loads(run_cli_ok("report", f"{FILE}:matmul", *MM_ARGS, "--config", "2", "--json"))
    assert r2["config"]["BLOCK_M"] == 128 and r2["facts"]["pipeline_depth"]["value"] == 4
    odd_k = json.loads(run_cli_ok("report", f"{FILE}:matmul", *[a.replace("K=1024", "K=1000") for a in MM_ARGS],
                                  "--config", "1", "--json"))
    assert odd_k["config"]["EVEN_K"] is False


def test_warm_file_reference_imports_neither_triton_nor_the_file(tmp_path):
    run_cli_ok("dump", f"{FILE}:add", "--stage", "ptx")  # cold: compiles and records the reference
    code = ("import sys; from ttinspect.cli.main import main; sys.argv = ['ttinspect', 'dump', sys.argv[1], '--stage', "
            "'ptx']; import contextlib, io\nwith contextlib.redirect_stdout(io.StringIO()):\n"
            "    try: main()\n    except SystemExit: pass\n"
            "print(sorted(m for m in ('triton', 'torch') if m in sys.modules), "
            "any(m.startswith('ttinspect_user_') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, f"{FILE}:add"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[] False", out.stderr


def test_editing_the_file_recompiles(tmp_path):
    path = write(tmp_path, "k.py", """
        import triton
        import triton.language as tl

        @triton.jit
        def k(x_ptr, BLOCK: tl.constexpr):
            tl.store(x_ptr + tl.arange(0, BLOCK), tl.arange(0, BLOCK))
        """)
    first = run_cli_ok("dump", f"{path}:k", "--arg", "x_ptr=*i32", "--set", "BLOCK=64", "--stage", "ttir")
    path.write_text(path.read_text().replace("tl.arange(0, BLOCK))", "tl.arange(0, BLOCK) * 2)"))
    second = run_cli_ok("dump", f"{path}:k", "--arg", "x_ptr=*i32", "--set", "BLOCK=64", "--stage", "ttir")
    assert first != second and "arith.muli" in second


def test_source_attribution_uses_the_users_file():
    out = run_cli_ok("dump", f"{FILE}:add", "--stage", "ptx", "--source")
    assert "tl.store(out_ptr + offsets" in out
    data = json.loads(run_cli_ok("report", f"{FILE}:add", "--by-line", "--json"))
    assert data["kernel_file"] == str(FILE)


# --- the API and the plugin take kernel objects and file references -----------------------------

def _module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("my_mm_api", FILE)
    module = importlib.util.module_from_spec(spec)
    with offline_imports():  # Triton 3.3's @triton.autotune needs a GPU driver at import otherwise
        spec.loader.exec_module(module)
    return module


def test_inspect_takes_objects_and_file_references():
    from ttinspect import Pointer, diff, inspect

    module = _module()
    args = {"a_ptr": Pointer("fp16"), "b_ptr": Pointer("fp16"), "c_ptr": Pointer("fp16"), "M": 1024, "N": 1024,
            "K": 1024, "stride_am": 1024, "stride_ak": 1, "stride_bk": 1024, "stride_bn": 1, "stride_cm": 1024,
            "stride_cn": 1}
    r = inspect(module.matmul, args=args, config=3, arch="sm_90")
    assert r.pipeline_depth == 3 and r.num_warps == 8 and r.tensor_core_path == "wgmma"
    by_set = inspect(module.matmul, args=args, config={"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64,
                                                       "num_warps": 8, "num_stages": 3}, arch="sm_90")
    assert by_set.build.artifacts.text("ptx") == r.build.artifacts.text("ptx")
    assert inspect(f"{FILE}:big", arch="sm_90").build.artifacts.text("ptx") == r.build.artifacts.text("ptx")
    d = diff(f"{FILE}:small", f"{FILE}:big")
    assert any(c.key == "num_warps" for c in d.changes)
    plain = inspect(module.add_kernel, args={"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": 4096})
    assert plain.tensor_core_path == "none"
    with pytest.raises(Exception, match="autotune'd over 3 configs"):
        inspect(module.matmul, args=args)


def test_plugin_expect_takes_a_reference(ttinspect):
    from ttinspect.pytest_plugin import expect

    expect(f"{FILE}:small", pipeline_depth=3, num_warps=4)
    signature = "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, 1024, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1"
    r = ttinspect.inspect(f"{FILE}:matmul", signature=signature, config=2)
    ttinspect.expect(r, pipeline_depth=4)


# --- bad input: one clear line, a non-zero exit, never a traceback --------------------------------

def test_missing_file():
    assert_one_line_error(run_cli("report", "nope/my_mm.py:matmul"), 2, "nope/my_mm.py: no such file")


def test_no_such_kernel_lists_the_kernels():
    assert_one_line_error(run_cli("report", f"{FILE}:matmull"), 2, "no kernel or example 'matmull'",
                          "matmul, add_kernel",
                          "examples: small, big, add")


def test_not_a_kernel():
    assert_one_line_error(run_cli("report", f"{FILE}:grid"), 2, "is a function, not a @triton.jit kernel")


def test_file_without_a_name():
    assert_one_line_error(run_cli("report", str(FILE)), 2, "name a kernel or an example", "ttinspect list")


def test_import_error_names_the_line(tmp_path):
    path = write(tmp_path, "boom.py", """
        import triton

        raise ValueError("no config for this machine")
        """)
    assert_one_line_error(run_cli("report", f"{path}:k"), 2, "raised ValueError: no config for this machine",
                          f"{path}:4")
    missing = write(tmp_path, "needs.py", "import not_a_module_anywhere\n")
    assert_one_line_error(run_cli("list", missing), 2, "ModuleNotFoundError", f"{missing}:1")


def test_syntax_error_names_the_line(tmp_path):
    path = write(tmp_path, "bad.py", "def k(:\n    pass\n")
    assert_one_line_error(run_cli("dump", f"{path}:k"), 2, f"{path}:1: SyntaxError")


def test_signature_arity_names_the_parameters():
    assert_one_line_error(run_cli("dump", f"{FILE}:add_kernel", "--signature", "*fp32:16, *fp32:16"), 2,
                          "2 entries", "no entry for out_ptr, n")
    assert_one_line_error(run_cli("dump", f"{FILE}:add_kernel", "--signature", ADD_SIGNATURE + ", 64, 7"), 2,
                          "too many")


def test_bad_argument_values_name_the_parameter():
    assert_one_line_error(run_cli("dump", f"{FILE}:add_kernel", *ADD_ARGS[:-2], "--arg", "n=hello"), 2, "--arg n",
                          "'hello'")
    assert_one_line_error(run_cli("dump", f"{FILE}:add_kernel", "--signature", "*fp33, *fp32, *fp32, i32"), 2,
                          "--signature entry 1", "unknown pointer type")
    assert_one_line_error(run_cli("dump", f"{FILE}:add_kernel", *ADD_ARGS, "--arg", "z=1"), 2, "no parameter(s) z")
    assert_one_line_error(run_cli("dump", f"{FILE}:add_kernel", *ADD_ARGS[:-2]), 2,
                          "add_kernel needs 1 argument(s) n (--arg NAME=VALUE")


def test_constexpr_without_a_value(tmp_path):
    path = write(tmp_path, "k.py", """
        import triton
        import triton.language as tl

        @triton.jit
        def k(x_ptr, BLOCK: tl.constexpr):
            tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)
        """)
    assert_one_line_error(run_cli("dump", f"{path}:k", "--arg", "x_ptr=*fp32"), 2, "k needs 1 constexpr(s) BLOCK")


def test_every_missing_value_is_named_at_once(tmp_path):
    path = write(tmp_path, "k.py", """
        import triton
        import triton.language as tl

        @triton.jit
        def k(x_ptr, y_ptr, n, stride, BLOCK: tl.constexpr, GROUP: tl.constexpr, EVEN: tl.constexpr = True):
            tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)
        """)
    line = assert_one_line_error(run_cli("dump", f"{path}:k", "--arg", "x_ptr=*fp32"), 2,
                                 "3 argument(s) y_ptr, n, stride", "2 constexpr(s) BLOCK, GROUP")
    assert line.endswith("--signature: x_ptr, y_ptr, n, stride, BLOCK, GROUP, EVEN")


def test_compile_error_points_at_the_users_line(tmp_path):
    path = write(tmp_path, "k.py", """
        import triton
        import triton.language as tl

        @triton.jit
        def k(x_ptr, BLOCK: tl.constexpr):
            offsets = tl.arange(0, BLOCK)
            tl.store(x_ptr + offsets, 1.0)
        """)
    line = assert_error_first_line(run_cli("dump", f"{path}:k", "--arg", "x_ptr=*fp32", "--set", "BLOCK=100"), 3)
    assert f"{path}:7" in line and "power of 2" in line


def test_autotune_misuse():
    assert_one_line_error(run_cli("dump", f"{FILE}:matmul", *MM_ARGS), 2, "autotune'd over 3 configs",
                          "--config N (1-3)")
    assert_one_line_error(run_cli("dump", f"{FILE}:matmul", *MM_ARGS, "--config", "7"), 2, "has 3 autotune config(s)")
    assert_one_line_error(run_cli("dump", f"{FILE}:matmul", *MM_ARGS, "--config", "all"), 2, "use `ttinspect report")
    assert_one_line_error(run_cli("dump", f"{FILE}:matmul", *MM_ARGS, "--config", "best"), 2, "--config best is for")
    assert_one_line_error(run_cli("dump", f"{FILE}:add_kernel", *ADD_ARGS, "--config", "1"), 2,
                          "not @triton.autotune'd")
    assert_one_line_error(run_cli("dump", f"{FILE}:matmul", *MM_ARGS, "--config", "1", "--set", "EVEN_K=0"), 2,
                          "EVEN_K: computed by", "@triton.heuristics")


def test_heuristic_that_needs_a_value():
    args = [a if not a.startswith("K=") else "K=i32:16" for a in MM_ARGS]
    assert_one_line_error(run_cli("dump", f"{FILE}:matmul", *args, "--config", "1"), 2,
                          "heuristics value for EVEN_K could not be computed")


def test_variant_options_stay_variant_options():
    assert_one_line_error(run_cli("dump", "opt", "--arg", "M=1"), 2, "shipped variant", "--arg")
    assert_one_line_error(run_cli("dump", "opt:num_stages=3", "--signature", "i32"), 2, "--signature")
