"""The corpus of public kernel libraries (tests/corpus/manifest.toml, docs/corpus.md).

- The manifest itself: at least 60 entries from at least 5 libraries, every entry citing the launch in its
  library that its arguments come from (and, where the library is installed, that line is a launch).
- The CI subset: each entry's `ci` targets through ttinspect's API and CLI, as `scripts/corpus.py --subset
  ci` runs them (tests/corpus/corpus_runner.py says what a row promises); skipped, saying why, where the
  entry's library is not installed (CI installs them: .ci/run) or the installed Triton is not one the entry
  lists.
- scripts/corpus.py's table, and scripts/corpus_gpu.py's pure parts (grid, cache reading, comparison) and its
  one-line refusal without a GPU.
"""

from __future__ import annotations

import json
import linecache
import os
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT / "tests" / "corpus"))  # the manifest reader and runner (names of their own)
sys.path.append(str(ROOT / "scripts"))  # scripts/corpus.py and corpus_gpu.py, shadowing nothing

import corpus_gpu  # noqa: E402
from corpus_manifest import TARGETS, ManifestError, load, package_folder, parse_value  # noqa: E402
from corpus_runner import Row, run_row  # noqa: E402

ENTRIES = load()
CI_ROWS = [(entry, target) for entry in ENTRIES for target in entry.ci]
LAUNCH = re.compile(r"\]\s*\(")  # the end of kernel[grid](  /  wrap_triton(kernel)[grid](, on one of the lines


def test_manifest_is_well_formed():
    assert len(ENTRIES) >= 60
    assert len({entry.library for entry in ENTRIES}) >= 5
    assert len({entry.id for entry in ENTRIES}) == len(ENTRIES)
    for entry in ENTRIES:
        assert re.fullmatch(r"[\w/.]+\.py:\d+", entry.source), entry.id
        assert entry.source.startswith(entry.package + "/"), entry.id  # the launch is in the library itself
        assert entry.call and entry.grid and entry.args, entry.id
        assert set(entry.ci) <= set(entry.targets) <= set(TARGETS), entry.id
    for target in TARGETS:  # every target has entries, and CI compiles for each
        assert any(target in entry.targets for entry in ENTRIES)
        assert any(target in entry.ci for entry in ENTRIES), target


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda entry: entry.id)
def test_source_line_is_the_launch(entry):
    folder = package_folder(entry.package)
    if folder is None:
        pytest.skip(f"{entry.library} is not installed (the corpus libraries: docs/corpus.md)")
    path, _, line = entry.source.rpartition(":")
    lines = [linecache.getline(str(folder.parent / path), int(line) + i) for i in range(4)]
    assert "[" in lines[0] and LAUNCH.search("".join(lines)), f"{entry.source} is not a launch: {lines[0].strip()!r}"


@pytest.mark.parametrize("raw, why", [
    ({"tensor": "bf16[4, 4]", "strides": [1]}, "one stride per dimension"),
    ({"shape": [4]}, "a table argument is"),
    ("bf17[4]", "unknown tensor dtype"),
])
def test_malformed_argument_is_named(raw, why):
    with pytest.raises(ManifestError, match=why):
        parse_value(raw, "entry 1 args.x")


def test_malformed_manifest_names_the_entry(tmp_path):
    bad = tmp_path / "manifest.toml"
    bad.write_text('[[entry]]\nlibrary = "lib"\nkernel = "pkg.mod:k"\nsource = "pkg/mod.py:3"\ncall = "f()"\n'
                   'grid = "(1,)"\nci = ["sm_75"]\n[entry.args]\nx = "fp16[4]"\n')
    with pytest.raises(ManifestError, match=r"entry 1 \(lib/k\): unknown target 'sm_75'"):
        load(bad)


# What the libraries themselves warn about at import (liger through torch.jit; gemlite's `import imp` and its
# autotune arguments that Triton deprecated).
@pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated", "ignore:the imp module is deprecated",
                            "ignore:warmup, rep, and use_cuda_graph parameters are deprecated")
