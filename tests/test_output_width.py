"""The tour's output is whole at any width from 80 (issue 42): no line wider than the width, no boxed table
cropped (every row keeps its right border), no word cut or split in its middle, no column dropped without a
line saying which and how to see it, rows that differ read differently; and what is said for many facts is
said once. Each command runs through CliRunner at 80, 100 and 200 columns, and at 1000, the width where
nothing is cut: the words of the narrow output must be words of the wide one (a word cut to `instructi…`
or split to `conver` / `sions` is not one)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cli_helpers import run_cli_ok
from rich.cells import cell_len

from ttinspect.render import fit

DATA = Path(__file__).parent / "data"
MM = str(DATA / "user_kernels" / "my_mm.py")
GLUON = [str(DATA / "gluon" / "hopper_matmul.py") + ":matmul_kernel", "--arch", "sm_90", "--signature",
         "tensordesc<fp16[128, 64]>, tensordesc<fp16[64, 128]>, tensordesc<fp16[128, 128]>, i32:16, 3"]
WIDTHS = (80, 100, 200)
WIDE = 1000

TOUR = {
    "list": ["list"],
    "report": ["report", "opt", "--arch", "sm_90"],
    "report --explain": ["report", "opt", "--arch", "sm_90", "--explain"],
    "report --by-line": ["report", "opt", "--by-line"],
    "diff": ["diff", "naive", "opt"],
    "diff --all": ["diff", "opt", "opt:num_stages=3", "--all"],
    "diff across vendors": ["diff", "opt@sm_90", "opt@gfx942"],
    "diff --passes": ["diff", "opt", "opt:num_stages=1", "--arch", "sm_90", "--passes"],
    "passes": ["passes", "opt", "--arch", "sm_90"],
    "check": ["check", "opt", "--arch", "sm_90"],
    "list my_mm.py": ["list", MM],
    "diff my_mm.py examples": ["diff", f"{MM}:small", f"{MM}:big"],
    "report gluon": ["report", *GLUON],
    "cache": ["cache"],
    "targets": ["targets"],
}

LEFT_OUT = re.compile(r"^left out at \d+ columns: ")
BOX_START, BOX_END = "┏┃┡│└", "┓┃┩│┘"


def output(args: list[str], width: int) -> str:
    return run_cli_ok(*args, "--width", width, env={"COLUMNS": str(width), "NO_COLOR": "1"})


def words(text: str) -> set[str]:
    """The words of a text: runs of letters and digits (`_`, `.`, `-` are punctuation a label may break at)."""
    return {w for w in re.findall(r"[A-Za-z0-9]+", text) if not w.isdigit()}


def left_out_lines(text: str) -> list[int]:
    """The indexes of the lines of the "left out at N columns: ... (--width, --json)" note, wrapped."""
    lines, found = text.splitlines(), []
    for k, line in enumerate(lines):
        if LEFT_OUT.match(line):
            found.append(k)
            while not lines[found[-1]].rstrip().endswith(")") and found[-1] + 1 < len(lines):
                found.append(found[-1] + 1)
    return found


def without_left_out(text: str) -> str:
    """The text less the note naming the columns a narrow width left out (its words are its own)."""
    skip = set(left_out_lines(text))
    return "\n".join(line for k, line in enumerate(text.splitlines()) if k not in skip)


def left_out_heads(text: str) -> str:
    lines = text.splitlines()
    return " ".join(lines[k].strip() for k in left_out_lines(text))


def table_heads(text: str) -> list[str]:
    """The column headings of the first boxed table, each with its wrapped lines joined."""
    rows = [line for line in text.splitlines() if line.startswith("┃")]
    if not rows:
        return []
    columns = [cell.strip() for cell in rows[0].strip("┃").split("┃")]
    for line in rows[1:]:
        for k, cell in enumerate(line.strip("┃").split("┃")):
            if cell.strip():
                columns[k] += " " + cell.strip()
    return columns


def table_rows(text: str) -> list[tuple[str, ...]]:
    """The body rows of the first boxed table as their cells (rows of one line each)."""
    return [tuple(c.strip() for c in line.strip("│").split("│")) for line in text.splitlines()
            if line.startswith("│")]


@pytest.fixture(scope="module")
def wide() -> dict[str, str]:
    return {name: output(args, WIDE) for name, args in TOUR.items()}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", list(TOUR))
def test_every_line_fits_and_no_word_is_cut(name, width, wide):
    text = output(TOUR[name], width)
    for line in text.splitlines():
        assert cell_len(line) <= width, f"{name} at {width}: a line of {cell_len(line)} columns:\n{line}"
        if line[:1] in BOX_START:  # a boxed table's row keeps its right border: nothing cropped
            assert line.rstrip()[-1:] in BOX_END, f"{name} at {width}: a cropped row:\n{line}"
    # the notes of what this width could not show (columns left out, rows that read alike) are the width's own
    # (both notes may stand under one table: each is taken out whole before the words are compared)
    alike = r"\d+ kernel\(s\) read like another here.*?what differs\)"
    own = re.sub(alike, "", " ".join(without_left_out(text).split()))
    alien = words(own) - words(wide[name])
    assert not alien, f"{name} at {width}: words cut or split in their middle: {sorted(alien)}"
    assert not re.search(r"[A-Za-z0-9]…[A-Za-z0-9]", text), f"{name} at {width}: an ellipsis inside a word"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", ["passes", "cache"])
def test_a_column_left_out_is_named_and_rows_stay_apart(name, width, wide):
    text = output(TOUR[name], width)
    shown, every = table_heads(text), table_heads(wide[name])
    assert shown and every
    missing = [head for head in every if head not in shown]
    note = left_out_heads(text)
    for head in missing:
        assert head.split(" (")[0] in note, f"{name} at {width}: column {head!r} left out without saying so"
    if name == "cache":  # rows that differ at the wide width (the id column aside) differ at this one too, or
        # the output says how many read alike (hundreds of kernels differing in a dozen ways cannot fit 80 columns)
        merged = len({r[1:] for r in table_rows(wide[name])}) - len({r[1:] for r in table_rows(text)})
        said = re.search(r"(\d+) kernel\(s\) read like another here", " ".join(text.split()))
        assert merged == (int(said.group(1)) if said else 0), (merged, text[-600:])


def test_a_shared_unknown_reason_is_said_once():
    for width in WIDTHS:
        text = output(TOUR["report gluon"], width)
        assert " ".join(text.split()).count("a Gluon kernel has no TTIR") == 1, text
        assert "unknown [1]:" in text


def test_evidence_names_the_line_it_found_on_each_vendor():
    text = output(TOUR["diff across vendors"], 100)
    block = text[text.index("• tensor-core path"):]
    gfx = next(line for line in block.splitlines() if line.strip().startswith("opt@gfx942:"))
    assert "v_mfma" in gfx and "(no such line)" not in text


def test_diff_headers_break_at_punctuation_not_inside_a_word():
    text = output(TOUR["diff my_mm.py examples"], 80)
    header = [line for line in text.splitlines()[:6] if "my_mm.py:small#1" in line]
    assert header, text
    for side in ("my_mm.py:small#1@sm_89", "my_mm.py:big#3@sm_89"):
        flat = "".join(text.split())
        assert side in flat


def test_snapshot_check_text_wraps_to_the_width(capsys):
    from ttinspect.ci.snapshot_text import snapshot_text
    from ttinspect.render import term
    from ttinspect.snapshot.gate import gate

    def entry(**facts):
        return {"kernel": "k.py:k", "target": "sm_90", "file": "k.py", "line": 3, "facts": facts, "findings": []}

    key = "mylib/ops/a_rather_long_module_name.py:fused_attention_forward_kernel@sm_90"
    committed = {"entries": {key: entry(spills=0, pipeline_depth=3, tensor_core_path="wgmma")}}
    now = {key: entry(spills=24, pipeline_depth=1, tensor_core_path="mma.sync")}
    report = gate(committed, now, fail_on="warning", guard=("spills", "pipeline_depth", "tensor_core_path"))
    for width in WIDTHS:
        term.configure(width=width)
        snapshot_text(report, 1.0)
        text = capsys.readouterr().out
        assert text.startswith("FAIL") and all(len(line) <= width for line in text.splitlines()), text
        assert key in "".join(text.split()) and "spills" in text


@pytest.mark.parametrize("text, room", [("my_mm.py:small#1@sm_89", 19), ("tritongpu-remove-layout-conversions#1", 18),
                                        ("m16n8k16.row.col.f32.f16.f16.f32×16", 19),
                                        ("mask comparisons per load in the loop", 24)])
def test_fit_breaks_only_at_boundaries(text, room):
    lines = fit.wrap(text, room)
    assert all(len(line) <= room for line in lines) and "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert words(" ".join(lines)) <= words(text)
    cut = fit.cut(text, room - 4)
    assert len(cut) <= room - 4 and cut.endswith("…") and words(cut) <= words(text)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_cache_of_many_kernels_fits_and_keeps_its_styles(width, capsys):
    """Whatever Triton's cache holds (the suite's own fills it with hundreds of entries): spilled kernels
    marked in yellow as markup, not printed as `[yellow]258[/yellow]` text that overflows the width; rows
    that differ only by target, warps or stages still differ; every column left out is named."""
    from types import SimpleNamespace

    from ttinspect.render import term
    from ttinspect.render.cache_table import cache_table

    def row(k: int) -> SimpleNamespace:
        return SimpleNamespace(id=f"{k:03d}{'X' * 23}", name=f"_fused[k]_{k % 7}",
                               target=("sm_90", "hip:gfx942", "sm_80")[k % 3], num_warps=4 << (k % 2),
                               num_stages=2 + k % 4, shared=1024 * (k % 5), registers=64 + k % 3,
                               spills=(0, 258, None)[k % 3], depth=None if k % 5 == 0 else 1 + k % 3,
                               tensor_core_path=("wgmma", "mfma", "mma.sync")[k % 3],
                               source=f"/lib/ops/op{k % 4}.py:{10 + k}", triton_version="3.9.0",
                               unknown={} if k % 3 != 2 else {"spills": "no cubin"}, missing=[])

    rows = [row(k) for k in range(120)]
    term.configure(width=width, color="never")
    try:
        cache_table(rows, "/cache")
    finally:
        term.reset()
    text = capsys.readouterr().out
    assert "[yellow]" not in text and "[/yellow]" not in text, text
    for line in text.splitlines():
        assert cell_len(line) <= width, f"a line of {cell_len(line)} columns at {width}:\n{line}"
        if line[:1] in BOX_START:
            assert line.rstrip()[-1:] in BOX_END, f"a cropped row at {width}:\n{line}"
    assert "_fused[k]_" in text  # a name's brackets are text, not markup
    assert len(set(table_rows(text))) == len(rows)


@pytest.mark.parametrize("width", WIDTHS)
def test_kernels_that_read_alike_at_a_width_are_counted_under_the_table(width, capsys):
    """Sixty kernels whose names differ only past where a name is cut, and in target, warps and stages: where
    the width cannot keep every row apart, the line under the table counts the rows that read like another."""
    from types import SimpleNamespace

    from ttinspect.render import term
    from ttinspect.render.cache_table import cache_table

    rows = [SimpleNamespace(id=f"{k:03d}{'X' * 23}", name=f"_fused_add_rms_norm_forward_kernel_{k % 9}",
                            target=("sm_90", "sm_80")[k % 2], num_warps=4 << (k % 2), num_stages=2 + k % 3,
                            shared=1024, registers=64, spills=0, depth=2, tensor_core_path="wgmma",
                            source="/lib/ops/op.py:10", triton_version="3.9.0", unknown={}, missing=[])
            for k in range(60)]

    def table_at(columns: int) -> str:
        term.configure(width=columns, color="never")
        try:
            cache_table(rows, "/cache")
        finally:
            term.reset()
        return capsys.readouterr().out

    text, wide = table_at(width), table_at(WIDE)
    merged = len({r[1:] for r in table_rows(wide)}) - len({r[1:] for r in table_rows(text)})
    said = re.search(r"(\d+) kernel\(s\) read like another here", " ".join(text.split()))
    assert merged == (int(said.group(1)) if said else 0), text
