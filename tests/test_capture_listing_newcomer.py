"""What a newcomer capturing their own program reads (issue 42): `list`'s autotune cell names the keys each
tuning was for and the config it chose, each tuning belongs to the compiles it made (never to another
specialization's compiles of the same configs), the header gives the command as typed and its exit code;
a diff of two compiles names their specialization's difference first, as the cause; TTI001 reads a loop's
own `tl.range(..., num_stages=...)`.

The listing's capture is written by ttinspect's own capture writer (as tests/data/captures/make_example.py
does): an autotuned `scale` of two configs, launched with n = 64 and n = 128 (n:16, one compile per config)
and n = 100 (n not divisible by 16: two more compiles)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from cli_helpers import run_cli_ok
from ttinspect.check import check_reference
from ttinspect.compare.signature import explain, signature_facts
from ttinspect.refs.resolver import RefOptions

sys.path.insert(0, str(Path(__file__).parent / "data" / "captures"))
from make_example import write_example  # noqa: E402

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl

    NUM_STAGES = tl.constexpr(2)


    @triton.jit
    def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        for start in tl.range(0, n, BLOCK, num_stages=NUM_STAGES):
            offs = start + tl.arange(0, BLOCK)
            mask = offs < n
            tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


    @triton.jit
    def scale_by(x_ptr, y_ptr, n, BLOCK: tl.constexpr, S: tl.constexpr):
        for start in tl.range(0, n, BLOCK, num_stages=S):
            offs = start + tl.arange(0, BLOCK)
            mask = offs < n
            tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)
""")
CONFIGS = [{"kwargs": {"BLOCK": block}, "num_warps": 1, "num_stages": 3, "num_ctas": 1, "maxnreg": None}
           for block in (16, 32)]


def write_tuned_capture(folder: Path, argv: list[str], exit_code: int | None) -> Path:
    """The run of the module docstring, as its hooks would have recorded it under the interpreter."""
    from ttinspect.capture import process  # the writer, imported when used
    from ttinspect.capture.merge import merge  # the writer, imported when used
    from ttinspect.capture.session import Session  # the writer, imported when used

    kernels = folder / "prog.py"
    kernels.write_text(KERNEL)
    parts = folder / ".run.ttcap.parts"
    parts.mkdir()
    header = {**process.header(argv), "interpreter": True}
    session = Session(parts / "1-1.ttcap", header)
    sha = session.add_source(kernels)
    ids: dict[tuple[str, int], str] = {}
    for n_type in ("i32:16", "i32"):
        for config in CONFIGS:
            block = config["kwargs"]["BLOCK"]
            ids[n_type, block] = session.add_compile({
                "name": "scale", "qualname": "scale", "module": "__main__", "file": str(kernels), "def_line": 8,
                "sha256": sha, "sources": {str(kernels): sha}, "inductor": False,
                "params": ["x_ptr", "y_ptr", "n", "BLOCK"], "signature": f"*fp16:16, *fp16:16, {n_type}, {block}",
                "constexprs": {"BLOCK": block}, "options": {"num_warps": 1, "num_ctas": 1, "num_stages": 3},
                "target": None, "triton_cache_key": None, "triton_cache_dir": None, "autotuned": {"configs": 2}})
    for n, n_type, best in ((64, "i32:16", 1), (128, "i32:16", 1), (100, "i32", 0)):
        made = [ids[n_type, 16], ids[n_type, 32]]
        session.add_autotune({"name": "scale", "file": str(kernels),
                              "key": {"n": n, "x_ptr.dtype": "torch.float16", "y_ptr.dtype": "torch.float16"},
                              "configs": CONFIGS, "timings_ms": None, "best": best, "pruned_to": None,
                              "compiles": made})
        session.add_launch(made[best], f"{kernels}:30", (1, 1, 1), {"n": n})
    session.close()
    out = folder / "run.ttcap"
    merge(parts, out, base_header=process.run_fields(header), exit_code=exit_code, compress=False, force=True)
    return out


@pytest.fixture(scope="module")
def tuned(tmp_path_factory) -> Path:
    return write_tuned_capture(tmp_path_factory.mktemp("tuned"), ["python", "-m", "pytest", "-q", "tests_of_prog.py"],
                               exit_code=1)


