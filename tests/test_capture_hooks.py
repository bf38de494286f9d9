"""The capture's hooks inside a captured program (ttinspect/capture/hooks.py and its modules).

The central promise: a compile record's `--signature` text, with its constexprs and options given as `--set`
and its target as `--arch`, makes ttinspect's offline compile the very specialization the JIT compiled — the
same PTX, byte for byte. Checked here on real JIT compiles for sm_90 without a GPU: Triton's driver is a
stand-in (tests/data/capture_kernels/fake_gpu.py) whose launcher does nothing, so the JIT's own
specialization, compile and launch path run. Then: the interpreter's records match the JIT's, launches are
aggregated with bounded summaries, autotune and heuristics records from a program run under
TRITON_INTERPRET=1, failures stay out of the program, and uninstall() puts everything back.
"""

from __future__ import annotations

import hashlib
import importlib.util
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

triton = pytest.importorskip("triton")
torch = pytest.importorskip("torch")

from capture_programs import Recorder  # noqa: E402
from ttinspect.capture import format as capture_format  # noqa: E402
from ttinspect.capture import hooks, recording, triton_hooks  # noqa: E402
from ttinspect.capture import session as capture_session  # noqa: E402
from ttinspect.capture.signature_text import constexpr_json, literal, signature_text  # noqa: E402
from ttinspect.kernel.arguments import parse_signature  # noqa: E402
from ttinspect.kernel.overrides import parse_settings  # noqa: E402
from ttinspect.refs.resolver import RefOptions, resolve_one  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "tests" / "data" / "capture_kernels"
SHAPES = KERNELS / "capture_shapes.py"
_loaded = itertools.count()


@pytest.fixture
def kernels_path(monkeypatch):
    monkeypatch.syspath_prepend(str(KERNELS))
    yield KERNELS


def python_path() -> str:
    """PYTHONPATH for a child process: ttinspect, then whatever this one was given (another Triton)."""
    return os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])


def load_shapes(interpret: bool = False) -> Any:
    """capture_shapes.py as a module of its own (a fresh JIT cache each time)."""
    name = f"capture_shapes_{next(_loaded)}"
    spec = importlib.util.spec_from_file_location(name, SHAPES)
    module = importlib.util.module_from_spec(spec)
    previous = os.environ.get("TRITON_INTERPRET")
    os.environ["TRITON_INTERPRET"] = "1" if interpret else "0"
    sys.modules.pop("capture_helpers", None)  # its helper made again: interpreted or jitted as the kernels
    try:
        spec.loader.exec_module(module)
    finally:
        if previous is None:
            del os.environ["TRITON_INTERPRET"]
        else:
            os.environ["TRITON_INTERPRET"] = previous
    return module


@pytest.fixture
def fake_gpu(kernels_path):
    from fake_gpu import fake_gpu as stand_in

    with stand_in() as driver:
        yield driver


@pytest.fixture
def recorder():
    recording_session = Recorder()
    hooks.install(recording_session)
    yield recording_session
    hooks.uninstall()


def descriptor(tensor: Any, block: list[int]) -> Any:
    from triton.tools.tensor_descriptor import TensorDescriptor

    return TensorDescriptor.from_tensor(tensor, block)


def f16(*shape: int) -> Any:
    return torch.zeros(*shape, dtype=torch.float16)