@pytest.mark.parametrize("entry, target", CI_ROWS, ids=[f"{e.id}@{t}" for e, t in CI_ROWS])
def test_ci_subset_row(entry, target):
    if package_folder(entry.package) is None:
        pytest.skip(f"{entry.library} is not installed (pip install --no-deps the `corpus` extra: docs/corpus.md)")
    if entry.tritons and version("triton") not in entry.tritons:
        pytest.skip(f"{entry.id} works with Triton {', '.join(entry.tritons)}, not {version('triton')}: "
                    f"{entry.unsupported}")
    row = run_row(entry, target)
    assert row.status == "ok", f"{entry.id} on {target}: {row.reason}"
    assert row.same_code and row.cold_s is not None and row.warm_s is not None


def test_table_names_every_row_and_the_rate():
    from corpus import summary, table  # scripts/corpus.py

    rows = [Row("lib/a", "lib", "pkg.mod:a", "sm_90", "ok", "", 1.5, 0.2, depths=[3, None]),
            Row("lib/b", "lib", "pkg.mod:b", "sm_90", "fail", "CompileError: x | y"),
            Row("lib/b", "lib", "pkg.mod:b", "gfx942", "unsupported", "uses block pointers"),
            Row("lib/c", "lib", "pkg.mod:c", "gfx942", "ok")]
    text = table(rows, "Corpus")
    assert "| lib | `a` | sm_90 | ok | 1.50 | 0.20 | 3,? |  |" in text
    assert "CompileError: x / y" in text  # a reason never breaks the table
    assert summary(rows) == ("sm_90: 1/2 ok (50 %); gfx942: 1/1 ok (100 %), 1 unsupported; "
                             "all: 2/3 ok (67 %), 1 unsupported")


def test_saved_runs_make_one_table(tmp_path, capsys):
    from corpus import main  # scripts/corpus.py

    first = [Row("lib/a", "lib", "pkg.mod:a", "sm_90", "fail", "no device").as_dict(),
             Row("lib/b", "lib", "pkg.mod:b", "sm_90", "ok", "", 2.0, 0.2).as_dict()]
    again = [Row("lib/a", "lib", "pkg.mod:a", "sm_90", "ok", "", 3.0, 0.3).as_dict()]
    for name, rows in (("all.json", first), ("again.json", again)):
        (tmp_path / name).write_text(json.dumps({"title": name, "summary": "", "rows": rows}))
    assert main(["--from-json", str(tmp_path / "all.json"), str(tmp_path / "again.json")]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0] == "all.json; again.json"
    assert "| lib | `a` | sm_90 | ok | 3.00 | 0.30 |" in text and "no device" not in text
    assert text.index("`a`") < text.index("`b`")  # the first run's order
    assert main(["--from-json", str(tmp_path / "missing.json")]) == 2


def test_script_refuses_an_empty_selection():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "corpus.py"), "--only", "no-such-entry"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.strip() == "corpus: no entry matches the options"


# --- scripts/corpus_gpu.py: what runs without a GPU -------------------------------------------------------------

@pytest.mark.parametrize("expression, meta, grid", [
    ("(4096,)", {}, (4096,)),
    ("(cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N),)", {"M": 1000, "N": 64, "BLOCK_M": 128, "BLOCK_N": 64}, (8,)),
    ("(cdiv(128, BV) * 64, 4 * 16)", {"BV": 32}, (256, 64)),
    ("cdiv(10, 4)", {}, (3,)),
])
def test_gpu_grid_is_the_call_sites(expression, meta, grid):
    assert corpus_gpu.grid_function(expression)(meta) == grid