# --- list: the autotune cell, attached by compile ---------------------------------------------------------

def test_each_tuning_belongs_to_the_compiles_it_made(tuned):
    rows = {row["ref"].rpartition(":")[2]: row for row in json.loads(run_cli_ok("list", tuned, "--json"))["compiles"]}
    keys = {name: [result["key"]["n"] for result in row["autotune"]] for name, row in rows.items()}
    # scale#1/#2 are n:16's compiles (n = 64 and 128), scale#3/#4 n = 100's: never another's, although the
    # configs' values are the same
    assert keys == {"scale#1": [64, 128], "scale#2": [64, 128], "scale#3": [100], "scale#4": [100]}
    assert [(r["winner"], r["chosen"]) for r in rows["scale#2"]["autotune"]] == [(True, "scale#2")] * 2
    assert [(r["winner"], r["chosen"], r["config"]) for r in rows["scale#4"]["autotune"]] == [(False, "scale#3", 2)]


def test_the_autotune_cell_is_short_and_names_keys_and_the_chosen_config(tuned):
    text = " ".join(run_cli_ok("list", tuned, "--width", "200").split())
    assert "chosen for n=64; n=128 (of 2, not timed)" in text
    assert "tried for n=64; n=128 (#1 of 2, not timed); chose #2" in text
    assert "chosen for n=100 (of 2, not timed)" in text and "tried for n=100 (#2 of 2, not timed); chose #3" in text
    assert "best of" not in text and "dtype" not in text  # the same dtypes in every key: not repeated


def test_timed_outcomes_keep_their_times():
    example = Path(__file__).parent / "data" / "captures" / "example.ttcap"
    text = " ".join(run_cli_ok("list", example, "--width", "200").split())
    assert "chosen for M=1024 N=1024 K=1024 (of 2, 0.171 ms)" in text
    assert "tried for M=1024 N=1024 K=1024 (#1 of 2, 0.214 ms); chose #2 (0.171 ms)" in text


# --- list: the header -------------------------------------------------------------------------------------

def test_the_header_gives_the_command_as_typed_and_its_exit_code(tuned):
    listing = json.loads(run_cli_ok("list", tuned, "--json"))
    assert listing["run"]["argv"] == ["python", "-m", "pytest", "-q", "tests_of_prog.py"]
    assert listing["run"]["exit_code"] == 1
    text = " ".join(run_cli_ok("list", tuned, "--width", "200").split())
    assert "(python -m pytest -q tests_of_prog.py; exit code 1; Triton's interpreter;" in text


def test_a_process_s_command_is_the_one_typed(monkeypatch):
    from ttinspect.capture import process

    main = str(Path(pytest.__file__).parent / "__main__.py")
    monkeypatch.setattr(sys, "orig_argv", ["python", "-m", "pytest", "-q"], raising=False)
    monkeypatch.setattr(sys, "argv", [main, "-q"])
    assert process.command_line() == ["python", "-m", "pytest", "-q"]  # not .../pytest/__main__.py
    script = str(Path(sys.executable).parent / "pytest")  # a console script its shebang started
    monkeypatch.setattr(sys, "orig_argv", [sys.executable, script, "-q"])
    monkeypatch.setattr(sys, "argv", [script, "-q"])
    assert process.command_line() == ["pytest", "-q"]
    monkeypatch.setattr(sys, "orig_argv", ["python3", "train.py", "--steps", "3"])
    monkeypatch.setattr(sys, "argv", ["train.py", "--steps", "3"])
    assert process.command_line() == ["python3", "train.py", "--steps", "3"]