# name: (kernel, arguments, keyword arguments, the signature text the capture writes)
CASES = {
    "aligned pointers, divisible ints, a unit stride": (
        "copy_rows", lambda: (f16(64, 64), f16(64, 64), 64, 64, 64, 1), {"BLOCK": 64},
        "*fp16:16, *fp16:16, i32:16, i32:16, i32:16, 1, 64"),
    "an unaligned view, odd ints": (
        "copy_rows", lambda: (f16(4096).view(-1)[1:], f16(4096), 17, 33, 65, 2), {"BLOCK": 64},
        "*fp16, *fp16:16, i32, i32, i32, i32, 64"),
    "an int past 32 bits": (
        "copy_rows", lambda: (f16(64), f16(64), 2**31 + 16, 64, 64, 1), {"BLOCK": 64},
        "*fp16:16, *fp16:16, i64:16, i32:16, i32:16, 1, 64"),
    "options given at the launch": (
        "copy_rows", lambda: (f16(64), f16(64), 64, 64, 64, 1), {"BLOCK": 128, "num_warps": 8, "num_stages": 2},
        "*fp16:16, *fp16:16, i32:16, i32:16, i32:16, 1, 128"),
    "a dtype constexpr, a bool constexpr, a runtime float and bool, a helper in another file": (
        "cast_scale", lambda: (f16(4096), torch.zeros(4096), 4096, 0.5, True),
        {"OUT": triton.language.float32, "SQUARE": True, "BLOCK": 128},
        "*fp16:16, *fp32:16, i32:16, fp32, u1, tl.float32, true, 128"),
    "a string constexpr at the end (given by --set)": (
        "cast_scale", lambda: (torch.zeros(1000, dtype=torch.bfloat16), torch.zeros(1000, dtype=torch.bfloat16),
                               1000, 2.0, False),
        {"OUT": triton.language.bfloat16, "SQUARE": False, "BLOCK": 256, "ACTIVATION": "relu"},
        "*bf16:16, *bf16:16, i32, fp32, u1, tl.bfloat16, false, 256"),
    "do_not_specialize: a 1 and a multiple of 16 stay plain i32": (
        "fill", lambda: (torch.zeros(64), 1, 32), {"BLOCK": 128}, "*fp32:16, i32, i32, 128"),
    "an annotated int64, a None": (
        "wide_index", lambda: (torch.zeros(64), 4096, None), {"BLOCK": 64}, "*fp32:16, i64:16, none, 64"),
    "an annotated int64 equal to 1 is not folded": (
        "wide_index", lambda: (torch.zeros(64), 1, torch.zeros(1)), {"BLOCK": 64}, "*fp32:16, i64, *fp32:16, 64"),
    "host tensor descriptors": (
        "tile_copy", lambda: (descriptor(f16(128, 128), [64, 32]), descriptor(f16(128, 128), [64, 32])),
        {"BLOCK_M": 64, "BLOCK_N": 32}, "tensordesc<fp16[64, 32]>, tensordesc<fp16[64, 32]>, 64, 32"),
}


def jit_record(name: str, args: tuple, kwargs: dict) -> tuple[dict[str, Any], Any]:
    """The record the capture makes of the JIT's compile of this launch, and the compiled kernel."""
    module = load_shapes()
    session = Recorder()
    hooks.install(session)
    try:
        kernel = getattr(module, name).warmup(*args, grid=(1,), **kwargs)
    finally:
        hooks.uninstall()
    (record,) = session.compiles
    return record, kernel


def as_set(value: Any) -> str:
    """A recorded constexpr or option as `--set` takes it (what a capture reader passes on)."""
    return value if isinstance(value, str) else literal(value, {})


@pytest.mark.parametrize("case", list(CASES))
def test_the_signature_text_recompiles_the_same_ptx(case, fake_gpu):
    name, make_args, kwargs, expected = CASES[case]
    if name == "tile_copy" and not hasattr(triton.language, "make_tensor_descriptor"):
        pytest.skip(f"Triton {triton.__version__} has no host tensor descriptors")
    record, kernel = jit_record(name, make_args(), kwargs)
    assert record["signature"] == expected.replace("u1", triton_hooks.bool_type())  # i1 on Triton 3.3
    assert "signature_problem" not in record
    assert record["target"] == {"backend": "cuda", "arch": 90, "warp_size": 32}
    assert len(parse_signature(record["signature"])) <= len(record["params"])
    settings = [f"{key}={as_set(value)}" for key, value in {**record["constexprs"], **record["options"]}.items()
                if value is not None]
    build = resolve_one(f"{SHAPES}:{name}", RefOptions(parse_settings(settings), {}, record["signature"], None,
                                                        "sm_90"))
    assert build.artifacts.text("ptx") == kernel.asm["ptx"]