def test_gpu_reads_the_launchs_ptx_and_compares(tmp_path):
    for folder, text in (("AAA", "ptx one\n"), ("BBB", "ptx two\nsecond\n")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "kern.ptx").write_text(text)
        (tmp_path / folder / "other.ptx").write_text("another kernel\n")
    launched = corpus_gpu.launched_ptx(tmp_path, "kern")
    assert launched == {"AAA/kern.ptx": "ptx one\n", "BBB/kern.ptx": "ptx two\nsecond\n"}
    assert corpus_gpu.compare("ptx two\nsecond\n", launched) == {"status": "identical", "launch_ptx": "BBB/kern.ptx"}
    differs = corpus_gpu.compare("ptx two\nthird\n", launched)
    assert differs["status"] == "differs" and "line 2" in differs["reason"] and differs["launch_ptx"] == "BBB/kern.ptx"
    assert corpus_gpu.compare("x", {})["status"] == "failed"
    rows = [{"status": "identical"}, {"status": "differs"}, {"status": "failed"}]
    assert corpus_gpu.summary(rows) == {"entries": 3, "compared": 2, "identical": 1, "differs": 1, "failed": 1}


def test_gpu_passes_the_leading_arguments_by_position():
    """Runtime arguments and the call site's constexprs, in order, up to the first one not given or one an
    autotune config sets (gemlite's pruner reads its constexprs from `nargs`, the positional ones)."""
    kwargs = {"x": 1, "n": 2, "BLOCK": 64, "num_warps": 4}
    assert corpus_gpu.leading_arguments(["x", "n", "BLOCK"], kwargs) == [1, 2, 64]
    assert kwargs == {"num_warps": 4}
    kwargs = {"x": 1, "n": 2, "BLOCK": 64, "SCALES": True}
    assert corpus_gpu.leading_arguments(["x", "n", "BLOCK", "SCALES"], kwargs, frozenset({"BLOCK"})) == [1, 2]
    assert kwargs == {"BLOCK": 64, "SCALES": True}
    kwargs = {"x": 1, "BLOCK": 64}
    assert corpus_gpu.leading_arguments(["x", "n", "BLOCK"], kwargs) == [1] and kwargs == {"BLOCK": 64}
    kwargs = {"x": 1, "n": 2, "FLAG": True}  # the call site passes FLAG= by keyword (gemlite's gemm pruner)
    assert corpus_gpu.leading_arguments(["x", "n", "FLAG"], kwargs, first_keyword="FLAG") == [1, 2]


class _Config:
    def __init__(self, num_warps: int, **kwargs):
        self.kwargs, self.num_warps, self.num_stages, self.num_ctas, self.maxnreg = kwargs, num_warps, 3, 1, None


def test_gpu_autotune_choice_is_one_based_and_a_pruners_config_is_given_by_its_values():
    listed = [_Config(4, BLOCK=32), _Config(4, BLOCK=64), _Config(8, BLOCK=64)]

    class Autotuner:
        configs = listed
        best_config = listed[2]

    class Heuristics:
        fn = Autotuner()

    assert corpus_gpu.autotune_choice(Heuristics()) == 3
    assert corpus_gpu.tuned_keys(Heuristics()) == {"BLOCK"}
    Autotuner.best_config = _Config(4, BLOCK=64)  # an equal copy (a pruner's): its listed number
    assert corpus_gpu.autotune_choice(Heuristics()) == 2
    made = _Config(2, BLOCK=16)  # a config a pruner made: in no list
    Autotuner.best_config = made
    assert corpus_gpu.autotune_choice(Heuristics()) is made
    assert corpus_gpu.config_words(made) == ["--set", "BLOCK=16", "--set", "num_warps=2", "--set", "num_stages=3",
                                             "--set", "num_ctas=1"]
    assert corpus_gpu.config_words(3) == ["--config", "3"]
    assert corpus_gpu.autotune_choice(object()) is None


