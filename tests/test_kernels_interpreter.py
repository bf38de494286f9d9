"""The kernels compute what they claim, checked on the CPU in Triton's interpreter; and the registry is
what the rest of ttinspect relies on (names, pure-data import, arguments that match the kernels).

TRITON_INTERPRET must be set before triton is imported, and the rest of the suite compiles real JIT
kernels in this process, so the interpreter runs in one child process for all cases; each case is then
its own test here, so a failure names the variant and the configuration.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import inspect
import json
import os
import subprocess
import sys
import textwrap

import pytest
from triton_features import HOST_TMA, TRITON

from ttinspect.kernel.options import OPTION_KEYS
from ttinspect.kernel.argument_types import Pointer, TensorDesc

EXPECTED_NAMES = {
    "naive": ("matmul_naive",), "opt": ("matmul_opt",), "square": (), "tutorial": (), "add": (),
    "softmax": (), "tileon": (), "l2_g0": (), "l2_g8": (),
    "ladder_g8": (), "ladder_g8_s4": (), "ladder_g8_s4_mod": (), "opt_tma": (), "attn": ("attn_fwd",),
}
MATMULS = ("naive", "opt", "square", "tutorial", "tileon", "l2_g0", "l2_g8", "ladder_g8", "ladder_g8_s4",
           "ladder_g8_s4_mod", "opt_tma")

# Shapes that are multiples of no block, so every mask matters: partial tiles in M and N, a K tail,
# and K longer than the blocks (so more than one K step runs, which seed 002's bug needed).
ODD = {"M": 100, "N": 90, "K": 70}
SMALL = {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 16, "BLOCK_SIZE_K": 16}

# (case id, variant, problem, config overrides)
CASES = [
    ("naive", "naive", ODD, {}),
    ("naive-16x16x16", "naive", ODD, SMALL),
    ("naive-fp32", "naive", {**ODD, "dtype": "fp32"}, SMALL),
    ("opt", "opt", ODD, {}),
    # 7 x 6 tiles in groups of 3 rows: the last group is short (1 row).
    ("opt-16x16x16-g3", "opt", ODD, {**SMALL, "GROUP_SIZE_M": 3}),
    ("square", "square", ODD, {}),
    ("square-16", "square", ODD, {"BLOCK_SIZE": 16}),
    ("tutorial", "tutorial", ODD, {}),
    ("tutorial-16x16x16-g3", "tutorial", ODD, {**SMALL, "GROUP_SIZE_M": 3}),
    ("tileon", "tileon", ODD, {}),
    ("tileon-16x16x16", "tileon", ODD, {"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16}),
    # Seed 004 has no masks: multiples of the blocks only.
    ("l2_g0", "l2_g0", {"M": 256, "N": 128, "K": 96}, {}),
    ("l2_g8", "l2_g8", {"M": 256, "N": 128, "K": 96}, {}),
    ("l2_g0-16x16x16", "l2_g0", {"M": 112, "N": 96, "K": 48}, SMALL),
    ("l2_g8-16x16x16", "l2_g8", {"M": 112, "N": 96, "K": 48}, SMALL),  # 7 tile rows: one short group
    ("l2_g8-16x16x16-g3", "l2_g8", {"M": 112, "N": 96, "K": 48}, {**SMALL, "GROUP_SIZE_M": 3}),
    ("ladder_g8", "ladder_g8", ODD, {}),
    ("ladder_g8_s4", "ladder_g8_s4", ODD, {}),
    ("ladder_g8_s4_mod", "ladder_g8_s4_mod", ODD, {}),
    ("ladder_g8_s4_mod-16x16x16-g3", "ladder_g8_s4_mod", ODD, {**SMALL, "GROUP_SIZE_M": 3}),
    # TMA: rows must be multiples of 16 bytes; edges (100 and 88 are no multiple of 32) are zero-filled
    # by the copy engine and clipped on store. A persistent grid of 4 programs walks all the tiles.
    ("opt_tma", "opt_tma", {"M": 100, "N": 88, "K": 72},
     {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 16, "GROUP_SIZE_M": 3, "NUM_SMS": 4}),
    ("add", "add", {"n_elems": 1000}, {}),
    ("add-tail", "add", {"n_elems": 5000}, {}),
    ("softmax", "softmax", {"n_rows": 37, "n_cols": 90}, {"BLOCK_SIZE": 128}),
    ("softmax-781", "softmax", {"n_rows": 9, "n_cols": 781}, {"BLOCK_SIZE": 1024}),
    # several K/V steps (the online softmax rescales), two batches
    ("attn", "attn", {"Z": 2, "N_CTX": 128, "HEAD_DIM": 32}, {"HEAD_DIM": 32, "BLOCK_M": 32, "BLOCK_N": 16}),
    ("attn-causal", "attn", {"Z": 2, "N_CTX": 128, "HEAD_DIM": 32},
     {"HEAD_DIM": 32, "BLOCK_M": 32, "BLOCK_N": 16, "CAUSAL": True}),
]

CHILD = textwrap.dedent('''
    import json, sys, traceback
    import torch
    from ttinspect_kernels.registry import VARIANTS

    DTYPES = {"fp16": torch.float16, "fp32": torch.float32, "bf16": torch.bfloat16}
    variants = {v.name: v for v in VARIANTS}

    def run(name, problem_overrides, overrides):
        variant = variants[name]
        problem = {**variant.problem, **problem_overrides}
        config = {**variant.config, **overrides}
        args = variant.make_args(problem, config)
        dtype = DTYPES[problem["dtype"]]
        gen = torch.Generator().manual_seed(0)
        if "a_ptr" in args or "a_desc" in args:  # a matmul (pointers or TMA descriptors)
            a = torch.randn(problem["M"], problem["K"], generator=gen).to(dtype)
            b = torch.randn(problem["K"], problem["N"], generator=gen).to(dtype)
            inputs, reference = (a, b), torch.matmul(a.float(), b.float())
            out_dtype = DTYPES[args["c_ptr" if "c_ptr" in args else "c_desc"].dtype]
        elif name == "add":
            x = torch.randn(problem["n_elems"], generator=gen).to(dtype)
            y = torch.randn(problem["n_elems"], generator=gen).to(dtype)
            inputs, reference, out_dtype = (x, y), x.float() + y.float(), dtype
        elif name == "attn":
            q, k, v = (torch.randn(problem["Z"], problem["N_CTX"], problem["HEAD_DIM"], generator=gen).to(dtype)
                       for _ in range(3))
            logits = q.float() @ k.float().transpose(1, 2) * problem["HEAD_DIM"] ** -0.5
            if config.get("CAUSAL"):
                n = problem["N_CTX"]
                logits = logits.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
            scores = torch.softmax(logits, dim=-1)
            inputs, reference, out_dtype = (q, k, v), scores @ v.float(), dtype
        else:  # softmax
            x = (3 * torch.randn(problem["n_rows"], problem["n_cols"], generator=gen)).to(dtype)
            inputs, reference, out_dtype = (x,), torch.softmax(x.float(), dim=1), dtype
        # Poisoned output: any element the kernel does not write stays NaN.
        out = torch.full(tuple(reference.shape), float("nan"), dtype=out_dtype)
        launcher = variant.load_launcher()
        result = launcher(*inputs, out=out, **config)
        assert result.data_ptr() == out.data_ptr(), "the launcher did not write into `out`"
        unwritten = int(torch.isnan(result).sum())
        assert unwritten == 0, f"{unwritten} of {result.numel()} output elements were never written"
        tol = 1e-2 if dtype == torch.float16 or out_dtype == torch.float16 else 1e-4
        torch.testing.assert_close(result.float(), reference, rtol=tol, atol=tol)

    results = {}
    for case_id, name, problem, overrides in json.load(sys.stdin):
        try:
            run(name, problem, overrides)
            results[case_id] = "ok"
        except Exception:
            results[case_id] = traceback.format_exc()
    print("RESULTS " + json.dumps(results))
''')


def _child_env(**extra: str) -> dict:
    env = dict(os.environ, **extra)
    # The child must import what this process imports (an installed package, or a source checkout).
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return env


def _version(dist: str) -> tuple[int, ...]:
    release = importlib.metadata.version(dist).split("+")[0]
    return tuple(int(part) for part in release.split(".")[:2] if part.isdigit())


@pytest.fixture(scope="session")
def interpreter_results() -> dict[str, str]:
    for module, why in (("torch", "the launchers run on torch tensors"),
                        ("numpy", "Triton's interpreter needs numpy")):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed ({why})")
    if _version("triton") < (3, 9) and _version("numpy") >= (2, 4):
        # Triton 3.6's interpreter calls int() on 1-element arrays (for `range(0, K, ...)`), which
        # numpy 2.4 made an error: every kernel with a K loop would fail for that reason alone. 3.9
        # squeezes the array first; versions in between are not known to, so they are refused too.
        pytest.fail("Triton < 3.9's interpreter breaks with numpy >= 2.4: install numpy<2.4")
    proc = subprocess.run(
        [sys.executable, "-c", CHILD], input=json.dumps(CASES), check=False, capture_output=True, text=True,
        env=_child_env(TRITON_INTERPRET="1"), timeout=900,
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULTS ")]
    if proc.returncode != 0 or not lines:
        pytest.fail(f"the interpreter child failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
    return json.loads(lines[-1].removeprefix("RESULTS "))


@pytest.mark.parametrize("case_id", [case[0] for case in CASES])
def test_matches_torch_in_interpreter(interpreter_results, case_id):
    if case_id.startswith("opt_tma") and not HOST_TMA:
        pytest.skip("host-side tensor descriptors need Triton >= 3.4")
    if case_id.startswith("opt_tma") and TRITON < (3, 6):
        pytest.skip("the interpreter of Triton 3.4 and 3.5 checks descriptor strides in elements, not bytes "
                    "(rejects K=72 fp16, a 144-byte stride)")
    outcome = interpreter_results[case_id]
    assert outcome == "ok", f"{case_id}:\n{outcome}"


def test_every_variant_is_checked_in_interpreter():
    assert {case[1] for case in CASES} == set(EXPECTED_NAMES)


# ---------------------------------------------------------------------------------------------------
# The registry


def _variants():
    from ttinspect_kernels.registry import VARIANTS

    return {v.name: v for v in VARIANTS}


def test_registry_names_and_aliases():
    variants = _variants()
    assert {name: v.aliases for name, v in variants.items()} == EXPECTED_NAMES
    every_name = [n for v in variants.values() for n in (v.name, *v.aliases)]
    assert len(every_name) == len(set(every_name)), "a name or alias is used twice"


def test_registry_imports_neither_triton_nor_torch():
    code = ("import sys, json, ttinspect_kernels.registry as r; r.VARIANTS; "
            "print(json.dumps(sorted(m for m in ('triton', 'torch') if m in sys.modules)))")
    proc = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, env=_child_env())
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == []


def test_kernel_modules_do_not_import_torch():
    modules = sorted({v.module for v in _variants().values()})
    code = (f"import sys, importlib; [importlib.import_module(m) for m in {modules!r}]; "
            "print('torch' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, env=_child_env())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "False"


@pytest.mark.parametrize("name", sorted(EXPECTED_NAMES))
def test_args_and_config_cover_the_kernel_parameters(name):
    """make_args gives every runtime parameter in order; config gives every constexpr."""
    variant = _variants()[name]
    fn = variant.load_kernel()
    runtime = [p.name for p in fn.params if not p.is_constexpr]
    constexpr = {p.name for p in fn.params if p.is_constexpr}
    assert list(variant.make_args(variant.problem, variant.config)) == runtime
    assert {k for k in variant.config if k not in OPTION_KEYS} | ({"num_stages"} & constexpr) == constexpr
    assert {"num_warps", "num_stages"} <= set(variant.config)
    assert "dtype" in variant.problem and variant.seed and variant.description


@pytest.mark.parametrize("name", sorted(EXPECTED_NAMES))
def test_pointer_dtypes_follow_the_problem_dtype(name):
    variant = _variants()[name]
    args = variant.make_args({**variant.problem, "dtype": "fp32"}, variant.config)
    tensors = (Pointer, TensorDesc)
    pointers = {k: v.dtype for k, v in args.items() if isinstance(v, tensors)}
    fixed_fp32_output = {"tileon": "c_ptr"}.get(name)
    assert set(pointers.values()) == {"fp32"}
    args16 = variant.make_args({**variant.problem, "dtype": "fp16"}, variant.config)
    assert {k for k, v in args16.items() if isinstance(v, tensors) and v.dtype == "fp16"} == \
        set(pointers) - {fixed_fp32_output}


def test_matmul_defaults_and_strides():
    for name in MATMULS:
        variant = _variants()[name]
        assert dict(variant.problem) == {"M": 4096, "N": 4096, "K": 4096, "dtype": "fp16"}, name
    args = _variants()["opt"].make_args({"M": 64, "N": 48, "K": 32, "dtype": "fp16"}, {})
    assert (args["stride_am"], args["stride_ak"], args["stride_bk"], args["stride_bn"],
            args["stride_cm"], args["stride_cn"]) == (32, 1, 48, 1, 48, 1)


@pytest.mark.parametrize("launcher", sorted({v.launcher for v in _variants().values()}))
def test_launcher_defaults_match_the_registry(launcher):
    """A launcher takes every config key of its variants, and called with no config it runs the
    registered default (where its variants differ, as l2_g0/l2_g8 in GROUP_SIZE_M, either will do)."""
    variants = [v for v in _variants().values() if v.launcher == launcher]
    params = inspect.signature(variants[0].load_launcher()).parameters
    for key in {k for v in variants for k in v.config}:
        assert key in params, f"{launcher} takes no {key}"
        default = params[key].default
        if default is None:  # computed from the input (softmax's BLOCK_SIZE)
            continue
        registered = {getattr(v.config[key], "name", v.config[key]) for v in variants}  # TlDtype -> name
        assert default in registered, f"{launcher}: {key}={default!r}, registry has {registered}"


def test_autotune_configs():
    variants = _variants()
    opt = variants["opt"]
    # the doc's 17 (Triton tutorial's 16 + doc §5.4), then 5 Hopper configs ttinspect adds (docs/kernels.md)
    assert len(opt.autotune_configs) == 22
    assert dict(opt.config) == {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32,
                                "GROUP_SIZE_M": 8, "num_warps": 4, "num_stages": 4}
    assert dict(opt.config) in [dict(c) for c in opt.autotune_configs[:17]]
    assert len({tuple(sorted(c.items())) for c in opt.autotune_configs}) == 22, "duplicate configs"
    tutorial = variants["tutorial"]
    assert len(tutorial.autotune_configs) == 4
    assert dict(tutorial.config) == dict(tutorial.autotune_configs[0])
    assert all(c["num_warps"] == 4 and c["num_stages"] == 2 for c in tutorial.autotune_configs)


def test_softmax_block_covers_the_default_row():
    variant = _variants()["softmax"]
    assert variant.config["BLOCK_SIZE"] >= variant.problem["n_cols"]
    assert variant.config["BLOCK_SIZE"] & (variant.config["BLOCK_SIZE"] - 1) == 0


# ---------------------------------------------------------------------------------------------------
# Launchers' refusals (they raise before any launch, so no interpreter is needed)


@pytest.mark.parametrize("shape", [(100, 128, 64), (128, 100, 64), (128, 128, 40)])
def test_l2_launcher_refuses_shapes_that_are_not_multiples_of_the_blocks(shape):
    torch = pytest.importorskip("torch")
    from ttinspect_kernels.l2 import launch_l2

    M, N, K = shape
    a, b = torch.zeros(M, K, dtype=torch.float16), torch.zeros(K, N, dtype=torch.float16)
    with pytest.raises(ValueError, match=rf"\(M, N, K\) = \({M}, {N}, {K}\).*\(128, 128, 32\)"):
        launch_l2(a, b)


def test_softmax_launcher_refuses_a_block_shorter_than_the_row():
    torch = pytest.importorskip("torch")
    from ttinspect_kernels.elementwise import launch_softmax

    with pytest.raises(ValueError, match="BLOCK_SIZE=512 is smaller than n_cols=600"):
        launch_softmax(torch.zeros(4, 600), BLOCK_SIZE=512)


def test_matmul_launcher_refuses_mismatched_operands():
    torch = pytest.importorskip("torch")
    from ttinspect_kernels.doc003 import launch_opt

    with pytest.raises(ValueError, match="incompatible shapes"):
        launch_opt(torch.zeros(8, 16), torch.zeros(15, 8))