def test_the_record_names_where_the_kernel_lives(fake_gpu):
    record, kernel = jit_record("cast_scale", (f16(64), torch.zeros(64), 64, 0.5, True),
                                {"OUT": triton.language.float32, "SQUARE": True, "BLOCK": 64})
    assert record["file"] == str(SHAPES) and record["name"] == record["qualname"] == "cast_scale"
    assert SHAPES.read_text().splitlines()[record["def_line"] - 1].startswith("def cast_scale(")
    assert set(record["sources"]) == {str(SHAPES), str(KERNELS / "capture_helpers.py")}
    assert record["sha256"] == hashlib.sha256(SHAPES.read_bytes()).hexdigest()
    assert record["constexprs"] == {"OUT": "tl.float32", "SQUARE": True, "BLOCK": 64, "ACTIVATION": "none"}
    assert record["options"]["num_warps"] == 4 and record["inductor"] is False and record["autotuned"] is None
    version = record["options"]["ptx_version"]  # what the run's ptxas chose, so another toolkit writes the same
    assert f".version {version // 10}.{version % 10}\n" in kernel.asm["ptx"]
    assert record["triton_cache_key"] == kernel.hash
    assert any(path.endswith(".ptx") for path in os.listdir(record["triton_cache_dir"]))


INTERPRETED = [c for c in CASES if CASES[c][0] != "tile_copy"]

