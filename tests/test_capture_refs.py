"""A capture as a kernel reference (`FILE.ttcap:KERNEL[#N][:k=v][@ARCH]`): every command takes it through the
one resolver and compiles the captured specialization; `list`, `check` and `html` take a whole capture; a
source changed since the run is refused in one line unless `--source captured|current` says which to compile.

The captures are the synthetic example run of tests/data/captures/make_example.py (an autotuned `tiled_mm` with a
heuristic, both configs compiled, and `scale_add` specialized for n = 1000 and n = 4096), written with
ttinspect's own capture writer into the test's folder, beside a copy of its kernels file."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from cli_helpers import assert_one_line_error, run_cli, run_cli_ok
from ttinspect.errors import EXIT_USAGE
from ttinspect.refs.resolver import RefOptions, resolve_one

sys.path.insert(0, str(Path(__file__).parent / "data" / "captures"))
from make_example import write_example  # noqa: E402

EXAMPLE = Path(__file__).parent / "data" / "captures" / "example.ttcap"  # its kernels recorded elsewhere


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """A capture whose kernels file is beside it, unchanged since the run (shared: its compiles are cached)."""
    return write_example(tmp_path_factory.mktemp("capture"))


def report_json(*args) -> dict:
    return json.loads(run_cli_ok("report", *args, "--json"))


# --- references -----------------------------------------------------------------------------------------

def test_report_compiles_the_captured_specialization(run):
    first, second = report_json(f"{run}:scale_add#1"), report_json(f"{run}:scale_add#2")
    assert first["label"] == "example.ttcap:scale_add#1" and first["target"] == "sm_90"  # the captured target
    # n = 1000 is no multiple of 16: the run's loads could not be vectorized; n = 4096's could
    assert {f["id"] for f in run_cli_json("check", f"{run}:scale_add#1")["findings"]} == {"TTI005"}
    assert run_cli_json("check", f"{run}:scale_add#2")["findings"] == []
    assert first["config"] == second["config"] == {"BLOCK": 1024, "num_warps": 4, "num_stages": 3, "num_ctas": 1}


def run_cli_json(*args) -> dict:
    return json.loads(run_cli_ok(*args, "--json"))


def test_autotuned_and_heuristic_values_come_from_the_capture(run):
    tuned = report_json(f"{run}:tiled_mm#2")
    assert tuned["config"] == {"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32, "EVEN_K": True, "num_warps": 4,
                               "num_stages": 4, "num_ctas": 1}


def test_dump_and_diff_of_two_compiles_of_one_kernel(run):
    ptx = run_cli_ok("dump", f"{run}:tiled_mm#1", "--stage", "ptx")
    assert ptx.startswith("// ttinspect: example.ttcap:tiled_mm#1 ") and ".target sm_90a" in ptx
    diff = json.loads(run_cli_ok("diff", f"{run}:tiled_mm#1", f"{run}:tiled_mm#2", "--json"))
    changed = {c["key"] for c in diff["changes"]}
    assert "num_stages_configured" in changed or "pipeline_depth" in changed, changed


@pytest.mark.parametrize("tail, arch, label", [
    ("@sm_80", None, "example.ttcap:scale_add#2"),
    ("", "sm_80", "example.ttcap:scale_add#2"),
    (":num_warps=8", None, "example.ttcap:scale_add#2:num_warps=8"),
])
def test_the_reference_and_options_change_the_captured_launch(run, tail, arch, label):
    data = report_json(f"{run}:scale_add#2{tail}", *(["--arch", arch] if arch else []))
    assert data["label"] == label
    assert data["target"] == ("sm_80" if "sm_80" in f"{tail} {arch}" else "sm_90")
    assert data["config"]["num_warps"] == (8 if "num_warps" in tail else 4)


def test_the_api_takes_a_capture_reference(run):
    import ttinspect

    report = ttinspect.inspect(f"{run}:scale_add#2", arch="sm_80")
    assert report.target == "sm_80" and report.label == "example.ttcap:scale_add#2"


def test_a_gzip_capture_and_one_recognised_by_its_first_line(tmp_path):
    packed = write_example(tmp_path, name="run.ttcap.gz", compress=True)
    assert report_json(f"{packed}:scale_add#2")["target"] == "sm_90"
    renamed = packed.with_name("run.log")
    renamed.write_bytes(gzip.decompress(packed.read_bytes()))
    assert report_json(f"{renamed}:scale_add#2")["label"] == "run.log:scale_add#2"


# --- refused in one line ----------------------------------------------------------------------------------

@pytest.mark.parametrize("tail, fragments", [
    (":nope", ["no kernel 'nope' in the capture", "kernels: scale_add, tiled_mm"]),
    (":tiled_mm", ["tiled_mm was compiled 2 times", "tiled_mm#1 to tiled_mm#2"]),
    (":tiled_mm#3", ["2 compile(s) of tiled_mm", "from 1 to 2"]),
    (":tiled_mm#0", ["#1 is the first compile", "1-based"]),
    ("", ["name a kernel", "ttinspect list"]),
])
def test_a_reference_that_names_no_compile(run, tail, fragments):
    assert_one_line_error(run_cli("report", f"{run}{tail}"), EXIT_USAGE, *fragments)


@pytest.mark.parametrize("option", [["--arg", "n=4"], ["--signature", "*fp32"], ["--config", "1"]])
def test_the_captured_arguments_are_not_given_again(run, option):
    assert_one_line_error(run_cli("report", f"{run}:scale_add#2", *option), EXIT_USAGE,
                          "launched as the run launched it", option[0])


def test_a_damaged_capture_is_one_line_naming_its_line(tmp_path):
    path = write_example(tmp_path)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:3] + ["{not json\n"] + lines[3:]))
    for command in (["report", f"{path}:scale_add#2"], ["list", path], ["check", path]):
        assert_one_line_error(run_cli(*command), EXIT_USAGE, f"{path}:4", "not JSON")


def test_a_torn_last_line_is_left_out_with_a_warning(tmp_path):
    path = write_example(tmp_path)
    path.write_text(path.read_text() + '{"type": "launches", "comp')
    result = run_cli("list", path, "--json")
    assert result.exit_code == 0 and "the last line is incomplete" in result.stderr
    assert len(json.loads(result.stdout)["compiles"]) == 4


# --- the source changed since the run ---------------------------------------------------------------------

def test_a_changed_source_is_refused_and_either_text_can_be_chosen(tmp_path):
    path = write_example(tmp_path)
    kernels = tmp_path / "example_kernels.py"
    kernels.write_text(kernels.read_text().replace("alpha * x + y", "tl.exp(alpha * x) + y"))
    line = assert_one_line_error(run_cli("report", f"{path}:scale_add#2"), EXIT_USAGE, str(kernels),
                                 "changed since the capture", "--source captured", "--source current")
    assert line.count("sha256") == 1 and " then; its text here differs)" in line  # the captured digest only
    captured = resolve_one(f"{path}:scale_add#2", RefOptions(source="captured"))
    current = resolve_one(f"{path}:scale_add#2", RefOptions(source="current"))
    assert "math.exp" in current.artifacts.text("ttir") and "math.exp" not in captured.artifacts.text("ttir")
    assert current.source_file == str(kernels)
    assert captured.source_file != str(kernels) and "alpha * x + y" in Path(captured.source_file).read_text()
    assert run_cli("report", f"{path}:scale_add#2", "--source", "captured").exit_code == 0  # the option itself
    assert_one_line_error(run_cli("check", path), EXIT_USAGE, "4 captured compile(s) concerned", str(kernels))


def test_a_source_not_on_this_machine_is_compiled_from_the_capture():
    assert_one_line_error(run_cli("report", f"{EXAMPLE}:scale_add#2"), EXIT_USAGE,
                          "/ttinspect-example/example_kernels.py", "not on this machine now", "--source captured")
    assert report_json(f"{EXAMPLE}:scale_add#2", "--source", "captured")["label"] == "example.ttcap:scale_add#2"
    assert_one_line_error(run_cli("report", f"{EXAMPLE}:scale_add#2", "--source", "current"), EXIT_USAGE,
                          "is not on this machine")


# --- a whole capture: list, check, html -------------------------------------------------------------------

def test_list_is_one_row_per_compile_the_most_launched_first():
    listing = json.loads(run_cli_ok("list", EXAMPLE, "--json"))
    rows = listing["compiles"]
    assert [r["ref"].rpartition(":")[2] for r in rows] == ["tiled_mm#2", "tiled_mm#1", "scale_add#1", "scale_add#2"]
    assert [r["launches"] for r in rows] == [13, 10, 3, 3]
    winner, tried = rows[0]["autotune"][0], rows[1]["autotune"][0]
    assert winner["winner"] and winner["ms"] == 0.171 and not tried["winner"] and tried["best_ms"] == 0.171
    assert rows[2]["grids"] == [[1, 1, 1]] and rows[2]["args"][0]["n"] == 1000
    assert {r["source"] for r in rows} == {"missing"} and {r["target"] for r in rows} == {"sm_90"}
    text = " ".join(run_cli_ok("list", EXAMPLE, "--width", "120").split())
    assert "chosen for M=1024 N=1024 K=1024 (of 2, 0.171 ms)" in text and "missing" in text
    assert "tried for M=1024 N=1024 K=1024 (#1 of 2, 0.214 ms);" in text and "chose #2 (0.171 ms)" in text
    assert_one_line_error(run_cli("list", EXAMPLE, "--arch", "sm_80"), EXIT_USAGE, "--arch does not apply")


def test_check_of_a_capture_is_sorted_worst_first(run):
    data = run_cli_json("check", run)
    rows = data["compiles"]
    # the narrow loads: the capture recorded n=1000 (not a multiple of 16), so no hint could widen them: info
    assert rows[0]["ref"].endswith(":scale_add#1") and rows[0]["counts"]["info"] == 3
    assert [r["counts"]["warning"] for r in rows] == sorted((r["counts"]["warning"] for r in rows), reverse=True)
    assert all(r["spills"] == 0 and r["registers"] for r in rows) and data["unchecked"] == 0
    assert run_cli("check", run, "--fail-on", "warning").exit_code == 0  # infos only: nothing a hint would fix
    assert run_cli("check", f"{run}:tiled_mm", "--fail-on", "warning").exit_code == 0  # both of its compiles
    table = run_cli_ok("check", run, "--width", "120")
    assert table.index("scale_add#1") < table.index("tiled_mm#2") and "TTI005 narrow-global-access ×3" in table
    sarif = json.loads(run_cli_ok("check", run, "--format", "sarif"))
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} >= {"TTI005"}


def test_check_compares_the_ptx_with_the_run_s_triton_cache_entry(tmp_path):
    path = write_example(tmp_path)
    entries = {"k3": tmp_path / "entry3", "k4": tmp_path / "entry4"}
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for line in lines:
        if line.get("id") in entries:
            line["triton_cache_dir"] = str(entries[line["id"]])
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    for number, entry in ((1, entries["k3"]), (2, entries["k4"])):
        entry.mkdir()
        ptx = resolve_one(f"{path}:scale_add#{number}").artifacts.data("ptx")
        (entry / "scale_add.ptx").write_bytes(ptx if number == 2 else ptx.replace(b".reg", b".reg ", 1))
    rows = {r["ref"].rpartition(":")[2]: r["ptx_vs_run"] for r in run_cli_json("check", path)["compiles"]}
    assert rows == {"scale_add#1": "differs", "scale_add#2": "same", "tiled_mm#1": None, "tiled_mm#2": None}
    assert "1 of 2 byte-identical; differs: scale_add#1" in run_cli_ok("check", path, "--width", "200")


def test_html_of_a_capture_is_an_index_and_a_page_per_compile(run, tmp_path):
    out = tmp_path / "run.html"
    said = run_cli_ok("html", run, "-o", out, "--no-passes", "--stages", "ptx")
    assert "run-kernels" in said
    index = out.read_text()
    pages = sorted(p.name for p in (tmp_path / "run-kernels").iterdir())
    assert pages == ["01-scale_add-1.html", "02-tiled_mm-2.html", "03-tiled_mm-1.html", "04-scale_add-2.html"]
    for page in pages:
        assert f'href="run-kernels/{page}"' in index
    assert "python train.py --steps 3" in index and "x_ptr float32[1000] strides (1)" in index
    assert '<section id="c1"><h2>scale_add#1</h2>' in index and '<section id="c2"><h2>tiled_mm#2</h2>' in index
    assert "example.ttcap:scale_add#1" in (tmp_path / "run-kernels" / pages[0]).read_text()
    assert_one_line_error(run_cli("html", run, "-o", out), EXIT_USAGE, "already exists")
    out.unlink()
    assert_one_line_error(run_cli("html", run, "-o", out), EXIT_USAGE, "run-kernels already exists", "--force")


# --- the warm path ----------------------------------------------------------------------------------------

def test_a_warm_capture_reference_imports_neither_triton_nor_the_kernel_file(run):
    ref = f"{run}:tiled_mm#2"
    run_cli_ok("report", ref)  # cold: compiles and records the reference
    code = ("import sys; from ttinspect.cli.main import main; sys.argv = ['ttinspect', 'report', sys.argv[1]]\n"
            "import contextlib, io\nwith contextlib.redirect_stdout(io.StringIO()):\n"
            "    try: main()\n    except SystemExit as done: assert done.code in (0, None), done.code\n"
            "print(sorted(m for m in ('triton', 'torch') if m in sys.modules), "
            "any(m.startswith('ttinspect_user_') or m == 'example_kernels' for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, ref], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[] False", out.stderr


def test_sweep_and_versions_take_a_capture_reference(run):
    """The captured launch as the base point of a sweep, and of a row per Triton release."""
    points = json.loads(run_cli_ok("sweep", f"{run}:scale_add#2", "--grid", "num_warps=2,4", "--arch", "sm_90",
                                   "--json"))
    assert points["failed"] == 0 and [row["config"]["num_warps"] for row in points["rows"]] == [2, 4]
    assert {row["config"]["BLOCK"] for row in points["rows"]} == {1024}  # the captured constexpr kept
    releases = json.loads(run_cli_ok("versions", f"{run}:scale_add#2", "--arch", "sm_90", "--json"))
    installed = [row for row in releases if row["installed"]]
    assert len(installed) == 1 and installed[0]["error"] is None and installed[0]["facts"]["registers"] > 0


# --- a package's kernel: the captured copy overlays the package where it lives -----------------------------

PACKAGE = {
    "shop/__init__.py": "from shop.settings import FACTOR\nREADY = True\n",
    "shop/settings.py": "FACTOR = 3.0\nBLOCK = 128\n",
    "shop/ops/__init__.py": "",
    "shop/ops/scale.py": (
        "import triton\nimport triton.language as tl\n\nimport shop\nfrom shop.settings import BLOCK\n"
        "from ..settings import FACTOR\n\nassert shop.READY  # the package's own __init__ ran\n\n"
        "@triton.jit\ndef scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n"
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 3.0, mask=offs < n)\n\n"
        "def launch(x, y):\n    scale[(triton.cdiv(x.numel(), BLOCK),)](x, y, x.numel(), BLOCK=BLOCK)\n"),
}
PACKAGE_PROGRAM = ("import torch\nfrom shop.ops.scale import launch\n"
                   "x = torch.ones(4096)\nlaunch(x, torch.empty_like(x))\n")


@pytest.mark.parametrize("init_raises", [False, True], ids=["init-runs", "init-raises"])
def test_a_packages_kernel_compiles_from_the_captured_text_with_the_files_the_capture_did_not_keep(
        tmp_path, init_raises):
    """Only the kernel's file is captured; `--source captured` finds the package's other modules (its
    settings, its __init__) where the package lives, also when that __init__ raises off the run's machine."""
    from capture_programs import capture_interpreted

    for name, text in PACKAGE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text.replace("assert shop.READY", "pass") if init_raises else text)
    path = capture_interpreted(tmp_path, PACKAGE_PROGRAM)
    kernel = tmp_path / "shop/ops/scale.py"
    kernel.write_text(kernel.read_text().replace("* 3.0", "* 4.0"))
    if init_raises:  # as a serving engine's __init__ that asks for the GPU: loaded without running it
        (tmp_path / "shop/__init__.py").write_text("raise RuntimeError('no GPU here')\n")
    captured = resolve_one(f"{path}:scale", RefOptions(source="captured"))
    current = resolve_one(f"{path}:scale", RefOptions(source="current"))
    assert "3.000000e+00" in captured.artifacts.text("ttir") and "4.000000e+00" in current.artifacts.text("ttir")
    assert Path(captured.source_file).parts[-3:] == ("shop", "ops", "scale.py")
    assert run_cli("check", f"{path}:scale", "--source", "captured").exit_code == 0