def test_the_pytest_option_records_the_command_and_the_session_s_exit_code(tmp_path):
    (tmp_path / "test_fails.py").write_text("def test_fails():\n    assert False\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_fails.py",
                           "--ttinspect-capture=run.ttcap"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = [json.loads(line) for line in (tmp_path / "run.ttcap").read_text().splitlines()]
    assert lines[0]["argv"][1:4] == ["-m", "pytest", "-q"]
    assert lines[-1]["type"] == "end" and lines[-1]["exit_code"] == 1


# --- diff: the specialization first ---------------------------------------------------------------------

def _side(label: str, signature: dict[str, str]) -> SimpleNamespace:
    return SimpleNamespace(label=label, build=SimpleNamespace(metadata={"ttinspect": {"signature": signature}}))


@pytest.mark.parametrize("left, right, said", [
    ("i32 D", "i32", "n was a multiple of 16 in k#1's launch and not in k#5's"),
    ("i32", "i32 D", "n was a multiple of 16 in k#5's launch and not in k#1's"),
    ("=1", "i32 D", "n was 1 in k#1's launch, folded into a constant there, and a runtime value in k#5's"),
    ("i64", "i32", "n is i64 in k#1 and i32 in k#5"),
])
def test_a_specialization_change_is_named_as_the_cause(left, right, said):
    a = _side("k#1", {"x_ptr": "*fp16 D", "n": left, "BLOCK": "=64"})
    b = _side("k#5", {"x_ptr": "*fp16 D", "n": right, "BLOCK": "=64"})
    fa, fb = signature_facts(a, b)  # type: ignore[misc,arg-type]
    assert fa.value == (("n", left.replace(" D", ":16").lstrip("=")),) and fa.group == "configuration"
    text = explain(a, b, fa.value, fb.value, 3, False)  # type: ignore[arg-type]
    assert said in text and text.endswith("this is the cause of the 3 other changes below")


def test_what_is_not_a_specialization_change_is_not_listed():
    same = {"x_ptr": "*fp16 D", "n": "i32", "BLOCK": "=64"}
    assert signature_facts(_side("a", same), _side("b", same)) is None  # type: ignore[arg-type]
    other_block = {**same, "BLOCK": "=128"}  # a constexpr: the configuration's facts say it
    assert signature_facts(_side("a", same), _side("b", other_block)) is None  # type: ignore[arg-type]
    other_kernel = {"a_ptr": "*fp16 D", "n": "i32 D"}
    assert signature_facts(_side("a", same), _side("b", other_kernel)) is None  # type: ignore[arg-type]
    unknown = SimpleNamespace(label="entry", build=None)  # a Triton cache entry records none
    assert signature_facts(_side("a", same), unknown) is None  # type: ignore[arg-type]


def test_a_diff_of_two_compiles_lists_their_specialization_first(tmp_path):
    run = write_example(tmp_path)  # scale_add#1: n = 1000 (i32), #2: n = 4096 (i32:16)
    diff = json.loads(run_cli_ok("diff", f"{run}:scale_add#1", f"{run}:scale_add#2", "--json"))
    first = diff["changes"][0]
    assert first["key"] == "specialization" and (first["a"], first["b"]) == ({"n": "i32"}, {"n": "i32:16"})
    assert len(diff["changes"]) > 1 and "the cause of the" in first["explanation"]
    text = run_cli_ok("diff", f"{run}:scale_add#1", f"{run}:scale_add#2", "--width", "100")
    changed = text.split("What changed, and what it means", 1)[1]
    assert changed.lstrip().startswith("• specialization (signature): n was a multiple of 16 in")


# --- TTI001: the loop's own num_stages ------------------------------------------------------------------

@pytest.mark.parametrize("kernel, signature, stages", [
    ("scale", "*fp16:16, *fp16:16, i32, 128", 2),  # num_stages=NUM_STAGES, a global constexpr
    ("scale_by", "*fp16:16, *fp16:16, i32, 128, 4", 4),  # num_stages=S, a constexpr parameter
])
def test_tti001_reads_the_loop_s_own_num_stages(tmp_path, kernel, signature, stages):
    (tmp_path / "prog.py").write_text(KERNEL)
    _, found = check_reference(f"{tmp_path / 'prog.py'}:{kernel}", RefOptions(signature=signature))
    (finding,) = [f for f in found if f.id == "TTI001"]
    assert f"its tl.range(..., num_stages={stages}) asks for {stages} stages" in finding.title
    assert "launch does not set it" not in finding.text()
    assert any(f"tt.num_stages = {stages}" in e.text for e in finding.evidence)