# Run under TRITON_INTERPRET=1 in a process of its own (as a captured program is): the interpreter patches
# triton.language while it runs, which a later compile in the same process would trip on (Triton 3.3-3.5).
_INTERPRET = """
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
import test_capture_hooks as t
from ttinspect.capture import hooks
out = {}
for case in t.INTERPRETED:
    name, make_args, kwargs, _ = t.CASES[case]
    module = t.load_shapes(interpret=True)
    session = t.Recorder()
    hooks.install(session)
    try:
        getattr(module, name)[(1,)](*make_args(), **kwargs)
    except Exception as error:
        hooks.uninstall()
        try:  # the same launch without the capture: does this Triton's interpreter run it at all?
            getattr(t.load_shapes(interpret=True), name)[(1,)](*make_args(), **kwargs)
        except Exception:
            out[case] = {"skip": f"the interpreter fails on it without capture too: {error!r}"[:300]}
            continue
        raise
    finally:
        hooks.uninstall()
    out[case] = {"compiles": session.compiles, "launches": session.launch_count()}
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def interpreted(kernels_path_module):
    done = subprocess.run([sys.executable, "-c", _INTERPRET, str(Path(__file__).parent), str(KERNELS)],
                          capture_output=True, text=True, timeout=600, cwd=ROOT,
                          env={**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": python_path()})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def kernels_path_module():
    sys.path.insert(0, str(KERNELS))
    yield KERNELS
    sys.path.remove(str(KERNELS))


@pytest.mark.parametrize("case", INTERPRETED)
def test_the_interpreter_records_what_a_gpu_launch_would_compile(case, interpreted, fake_gpu):
    name, make_args, kwargs, _ = CASES[case]
    if "skip" in interpreted[case]:  # Triton 3.6-3.7's interpreter and a runtime bool under numpy 2
        pytest.skip(f"Triton {triton.__version__}: {interpreted[case]['skip']}")
    record, _ = jit_record(name, make_args(), kwargs)
    (made,) = interpreted[case]["compiles"]
    assert made["signature"] == record["signature"]
    assert made["constexprs"] == record["constexprs"]
    assert made["target"] is None and made["triton_cache_key"] is None
    assert made["options"] == {k: v for k, v in kwargs.items() if k in ("num_warps", "num_stages")}
    assert interpreted[case]["launches"] == 1


def read_part(folder: Path) -> capture_format.Capture:
    (part,) = folder.iterdir()
    return capture_format.read(part)


def test_launches_are_counted_per_site_with_bounded_summaries(fake_gpu, tmp_path):
    module = load_shapes()
    warm = torch.zeros(64)
    module.fill[(1,)](warm, 64, 0, BLOCK=64)  # compiled before the capture: recorded at its first launch
    recording.begin(tmp_path)
    try:
        for _ in range(50):
            module.fill[(3,)](warm, 64, 0, BLOCK=64)
        for size in [64, 80, 96, 112, 128, 144] * 3:
            x = f16(size)
            module.copy_rows[lambda meta: (triton.cdiv(meta["n_rows"], 32), 2)](x, x, size, 1, 1, 1, BLOCK=64)
        module.fill.warmup(warm, 64, 0, BLOCK=32, grid=(1,))  # a warmup compiles, it does not launch
    finally:
        recording.finish(0)
    capture = read_part(tmp_path)
    fill, copy = (capture.named("fill")[0].id,
                  [c.id for c in capture.compiles if c.name == "copy_rows"])
    here = Path(__file__).read_text().splitlines()
    (fill_sites,) = capture.launches_of(fill)
    assert fill_sites.count == 50 and fill_sites.grids == ((3, 1, 1),)
    assert here[int(fill_sites.site.rsplit(":", 1)[1]) - 1].strip().startswith("module.fill[(3,)]")
    assert fill_sites.args == ({"out": {"dtype": "float32", "shape": [64], "strides": [1]}, "n": 64, "seed": 0},)
    copies = [entry for c in copy for entry in capture.launches_of(c)]
    assert sum(entry.count for entry in copies) == 18
    grids = {grid for entry in copies for grid in entry.grids}
    assert grids == {(2, 2, 1), (3, 2, 1), (4, 2, 1), (5, 2, 1)}
    for entry in copies:
        assert 1 <= len(entry.args) <= capture_session.MAX_ARGS and len(entry.grids) <= capture_session.MAX_GRIDS
        assert all(set(a["src"]) == {"dtype", "shape", "strides"} for a in entry.args)
        # which grid went with which arguments: the grid is cdiv(n_rows, 32) of the launch's own n_rows
        assert entry.pairs and all(entry.grids[g][0] == -(-entry.args[a]["n_rows"] // 32) for g, a in entry.pairs)
    assert len(capture.named("fill")) == 2  # the warmup's compile (BLOCK=32) is recorded, never launched


def test_a_loop_is_reported_at_powers_of_two_then_every_1024_launches(fake_gpu):
    module = load_shapes()
    x = torch.zeros(8)
    session = Recorder()
    hooks.install(session)
    try:
        for _ in range(3000):
            module.fill[(1,)](x, 8, 0, BLOCK=32)
    finally:
        hooks.uninstall()  # what is pending is reported on the way out
    counts = [entry[-1] for entry in session.launches]
    assert counts == [1, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 952]
    assert {entry[:3] for entry in session.launches} == {("k1", f"{__file__}:{_line_of('for _ in range(3000)') + 1}",
                                                          (1, 1, 1))}
    assert all(entry[3] == {"out": {"dtype": "float32", "shape": [8], "strides": [1]}, "n": 8, "seed": 0}
               for entry in session.launches[:-1]) and session.launches[-1][3] is None


def _line_of(text: str) -> int:
    return next(number for number, line in enumerate(Path(__file__).read_text().splitlines(), 1) if text in line)


def test_a_failing_record_is_one_warning_and_the_program_goes_on(fake_gpu, capsys):
    class Broken(Recorder):
        def add_compile(self, record: dict[str, Any]) -> str:
            raise OSError("disk full")

    module = load_shapes()
    session = Broken()
    hooks.install(session)
    try:
        for _ in range(3):
            module.fill[(1,)](torch.zeros(8), 8, 0, BLOCK=32)
            module.fill[(1,)](torch.zeros(8), 8, 0, BLOCK=64)
    finally:
        hooks.uninstall()
    lines = [line for line in capsys.readouterr().err.splitlines() if "ttinspect" in line]
    assert lines == ["ttinspect: warning: capture skipped a record (OSError: disk full); the program goes on"]
    assert session.launches == []


def patch_points() -> dict[str, Any]:
    from triton.runtime import autotuner, jit

    interpreter = sys.modules.get("triton.runtime.interpreter")
    return {"triton.compile": triton.compile, "triton.compiler.compile": triton.compiler.compile,
            "compiler.compile": triton.compiler.compiler.compile, "JITFunction.run": jit.JITFunction.run,
            "Autotuner.run": autotuner.Autotuner.run, "Autotuner._bench": autotuner.Autotuner._bench,
            "Autotuner.prune_configs": autotuner.Autotuner.prune_configs,
            "Heuristics.run": autotuner.Heuristics.run,
            "InterpretedFunction": dict(vars(interpreter.InterpretedFunction)) if interpreter else None,
            "meta_path": list(sys.meta_path)}


def test_uninstall_restores_everything(fake_gpu):
    load_shapes(interpret=True)  # the interpreter's module is imported, so its patch point is there too
    module = load_shapes()
    before = patch_points()
    session = Recorder()
    hooks.install(session)
    during = patch_points()
    assert [k for k in before if before[k] != during[k]] == list(before)
    module.fill[(1,)](torch.zeros(8), 8, 0, BLOCK=32)
    assert vars(module.fill)["compile"] is triton.compile  # the JIT bound the wrapper on its first launch
    hooks.uninstall()
    assert patch_points() == before
    assert vars(module.fill)["compile"] is triton.compile is before["triton.compile"]
    module.fill[(1,)](torch.zeros(8), 8, 0, BLOCK=64)
    assert len(session.compiles) == 1 and session.launch_count() == 1


def test_hooks_wait_for_triton_to_be_imported():
    script = """