def test_gpu_script_without_a_gpu_says_so_in_one_line(tmp_path):
    pytest.importorskip("torch")
    import torch

    if torch.cuda.is_available():
        pytest.skip("a GPU is here: the script would run")
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "corpus_gpu.py")], capture_output=True, text=True,
                          env={**os.environ, "OUT": str(tmp_path)}, timeout=120)
    assert done.returncode == corpus_gpu.EXIT_NO_GPU
    assert done.stderr.strip().splitlines() == [done.stderr.strip()] and "needs a CUDA GPU" in done.stderr
    assert not list(tmp_path.iterdir())


def test_gpu_script_needs_out(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "OUT"}
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "corpus_gpu.py")], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 2 and done.stderr.strip() == "corpus_gpu: set OUT to the folder the results go to"


def test_gpu_launch_arguments_are_the_manifests():
    pytest.importorskip("torch")
    entry = next(e for e in ENTRIES if e.id == "liger-kernel/rms_norm_forward_kernel")
    kwargs = corpus_gpu.launch_kwargs(entry, "cpu")
    assert tuple(kwargs["X_ptr"].shape) == (4096, 4096) and str(kwargs["X_ptr"].dtype) == "torch.bfloat16"
    assert kwargs["X_row_stride"] == 4096 and kwargs["BLOCK_SIZE"] == 4096 and kwargs["elementwise_affine"] is True
    assert json.dumps(sorted(kwargs))  # every name is a plain keyword


def test_the_h100_result_covers_the_manifest():
    """docs/corpus.md's figure: every sm_90 entry of this manifest launched on the H100, its PTX byte-identical
    to ttinspect's offline PTX (tests/data/corpus_h100/all, `OUT=out bash scripts/device_corpus_all.sh`). An
    entry added to the manifest needs that run again."""
    recorded = json.loads((ROOT / "tests" / "data" / "corpus_h100" / "all" / "corpus_gpu.json").read_text())
    assert [row["id"] for row in recorded["rows"]] == [e.id for e in load() if "sm_90" in e.targets]
    assert {row["status"] for row in recorded["rows"]} == {"identical"}
    assert recorded["machine"]["gpu"].startswith("NVIDIA H100")


# --- scripts/perf_library_points.py: what runs without a GPU ---------------------------------------------------

@pytest.mark.parametrize("added, positional, keywords", [
    ({"num_warps": 8}, [1, 2, 64], {"num_warps": 8}),  # an option: by keyword beside the call's positions
    ({"BLOCK": 32}, [1, 2], {"BLOCK": 32}),  # a parameter the call passed by position: by keyword now
    ({"n": 5, "num_warps": 2}, [1], {"n": 5, "BLOCK": 64, "num_warps": 2}),  # and every parameter after it
])
def test_library_points_add_a_configs_values_where_the_launch_takes_them(added, positional, keywords):
    import perf_library_points

    assert perf_library_points._bound(["x", "n", "BLOCK"], [1, 2, 64], {}, added) == (positional, keywords)


def test_library_points_time_one_launch_where_heuristics_set_num_warps():
    import perf_library_points

    entry = next(e for e in ENTRIES if e.id == "liger-kernel/rms_norm_forward_kernel")

    class Heuristics:
        values = {"num_warps": lambda args: 16}
        fn = object()

    assert [v["num_warps"] for v in perf_library_points.variants(Heuristics(), entry, [], {})] == [None]
    assert [v["num_warps"] for v in perf_library_points.variants(object(), entry, [], {})] == [1, 2, 4, 8, 16]


def test_the_library_points_cover_the_manifest_s_entries():
    """docs/predict.md's public-library table: the points were timed on an H200 for this manifest's sm_90
    entries (`python scripts/perf_library_points.py --wheels DIR OUT` on the GPU machine)."""
    recorded = json.loads((ROOT / "tests" / "data" / "perf" / "h200_library_points.json").read_text())
    entries = {e.id for e in load() if "sm_90" in e.targets}
    assert {p["entry"] for p in recorded["points"]} == entries
    assert len({p["id"] for p in recorded["points"]}) == len(recorded["points"])
    assert recorded["machine"]["gpu"] == "NVIDIA H200"