def test_a_capture_from_another_machine_finds_the_rest_of_the_package_where_it_is_installed(tmp_path, monkeypatch):
    from capture_programs import capture_interpreted

    run_folder, here = tmp_path / "run", tmp_path / "site"
    # earlier tests' package roots, which this process put on sys.path, hold a `shop` too: not this machine's
    monkeypatch.setattr(sys, "path", [p for p in sys.path if not p.startswith(str(tmp_path.parent.parent))])
    for name, text in PACKAGE.items():
        (run_folder / name).parent.mkdir(parents=True, exist_ok=True)
        (run_folder / name).write_text(text)
    path = capture_interpreted(run_folder, PACKAGE_PROGRAM)
    here.mkdir()
    (run_folder / "shop").rename(here / "shop")  # the run's folder is gone
    assert_one_line_error(run_cli("report", f"{path}:scale"), EXIT_USAGE, "not on this machine", "--source captured")
    assert_one_line_error(run_cli("report", f"{path}:scale", "--source", "captured"), EXIT_USAGE,
                          "No module named 'shop.settings'")  # the package is nowhere here
    monkeypatch.syspath_prepend(str(here))  # the package, installed here
    assert "3.000000e+00" in resolve_one(f"{path}:scale", RefOptions(source="captured")).artifacts.text("ttir")