import sys
from ttinspect.capture import hooks
hooks.install(object())
assert "triton" not in sys.modules
import triton
from triton.runtime.jit import JITFunction
assert triton.compile.__wrapped__ is triton.compiler.compiler.compile.__wrapped__
assert JITFunction.run.__qualname__.startswith("_jit_run_wrapper")
hooks.uninstall()
assert not hasattr(triton.compile, "__wrapped__") and JITFunction.run.__qualname__ == "JITFunction.run"
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": python_path()})
    assert done.stdout.strip() == "ok", done.stderr


def test_autotune_and_heuristics_under_the_interpreter(tmp_path):
    recorded = ("import runpy, sys; from pathlib import Path; from ttinspect.capture import recording; "
                "recording.begin(Path(sys.argv[1])); runpy.run_path(sys.argv[2], run_name='__main__'); "
                "recording.finish(0)")
    done = subprocess.run([sys.executable, "-c", recorded, str(tmp_path), str(KERNELS / "tuned_program.py")],
                          capture_output=True, text=True, timeout=600, cwd=ROOT,
                          env={**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": python_path()})
    assert done.returncode == 0, done.stderr
    capture = read_part(tmp_path)
    assert capture.header.interpreter and capture.end is not None and capture.end.launches == 4
    first, second = capture.autotune
    for tuned, n, even in ((first, 256, True), (second, 100, False)):
        assert tuned.name == "add_one" and tuned.key["n"] == n and tuned.key["x.dtype"] == "torch.float32"
        assert [c["kwargs"]["BLOCK"] for c in tuned.configs] == [32, 64, 128]
        assert tuned.configs[2]["num_stages"] == 2 and tuned.timings_ms is None and tuned.pruned_to is None
        assert len(tuned.compiles) == 3
        winner = capture.compile(tuned.compiles[tuned.best])
        assert winner.constexprs == {"BLOCK": tuned.configs[tuned.best]["kwargs"]["BLOCK"], "EVEN": even}
        assert capture.launch_count(winner.id) == (3 if n == 256 else 1)  # the autotuner's timing runs not counted
    assert all(c.autotuned == {"configs": 3} and c.target is None for c in capture.compiles)
    values = {(h.compile, h.values["EVEN"]) for h in capture.heuristics}
    assert values == {(c.id, c.constexprs["EVEN"]) for c in capture.compiles}
    (entry,) = capture.launches_of(first.compiles[first.best])
    assert entry.grids == ((triton.cdiv(256, first.configs[first.best]["kwargs"]["BLOCK"]), 1, 1),)


# --- the signature text on its own --------------------------------------------------------------------------

DTYPES = {"fp16": "float16", "bf16": "bfloat16"}


@pytest.mark.parametrize("signature, constants, attrs, text, problem", [
    ({"a": "*fp16", "n": "i32", "B": "constexpr"}, {(2,): 64}, {(0,): [["tt.divisibility", 16]], (1,): []},
     "*fp16:16, i32, 64", None),
    ({"a": ("*fp16", "*fp16"), "n": "i32", "B": "constexpr"}, {(2,): 64}, {(0, 0): [["tt.divisibility", 16]]},
     "none, i32, 64", "tuple"),
    ({"a": "*fp8e8m0", "n": "i32", "B": "constexpr"}, {(2,): 64}, {}, "none, i32, 64", "*fp8e8m0"),
    ({"a": "*fp16", "n": "i32", "B": "constexpr"}, {(2,): 64}, {(0,): [["tt.pointer_range", 32]]},
     "*fp16, i32, 64", "tt.pointer_range"),
    ({"a": "*fp16", "n": "i32", "B": "constexpr"}, {(2,): "gelu"}, {}, "*fp16, i32", None),
    ({"a": "*fp16", "B": "constexpr", "n": "i32"}, {(1,): "gelu"}, {}, "*fp16, none, i32", "B before a runtime"),
    ({"a": "*fp16", "B": "constexpr", "n": "i32"}, {(1,): None}, {}, "*fp16, none, i32", None),
    # a const pointer (`a: tl.const`): the annotation makes it const again when compiled
    ({"a": "*kbf16", "n": "i32", "B": "constexpr"}, {(2,): 64}, {(0,): [["tt.divisibility", 16]]},
     "*bf16:16, i32, 64", None),
])
def test_signature_text(signature, constants, attrs, text, problem):
    made = signature_text(["a", "n", "B"] if list(signature)[1] == "n" else ["a", "B", "n"], signature, constants,
                          attrs, DTYPES)
    assert made.text == text
    if problem is None:
        assert made.problem is None
    else:
        assert problem in made.problem


def test_literals_and_recorded_constexprs():
    assert [literal(v, DTYPES) for v in (True, False, 3, -2, 0.5, None, triton.language.float16)] == \
        ["true", "false", "3", "-2", "0.5", "none", "tl.float16"]
    assert literal("gelu", DTYPES) is None and literal((1, 2), DTYPES) is None
    assert parse_settings([f"K={literal(1e-6, DTYPES)}"]) == {"K": 1e-6}
    assert constexpr_json(triton.language.bfloat16, DTYPES) == "tl.bfloat16"
    assert constexpr_json((1, triton.language.float16), DTYPES) == [1, "tl.float16"]
    assert constexpr_json(object(), DTYPES)["repr"].startswith("<object")


def test_a_jit_function_constexpr_is_named_not_guessed(kernels_path):
    helper = load_shapes().scaled  # a @triton.jit function passed as a constexpr (an activation, say)
    assert constexpr_json(helper, DTYPES) == {"jit_function": "capture_helpers:scaled"}
    made = signature_text(["x", "ACT"], {"x": "*fp32", "ACT": "constexpr"}, {(1,): helper}, {}, DTYPES)
    assert made.text == "*fp32" and made.problem is None  # at the end: left to the record's constexprs


def test_the_overhead_script_runs_without_a_gpu():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "capture_overhead.py"), "--no-gpu",
                           "--launches", "300", "--rounds", "2"], capture_output=True, text=True, timeout=600,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "launches recorded: 600 of 600" in done.stdout and "hooks only" in done.stdout
