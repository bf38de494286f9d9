"""`ttinspect passes`: the dump splitter on a trimmed real dump, the snapshot facts, the timelines of opt on
sm_90 and sm_80, --show / --loop, `diff --passes`, a user's file, the cache: reference refused, the warm
path without triton, and a damaged cached timeline recomputed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import assert_one_line_error, run_cli, run_cli_ok, run_process

from ttinspect.errors import UsageError
from ttinspect.passes.dump import split_dump
from ttinspect.compile.markers import final_marker, stage_marker
from ttinspect.dialects.normalize import for_pass_diff
from ttinspect.passes.snapshot_facts import snapshot_facts
from ttinspect.passes.timeline import build_timeline, group_passes

DATA = Path(__file__).parent / "data"
# The dumps of opt for sm_90 on Triton 3.9, from before assign-latencies to before the loop-aware CSE
# after the pipeliner, with the stage marker compile.py printed before them (tests/data/passes/).
GOLDEN = DATA / "passes" / "opt_sm90_pipeliner.dump"
USER_FILE = DATA / "user_kernels" / "my_mm.py"


def history_json(ref: str, arch: str) -> dict:
    return json.loads(run_cli_ok("passes", ref, "--arch", arch, "--json"))


def row(data: dict, argument: str) -> dict:
    (found,) = [r for r in data["passes"] if r["argument"] == argument]
    return found


def changed(entry: dict) -> dict:
    return {c["key"]: (c["before"], c["after"]) for c in entry["changed_facts"]}


# --- the splitter, on a real dump -------------------------------------------------------------------

def test_split_a_real_dump():
    dumps = split_dump(GOLDEN.read_text())
    assert [(d.kind, d.argument) for d in dumps] == [
        ("before", "tritongpu-assign-latencies"), ("before", "tritongpu-schedule-loops"),
        ("before", "tritongpu-pipeline"), ("step", "LowerLoops"), ("step", "ExpandLoops"), ("before", "canonicalize")]
    assert {d.stage for d in dumps} == {"ttgir"}
    assert dumps[0].name == "TritonGPUAssignLatencies" and dumps[0].options == "num-stages=4"
    assert dumps[3].name == "SoftwarePipeliner: LowerLoops"
    for d in dumps:  # every snapshot is one whole module, header excluded
        assert "IR Dump" not in d.text and d.text.count("tt.func public @matmul_opt_kernel") == 1


def test_timeline_of_the_real_dump():
    data = build_timeline(GOLDEN.read_text())
    pipeline = row(data, "tritongpu-pipeline")
    facts = changed(pipeline)
    assert facts["async_copies"][0] == 0 and facts["async_copies"][1] > 0
    assert all(shape.count("x") == 3 for shape in facts["shared_buffers"][1])  # a buffer dimension in front
    assert pipeline["ops_added"]["ttg.async_copy_global_to_local"] == facts["async_copies"][1]
    assert [s["name"] for s in pipeline["steps"]] == ["LowerLoops", "ExpandLoops"]
    assert changed(row(data, "tritongpu-assign-latencies"))["latency_ops"] == (0, 2)
    assert row(data, "canonicalize")["changed"] is None  # the window ends before its result was printed


@pytest.mark.parametrize("header, expected", [
    ("// -----// IR Dump Before TritonGPUPipeline: tritongpu-pipeline{num-stages=3  dump=true} "
     "('builtin.module' operation) //----- //", ("before", "TritonGPUPipeline", "tritongpu-pipeline",
                                                  "num-stages=3 dump=true", "builtin.module", None)),
    ("// -----// IR Dump Before Canonicalizer (canonicalize) ('builtin.module' operation) //----- //",
     ("before", "Canonicalizer", "canonicalize", "", "builtin.module", None)),
    ("// -----// IR Dump Before CanonicalizeLLVMIR: canonicalize-llvm-ir ('llvm.func' operation: @k) //----- //",
     ("before", "CanonicalizeLLVMIR", "canonicalize-llvm-ir", "", "llvm.func", "k")),
    ("// -----// WarpSpec internal IR Dump After: doTaskPartition",
     ("step", "WarpSpec: doTaskPartition", "doTaskPartition", "", "builtin.module", None)),
])
def test_headers(header, expected):
    (dump,) = split_dump(f"a warning first\n{header}\nmodule {{\n}}\n")
    assert (dump.kind, dump.name, dump.argument, dump.options, dump.scope, dump.symbol) == expected
    assert dump.text == "module {\n}"


def test_function_dumps_fold_into_their_module_pass_and_stages_close_with_the_final_module():
    def before(argument, scope="builtin.module", symbol=None):
        where = f"'{scope}' operation" + (f": @{symbol}" if symbol else "")
        return f"// -----// IR Dump Before P: {argument} ({where}) //----- //\n"

    text = (stage_marker("ttir") + before("inline") + "module {\n  tt.func @k() {\n  }\n}\n"
            + before("canonicalize", "tt.func", "k") + "tt.func @k() {\n}\n"
            + before("cse") + "module {\n  tt.func @k() {\n    tt.return\n  }\n}\n"
            + final_marker("ttir") + "module {\n}\n")
    passes = group_passes(split_dump(text))
    assert [p.header.argument for p in passes] == ["inline", "cse"]
    assert passes[0].nested == ["canonicalize (@k)"]
    assert passes[0].after == passes[1].before and passes[1].after == "module {\n}"
    rows = build_timeline(text)["passes"]
    from ttinspect.passes import PassRow

    row_ = PassRow.from_dict(rows[0])
    assert row_.title == "inline + canonicalize"  # the folded pass is named where its changes are counted
    twice = PassRow.from_dict({**rows[0], "nested": ["canonicalize (@k)", "canonicalize (@j)"]})
    assert twice.title == "inline + canonicalize×2"


def test_unknown_headers_stay_text():
    dumps = split_dump("// -----// IR Dump Before P: p ('builtin.module' operation) //----- //\nA\n"
                       "// -----// something else\nB\n")
    assert [d.text for d in dumps] == ["A\n// -----// something else\nB"]


# --- snapshot facts: pure functions over the text ---------------------------------------------------

@pytest.mark.parametrize("text, key, value", [
    ("%a = tt.load %p {tt.latency = 2 : i32} : tensor<128x32x!tt.ptr<f16>>\n%b = tt.load %q : t\n",
     "latency_ops", 1),
    ("%a = tt.load %p : t\n%b = tt.load %q : t\ntt.store %p, %a : t\n", "loads", 2),
    ("scf.for %i = %a to %b step %c {\n} {tt.scheduled_max_stage = 3 : i32}\n", "scheduled_max_stage", 3),
    ("%a = arith.addi %x, %y {loop.cluster = 4 : i32, loop.stage = 0 : i32} : i32\n", "loop_stage_ops", 1),
    ("%a = ttg.local_alloc : () -> !ttg.memdesc<4x128x32xf16, #shared, #smem, mutable>\n"
     "%b = ttg.local_alloc %t : (tensor<32x32xf16, #b>) -> !ttg.memdesc<32x32xf16, #shared, #smem>\n",
     "shared_buffers", ["32x32xf16", "4x128x32xf16"]),
    ("%t = ttg.async_copy_global_to_local %p, %d mask %m : t -> <128x32xf16>\n", "async_copies", 1),
    ("%w = ttg.async_wait %a, %b {num = 4 : i32}\n%v = ttg.async_wait {num = 0 : i32}\n", "async_waits", [0, 4]),
    ("#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1]}>\n"
     "%c = arith.constant dense<0.0> : tensor<128x32xf32, #mma>\n", "mma_version", [3]),
    # what the LLVM lowering leaves: the alias used only by unrealized casts (canonicalize-llvm-ir drops them)
    ("#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0}>\n"
     "%0 = builtin.unrealized_conversion_cast %1 : !llvm.struct<(f32)> to tensor<128x32xf32, #mma>\n",
     "mma_version", None),
    ("#mma1 = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0}>\n#mma = #ttg.nvidia_mma<{versionMajor = 3}>\n"
     "%c = arith.constant dense<0.0> : tensor<128x32xf32, #mma1>\n", "mma_version", [2]),
    ("%a = tt.load %p {tt.latency = 3 : i32} : t\n%b = tt.load %q {tt.latency = 2 : i32} : t\n", "latencies", [2, 3]),
    # sm_100: the mbarriers' allocation is not a data buffer (`barriers` counts them)
    ("%b = ttg.local_alloc : () -> !ttg.memdesc<2x1xi64, #shared, #smem, mutable>\n"
     "%x = ttg.local_alloc : () -> !ttg.memdesc<3x128x64xf16, #shared1, #smem, mutable>\n"
     "%y = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared, #smem, mutable>\n",
     "shared_buffers", ["3x128x64xf16"]),
    ("%c = arith.constant dense<0.0> : tensor<128x32xf32, #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0}>>\n",
     "mma_version", [2]),
    ("module {\n}\n", "mma_version", None),
    ("%d = ttng.warp_group_dot %a, %b, %c : x\n%e = tt.dot %a, %b, %c : y\n", "dots",
     {"tt.dot": 1, "ttng.warp_group_dot": 1}),
    ("ttng.async_tma_copy_global_to_local %d[%x] %m, %b, %p : t\n%d = tt.make_tensor_descriptor %p : t\n",
     "tma_ops", {"tt.make_tensor_descriptor": 1, "ttng.async_tma_copy_global_to_local": 1}),
    ("ttg.warp_specialize(%a)\n", "warp_specialize", 1),
    ("%r:3 = scf.for %i = %a to %b step %c iter_args(%x = %y) -> (i32) {\n}\n", "scf_for", 1),
    ('%r = "tt.reduce"(%x) <{axis = 0 : i32}> ({\n})\n', "loads", 0),
])
def test_snapshot_facts(text, key, value):
    assert snapshot_facts(text)[key] == value


def test_normalization_hides_names_and_locations_only():
    a = '%acc_77 = tt.dot %a_3, %b_4, %acc_12 : t loc(#loc3)\n#loc3 = loc("k.py":3:1)\n%5 = arith.addi %arg3, %4 : i32'
    b = '%acc_80 = tt.dot %a_9, %b_1, %acc_2 : t loc(callsite(#loc1 at #loc2))\n%9 = arith.addi %arg7, %8 : i32'
    expected = ["%acc = tt.dot %a, %b, %acc : t", "%# = arith.addi %arg#, %# : i32"]
    assert for_pass_diff(a) == for_pass_diff(b) == expected
    assert for_pass_diff(a) != for_pass_diff(a.replace("tt.dot", "ttng.warp_group_dot"))


# --- the timeline of opt ------------------------------------------------------------------------------

@pytest.mark.parametrize("arch, version, dot_op", [("sm_90", 3, "ttng.warp_group_dot"), ("sm_80", 2, "tt.dot")])
def test_opt_timeline(arch, version, dot_op):
    data = history_json("opt", arch)
    assert data["target"] == arch and data["passes"] and data["unchanged"] > 0
    matmul = changed(row(data, "tritongpu-accelerate-matmul"))
    assert matmul["mma_version"] == (None, [version])
    assert row(data, "tritongpu-accelerate-matmul")["facts_after"]["dots"] == {dot_op: 1}
    assert changed(row(data, "tritongpu-assign-latencies"))["latency_ops"][1] > 0
    # the MMA layout goes with the lowering that removes its tensors, not with a later cleanup
    (gone,) = [r for r in data["passes"] if changed(r).get("mma_version", (None, 0))[1] is None]
    assert gone["argument"] == "convert-triton-gpu-to-llvm"
    pipeline = changed(row(data, "tritongpu-pipeline"))
    assert pipeline["async_copies"][0] == 0 < pipeline["async_copies"][1]
    assert pipeline["shared_buffers"][1] and all(s.count("x") == 3 for s in pipeline["shared_buffers"][1])
    assert pipeline["loads"] == (2, 0)
    stages = [r["stage"] for r in data["passes"]]
    assert stages == sorted(stages, key=["ttir", "ttgir", "llir"].index)  # stages in pipeline order
    assert data["passes"][-1]["changed"] is not None  # the last pass's result comes from the stage marker


def test_python_api():
    from ttinspect.engine.builds import build
    from ttinspect.passes import PassRow, history

    h = history(build("opt", arch="sm_90"))
    first = h.first_change("async_copies")
    assert isinstance(first, PassRow) and first.argument == "tritongpu-pipeline"
    assert h.facts_after(first.index)["async_copies"].value > 0
    assert h.facts_after("tritongpu-pipeline")["shared_buffers"].value == tuple(first.facts_after["shared_buffers"])
    assert h.facts_after("tritongpu-accelerate-matmul")["mma_version"].value == (3,)
    assert h.first_change("warp_specialize") is None
    assert all(r.changed is not False for r in h.rows) and len(h.rows) + h.unchanged == len(h.passes)
    assert h.find("TritonGPUPipeline") is h.find("tritongpu-pipeline") is h.find(str(first.index))
    with pytest.raises(UsageError, match="canonicalize#2"):
        h.find("canonicalize")
    with pytest.raises(UsageError, match="valid"):
        h.first_change("no_such_fact")
    assert json.loads(json.dumps(h.as_dict()))["passes"][0]["index"] == 1


# --- --show, --loop, --all, bad input -----------------------------------------------------------------

def test_show_a_pass():
    out = run_cli_ok("passes", "opt", "--arch", "sm_90", "--show", "tritongpu-assign-latencies")
    plus = [line for line in out.splitlines() if line.startswith("+") and not line.startswith("+++")]
    minus = [line for line in out.splitlines() if line.startswith("-") and not line.startswith("---")]
    assert plus and all("tt.latency" in line for line in plus) and len(plus) == len(minus)
    assert all(line[1:].replace(" {tt.latency = 3 : i32}", "") in {m[1:] for m in minus} for line in plus)


def test_show_with_loop_restricts_the_diff():
    whole = json.loads(run_cli_ok("passes", "opt", "--arch", "sm_90", "--show", "tritongpu-pipeline", "--json"))
    loop = json.loads(run_cli_ok("passes", "opt", "--arch", "sm_90", "--show", "tritongpu-pipeline", "--loop",
                                 "--json"))
    assert loop["loop"] and 0 < loop["lines_added"] < whole["lines_added"]
    body = [line for line in loop["unified"].splitlines()[2:] if line[:1] in "+-"]
    assert body[0].startswith("-") and "scf.for" in body[0]  # the diff starts at the loop
    assert "ttg.async_copy_global_to_local" in loop["unified"]
    lowered = json.loads(run_cli_ok("passes", "opt", "--arch", "sm_90", "--show", "convert-triton-gpu-to-llvm",
                                    "--loop", "--json"))
    assert lowered["unified"] == "" and "no main loop" in lowered["note"]


STAGED = DATA / "passes" / "staged.py"
STAGED_SIGNATURE = "*fp32:16, *fp32:16, i32:16, 256"


def test_loop_is_the_main_loop_of_the_rest_of_the_tool():
    """A pipelined loop without a dot is the main loop for `report`, `dump --loop`: so for --loop too."""
    from ttinspect.dialects.main_loop import main_loop_slice
    from ttinspect.refs.resolver import RefOptions, resolve_one

    ref = f"{STAGED}:staged_sum"
    built = resolve_one(ref, RefOptions(signature=STAGED_SIGNATURE, arch="sm_80"))
    assert main_loop_slice("ttgir", built.artifacts.text("ttgir")).start_line is not None
    common = ("passes", ref, "--signature", STAGED_SIGNATURE, "--arch", "sm_80")
    shown = json.loads(run_cli_ok(*common, "--show", "tritongpu-pipeline", "--loop", "--json"))
    assert shown["lines_added"] > 0 and "no main loop" not in shown["note"]
    assert "ttg.async_copy_global_to_local" in shown["unified"]
    assert "(no change" not in run_cli_ok(*common, "--show", "tritongpu-pipeline", "--loop")
    data = history_json_args(*common)
    loop = json.loads(run_cli_ok(*common, "--loop", "--json"))["loop_lines"]
    assert loop[str(row(data, "tritongpu-pipeline")["index"])]["added"] > 0
    # the loop's lines, the module's ops and facts: the columns say which (wide enough for the ops column)
    text = run_cli_ok(*common, "--loop", "--width", "200")
    assert "lines (main loop)" in text and "ops (whole module)" in text and text.count("(whole module)") == 2


def history_json_args(*args: str) -> dict:
    return json.loads(run_cli_ok(*args, "--json"))


def test_show_json_has_the_pipeliner_steps():
    shown = json.loads(run_cli_ok("passes", "opt", "--arch", "sm_90", "--show", "tritongpu-pipeline", "--json"))
    assert [s["name"] for s in shown["steps"]] == ["LowerLoops", "ExpandLoops"]
    assert shown["steps"][0]["changed_facts"] and "ops_added" in shown["steps"][1]


def test_show_by_occurrence_and_index():
    second = json.loads(run_cli_ok("passes", "opt", "--arch", "sm_90", "--show", "canonicalize#2", "--json"))
    assert second["pass"] == "canonicalize#2"
    by_index = json.loads(run_cli_ok("passes", "opt", "--arch", "sm_90", "--show", str(second["index"]), "--json"))
    assert by_index == second


def test_all_lists_unchanged_passes_and_loop_counts():
    data = history_json("opt", "sm_90")
    text = run_cli_ok("passes", "opt", "--arch", "sm_90", "--all", "--width", "200")
    unchanged = [r for r in data["passes"] if r["changed"] is False]
    assert unchanged and unchanged[0]["label"] in text
    loop = json.loads(run_cli_ok("passes", "opt", "--arch", "sm_90", "--loop", "--json"))["loop_lines"]
    pipeline = row(data, "tritongpu-pipeline")["index"]
    assert loop[str(pipeline)]["added"] > 0 and loop[str(row(data, "convert-triton-gpu-to-llvm")["index"])] is None


@pytest.mark.parametrize("show, fragments", [
    ("pipline", ("no pass 'pipline'", "tritongpu-pipeline")),
    ("canonicalize", ("canonicalize ran", "canonicalize#2")),
    ("canonicalize#99", ("canonicalize ran",)),
    ("999", ("no pass 999",)),
])
def test_bad_show(show, fragments):
    assert_one_line_error(run_cli("passes", "opt", "--arch", "sm_90", "--show", show), 2, *fragments)
    assert_one_line_error(run_cli("passes", "opt", "--arch", "sm_90", "--show", show, "--json"), 2, *fragments)


# --- diff --passes ------------------------------------------------------------------------------------

def test_diff_passes_finds_where_num_stages_matters():
    data = json.loads(run_cli_ok("diff", "opt", "opt:num_stages=1", "--arch", "sm_90", "--passes", "--json"))["passes"]
    assert data["input_same_text"] and not data["input_differences"]
    first = data["first_fact_difference"]
    a, b = history_json("opt", "sm_90"), history_json("opt:num_stages=1", "sm_90")
    index = first["a"]["index"]
    # every earlier pass leaves the same facts on both sides; this one does not
    for ra, rb in zip(a["passes"][:index - 1], b["passes"][:index - 1], strict=True):
        assert ra["argument"] == rb["argument"] and ra["facts_after"] == rb["facts_after"]
    ra, rb = a["passes"][index - 1], b["passes"][index - 1]
    assert ra["facts_after"] != rb["facts_after"]
    assert set(data["facts"]) == {k for k in ra["facts_after"] if ra["facts_after"][k] != rb["facts_after"][k]}
    assert first["a"]["label"] in ("tritongpu-assign-latencies", "tritongpu-schedule-loops", "tritongpu-pipeline")
    text = run_cli_ok("diff", "opt", "opt:num_stages=1", "--arch", "sm_90", "--passes")
    assert f"first fact difference: pass {index} {first['a']['label']}" in text


def test_diff_passes_of_different_sources_diverge_at_the_input():
    data = json.loads(run_cli_ok("diff", "naive", "opt", "--arch", "sm_90", "--passes", "--json"))["passes"]
    assert not data["input_same_text"] and data["first_fact_difference"] is not None
    text = run_cli_ok("diff", "naive", "opt", "--arch", "sm_90", "--passes")
    assert "at the input" in text
    # every output differs when the inputs do: no "first output text difference" then
    assert data["first_text_difference"] is None and "first output text difference" not in text
    # the facts listed at the first fact difference were equal on both sides just before that pass
    a, b = history_json("naive", "sm_90"), history_json("opt", "sm_90")
    first = data["first_fact_difference"]

    def before(history, index):
        return history["passes"][index - 2]["facts_after"] if index > 1 else history["input"]["facts"]

    fa, fb = before(a, first["a"]["index"]), before(b, first["b"]["index"])
    assert data["facts"] and all(fa[key] == fb[key] for key in data["facts"])


def test_diff_passes_latencies_part_at_assign_latencies():
    """num_stages 3 vs 4: both mark the same loads, with other latencies: a fact says so."""
    data = json.loads(run_cli_ok("diff", "opt:num_stages=3", "opt", "--arch", "sm_90", "--passes",
                                 "--json"))["passes"]
    assert data["first_fact_difference"]["a"]["label"] == "tritongpu-assign-latencies"
    assert data["facts"]["latencies"]["a"] == [2, 2] and data["facts"]["latencies"]["b"] == [3, 3]


# --- other references, the cache ----------------------------------------------------------------------

def test_user_file_kernel():
    data = json.loads(run_cli_ok("passes", f"{USER_FILE}:add_kernel", "--signature",
                                 "*fp32:16, *fp32:16, *fp32:16, i32:16", "--set", "BLOCK=1024", "--arch", "sm_80",
                                 "--json"))
    assert "add_kernel" in data["label"] and data["input"]["facts"]["loads"] == 2
    assert all(not r["facts_after"]["dots"] for r in data["passes"])


def test_user_file_read_back_from_its_memo(tmp_path):
    """A fresh process that finds the file reference in its memo (no triton) still gets its history."""
    own_cache = {"TTINSPECT_CACHE_DIR": str(tmp_path / "cache")}
    ref = f"{USER_FILE}:add"
    assert run_process("dump", ref, "--arch", "sm_80", env=own_cache).returncode == 0
    done = run_process("passes", ref, "--arch", "sm_80", "--json", env=own_cache)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["passes"]


def test_triton_cache_entry_is_refused_in_one_line():
    entry = next(p for p in sorted((DATA / "triton_cache").iterdir()) if (p / "matmul.json").is_file())
    result = run_cli("passes", f"cache:{entry.name[:10]}", env={"TRITON_CACHE_DIR": str(DATA / "triton_cache")})
    assert_one_line_error(result, 2, "Triton's cache", "no source")


def test_warm_passes_imports_neither_triton_nor_torch():
    assert run_process("passes", "opt", "--arch", "sm_90", "--json").returncode == 0  # warm (or warms) the cache
    code = ("import sys; from ttinspect.cli.main import cli\n"
            "try:\n    cli(['passes', 'opt', '--arch', 'sm_90', '--show', 'tritongpu-pipeline'],\n"
            "        prog_name='ttinspect')\n"
            "except SystemExit as done:\n    assert done.code in (0, None), done.code\n"
            "print('MODULES', sorted(m for m in ('triton', 'torch') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "MODULES []"


def test_damaged_timeline_is_recomputed_without_compiling():
    from ttinspect.engine.builds import build
    from ttinspect.passes.store import TIMELINE

    good = run_process("passes", "opt", "--arch", "sm_80", "--json")
    assert good.returncode == 0
    timeline = build("opt", arch="sm_80").artifacts.directory / TIMELINE
    timeline.write_text('{"schema": 1, "passes": []}')  # valid JSON, wrong content: only the digest tells
    code = ("import sys; from ttinspect.cli.main import cli\n"
            "try:\n    cli(['passes', 'opt', '--arch', 'sm_80', '--json'], prog_name='ttinspect')\n"
            "except SystemExit as done:\n    assert done.code in (0, None), done.code\n"
            "print('MODULES', sorted(m for m in ('triton', 'torch') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "damaged" in done.stderr and "deriving it again" in done.stderr
    out, modules = done.stdout.rsplit("MODULES", 1)
    assert json.loads(out) == json.loads(good.stdout) and modules.strip() == "[]"  # re-read from the raw dump


@pytest.mark.parametrize("command", ["passes", "report"])
def test_malformed_reference_is_named_as_such(command):
    """`:x` has no --set in it: the error names the reference, not a flag that was never given."""
    line = assert_one_line_error(run_cli(command, ":x"), 2, "malformed reference ':x'", "KEY=VALUE")
    assert "--set" not in line
    assert_one_line_error(run_cli(command, "opt", "--set", "x"), 2, "--set takes KEY=VALUE")
