"""The parts of `predict` around the model (docs/predict.md): a captured run's kernels by predicted time, the
sweep's `time` column, `diff --device` (doc 003 §5), and predictions kept beside their builds."""

from __future__ import annotations

import json
from pathlib import Path


import pytest

from cli_helpers import assert_one_line_error, run_cli, run_cli_ok

EXAMPLE = "tests/data/captures/example.ttcap"
ADD_GRID = "cdiv(n_elems, BLOCK_SIZE)"


def capture_json(*args: str) -> dict:
    return json.loads(run_cli_ok("predict", *args, "--source", "captured", "--json"))


def test_a_capture_s_kernels_by_predicted_time():
    data = capture_json(EXAMPLE)
    kernels = data["kernels"]
    assert [k["kernel"] for k in kernels][:2] in (["tiled_mm#2", "tiled_mm#1"], ["tiled_mm#1", "tiled_mm#2"])
    assert [k["high_ms"] for k in kernels] == sorted((k["high_ms"] for k in kernels), reverse=True)
    assert {k["kernel"]: k["launches"] for k in kernels} == {"tiled_mm#1": 10, "tiled_mm#2": 13, "scale_add#1": 3,
                                                             "scale_add#2": 3}
    for k in kernels:  # each site's launches multiply the time of one
        (site,) = k["sites"]
        assert k["low_ms"] == pytest.approx(site["count"] * site["launches"][0]["time_ms"])
    assert data["total_low_ms"] == pytest.approx(sum(k["low_ms"] for k in kernels))
    assert sum(k["share"][0] for k in kernels) == pytest.approx(1.0)
    # the autotuner's measured timings (a capture made on a GPU) beside the prediction
    measured = {k["kernel"]: k["measured_ms_per_launch"] for k in kernels}
    assert measured == {"tiled_mm#1": 0.214, "tiled_mm#2": 0.171, "scale_add#1": None, "scale_add#2": None}
    assert data["device"] == "H100 SXM" and data["figures"] == "datasheet"


def test_the_text_and_one_kernel_of_a_capture():
    text = run_cli_ok("predict", f"{EXAMPLE}:tiled_mm#2", "--source", "captured", "--device", "h200")
    lines = text.splitlines()
    assert lines[0].startswith(f"{EXAMPLE} on H200 (datasheet figures): 13 launches of 1 compiles, predicted")
    assert "measured/launch" in lines[1] and lines[2].split()[0] == "tiled_mm#2" and "0.1710 ms" in lines[2]


def _edited(tmp_path, edit) -> str:
    """The example capture with its `launches` records changed by `edit(record)`."""
    out = tmp_path / "edited.ttcap"
    lines = []
    for line in open(EXAMPLE).read().splitlines():
        record = json.loads(line)
        if record.get("type") == "launches":
            edit(record)
        lines.append(json.dumps(record))
    out.write_text("\n".join(lines) + "\n")
    return str(out)


def test_what_a_capture_does_not_record_is_a_range_or_unknown_never_a_guess(tmp_path):
    def edit(record):
        if record["compile"] == "k4":  # two grids, one argument set: how many launches had each is not kept
            record["grids"] = [[4, 1, 1], [100000, 1, 1]]
        elif record["compile"] == "k3":  # two of each: which grid went with which arguments is not kept
            record["grids"] = [[1, 1, 1], [2, 1, 1]]
            record["args"] = [record["args"][0], {**record["args"][0], "n": 2000}]
        elif record["compile"] == "k1":
            record["grids"] = []

    data = capture_json(_edited(tmp_path, edit))
    by_name = {k["kernel"]: k for k in data["kernels"]}
    ranged = by_name["scale_add#2"]
    assert ranged["low_ms"] < ranged["high_ms"]
    assert ranged["share"][0] < ranged["share"][1]
    assert by_name["scale_add#1"]["high_ms"] is None
    assert "without which went together" in by_name["scale_add#1"]["sites"][0]["reason"]
    assert by_name["tiled_mm#1"]["sites"][0]["reason"] == "no grid recorded at this site"
    assert [k["kernel"] for k in data["kernels"]][-2:] in (["tiled_mm#1", "scale_add#1"],
                                                           ["scale_add#1", "tiled_mm#1"])
    assert data["total_high_ms"] == pytest.approx(sum(k["high_ms"] or 0 for k in data["kernels"]))
    text = run_cli_ok("predict", _edited(tmp_path, edit), "--source", "captured")
    assert "no time (unknown):" in text and "a range:" in text


@pytest.mark.parametrize("pairs, predicted", [([[0, 0], [1, 1]], True), ([[0, 0], [0, 1]], False)])
def test_which_grid_went_with_which_arguments_predicts_each_shape(tmp_path, pairs, predicted):
    """A site launched at two shapes (a test suite's): with each grid's arguments recorded (`pairs`), each shape
    is predicted and the site is a range between them; pairs that leave a grid without its arguments are not
    enough (unknown, said)."""
    def edit(record):
        if record["compile"] == "k3":
            record["grids"] = [[1, 1, 1], [2, 1, 1]]
            record["args"] = [record["args"][0], {**record["args"][0], "n": 2000}]
            record["pairs"] = pairs

    (kernel,) = [k for k in capture_json(_edited(tmp_path, edit))["kernels"] if k["kernel"] == "scale_add#1"]
    (site,) = kernel["sites"]
    if predicted:
        assert len(site["launches"]) == 2 and site["reason"] is None
        times = [p["time_ms"] for p in site["launches"]]
        assert site["low_ms"] == pytest.approx(site["count"] * min(times))
        assert site["high_ms"] == pytest.approx(site["count"] * max(times))
    else:
        assert kernel["high_ms"] is None and "without which went together for every one" in site["reason"]


def test_a_kernel_that_cannot_be_built_is_listed_with_the_reason(tmp_path):
    data = json.loads(run_cli_ok("predict", EXAMPLE, "--json"))  # its file is not on this machine
    assert all(k["high_ms"] is None and "changed since the capture" in k["reason"] for k in data["kernels"])


@pytest.mark.parametrize("option", [["--launch-grid", "(1,)"], ["--size", "64"], ["--arch", "sm_80"]])
def test_a_capture_s_launches_take_no_launch_options(option):
    assert_one_line_error(run_cli("predict", EXAMPLE, *option), 2, "does not apply")


def sweep_json(*args: str) -> dict:
    return json.loads(run_cli_ok("sweep", "add", "--grid", "BLOCK_SIZE=256,1024,4096", "--arch", "sm_90", *args,
                                 "--json"))


def test_the_sweep_s_time_column_sorts_filters_and_prunes_like_any_fact():
    rows = sweep_json("--launch-grid", ADD_GRID, "--sort", "time")["rows"]
    times = [row["facts"]["time"] for row in rows]
    assert all(t > 0 for t in times) and times == sorted(times)
    assert all(row["facts"]["time_bound"] for row in rows)
    top = sweep_json("--launch-grid", ADD_GRID, "--sort", "-time", "--top", "1")["rows"]
    assert len(top) == 1 and top[0]["facts"]["time"] == max(times)
    kept = sweep_json("--launch-grid", ADD_GRID, "--where", f"time < {max(times)}")["rows"]
    assert len(kept) == len([t for t in times if t < max(times)])
    csv = run_cli_ok("sweep", "add", "--grid", "BLOCK_SIZE=256,1024", "--arch", "sm_90", "--launch-grid", ADD_GRID,
                     "--columns", "time,registers", "--csv")
    assert csv.splitlines()[0] == "BLOCK_SIZE,arch,label,time,registers,error"
    lines = run_cli_ok("sweep", "add", "--grid", "BLOCK_SIZE=256,1024", "--arch", "sm_90", "--launch-grid",
                       ADD_GRID, "--sort", "time", "--top", "1", "--autotune-configs").splitlines()
    assert lines[0].startswith("# 1 config(s)") and len(lines) == 2


def test_a_shipped_variant_s_sweep_is_timed_with_its_launcher_s_grid():
    rows = sweep_json("--sort", "time")["rows"]
    assert all(row["facts"]["time"] > 0 for row in rows), [row["reasons"] for row in rows]
    with_grid = sweep_json("--launch-grid", ADD_GRID, "--sort", "time")["rows"]
    assert [row["facts"]["time"] for row in rows] == [row["facts"]["time"] for row in with_grid]
    assert_one_line_error(run_cli("sweep", "add", "--grid", "BLOCK_SIZE=256", "--device", "H300"), 2,
                          "unknown device 'H300'")


def test_diff_with_a_device_gives_doc_003_section_5():
    args = ["diff", "add", "add:BLOCK_SIZE=256", "--arch", "sm_90", "--launch-grid", ADD_GRID]
    data = json.loads(run_cli_ok(*args, "--device", "h200", "--json"))
    predicted = data["predicted"]
    a, b = predicted["a"], predicted["b"]
    assert predicted["device"] == "H200" and predicted["figures"] == "datasheet"
    assert predicted["speedup"] == pytest.approx(a["time_ms"] / b["time_ms"])
    terms = {t["term"]: t for t in predicted["terms"]}
    assert a["bound"] in terms and terms["launch"]["change"] == pytest.approx(0.0)
    assert {"changes", "predicted"} <= set(data) or "predicted" in data
    text = run_cli_ok(*args, "--device", "h200")
    assert "predicted on H200 (datasheet figures):" in text and "speedup B over A:" in text
    plain = json.loads(run_cli_ok("diff", "add", "add:BLOCK_SIZE=256", "--arch", "sm_90", "--json"))
    assert "predicted" not in plain
    assert_one_line_error(run_cli(*args, "--device", "h200", "--format", "sarif"), 2, "go with text or json")


ADD_FILE = (Path(__file__).parent / "data" / "add_kernel_file.py").read_text()


def test_diff_without_a_grid_says_why_there_is_no_time(tmp_path):
    # a kernel of the user's file: its launch (and so its grid) is the user's code, which is not read
    source = tmp_path / "add_kernel.py"
    source.write_text(ADD_FILE)
    ref = f"{source}:add_kernel"
    text = run_cli_ok("diff", f"{ref}:BLOCK_SIZE=1024", f"{ref}:BLOCK_SIZE=256", "--arch", "sm_90",
                      "--signature", "*fp32, *fp32, *fp32, i32", "--device", "h100")
    assert f"A {ref}:BLOCK_SIZE=1024: no prediction: no grid" in text, text
    assert f"B {ref}:BLOCK_SIZE=256: no prediction: no grid" in text, text


# Doc 003 §5 on the shipped variants, as the issue types it: no --launch-grid, the launcher's own grid (Variant.grid,
# kept as data in kernels/registry.py), at the size given. Programs below are worked out by hand from each launcher.
def test_doc_003_s_commands_need_no_grid_and_predict_at_the_size_given():
    data = json.loads(run_cli_ok("predict", "opt", "--arch", "sm_90", "--size", "4096", "--json"))
    assert data["time_ms"] > 0 and data["details"]["programs"] == (4096 // 128) * (4096 // 32)
    assert data["details"]["tensor_core_flops"] == 2 * 4096 ** 3
    diff = json.loads(run_cli_ok("diff", "naive", "opt", "--size", "2048", "--device", "rtx-4090", "--json"))
    a, b = diff["predicted"]["a"], diff["predicted"]["b"]
    assert diff["predicted"]["device"] == "RTX 4090" and diff["predicted"]["speedup"] > 0
    # naive: a 2-D grid of 64x64 tiles; opt: one dimension of 128x32 tiles; both at M = N = K = 2048
    assert a["details"]["programs"] == 32 * 32 and b["details"]["programs"] == 16 * 64
    assert a["details"]["tensor_core_flops"] == b["details"]["tensor_core_flops"] == 2 * 2048 ** 3
    text = run_cli_ok("diff", "naive", "opt", "--size", "2048", "--device", "rtx-4090")
    assert "speedup B over A:" in text and "no grid" not in text


@pytest.mark.parametrize("variant, programs", [
    ("square", 128 * 128),  # (cdiv(M, 32), cdiv(N, 32)) at 4096
    ("add", (1 << 24) // 1024),  # cdiv(n_elems, BLOCK_SIZE)
    ("softmax", 4 * 132),  # persistent over 4096 rows: 4 programs per SM of the H100 SXM
    ("attn", (4096 // 128) * 32),  # (N_CTX // BLOCK_M, Z)
    ("opt_tma", 132),  # persistent: min(NUM_SMS, tiles)
    ("tileon", (4096 // 128) * (4096 // 256)),
])
def test_each_shipped_variant_launches_as_its_launcher_does(variant, programs):
    data = json.loads(run_cli_ok("predict", variant, "--arch", "sm_90", "--json"))
    assert data["time_ms"] > 0 and data["details"]["programs"] == programs, data.get("reason")


def test_an_amd_target_is_predicted_from_its_own_stages():
    # an AMD build has AMDGCN, no PTX: the model reads what the target has (the PTX read was NVIDIA's only)
    data = json.loads(run_cli_ok("predict", "opt", "--arch", "gfx942", "--json"))
    assert data["device"] == "MI300X" and data["time_ms"] > 0 and data["details"]["tensor_core_path"] == "mfma"
    assert any("no SASS counts" in line for line in data["assumptions"])


def test_a_prediction_is_kept_beside_its_build_and_read_back():
    from ttinspect import inspect
    from ttinspect.perf.memo import PREFIX, from_dict
    from ttinspect.perf.predict import predict

    grid = (1024,)
    first = predict("add", arch="sm_90", config={"BLOCK_SIZE": 1024}, grid=grid)
    entry = inspect("add", "sm_90", config={"BLOCK_SIZE": 1024}).build.artifacts.directory
    kept = sorted(entry.glob(f"{PREFIX}*.json"))
    assert kept, "no prediction kept in the entry"
    again = predict("add", arch="sm_90", config={"BLOCK_SIZE": 1024}, grid=grid)
    assert again == first
    # the entry may hold other tests' predictions of the same build too (the H200 has the same sm_90 build)
    assert "H100 SXM" in {from_dict(json.loads(path.read_text())).device for path in kept}
    other = predict("add", arch="sm_90", config={"BLOCK_SIZE": 1024}, grid=(2048,))
    assert other.time_ms != first.time_ms and len(list(entry.glob(f"{PREFIX}*.json"))) == len(kept) + 1


def test_a_damaged_kept_prediction_is_predicted_again():
    from ttinspect import inspect
    from ttinspect.perf.memo import PREFIX
    from ttinspect.perf.predict import predict

    first = predict("add", arch="sm_90", config={"BLOCK_SIZE": 512}, grid=(7,))
    entry = inspect("add", "sm_90", config={"BLOCK_SIZE": 512}).build.artifacts.directory
    for path in entry.glob(f"{PREFIX}*.json"):
        path.write_text("{damaged")
    assert predict("add", arch="sm_90", config={"BLOCK_SIZE": 512}, grid=(7,)) == first




def test_values_in_a_signature_and_a_named_device_are_all_a_prediction_needs(tmp_path):
    # the issue's `predict my.py:matmul --signature "..." --launch-grid ... --device h200`: the signature's values
    # are the launch's (as --arg's), and the device names the target (no --arch), in predict, sweep and diff alike
    source = tmp_path / "add_kernel.py"
    source.write_text(ADD_FILE)
    ref, signature = f"{source}:add_kernel", "*fp32, *fp32, *fp32, 1048576"
    data = json.loads(run_cli_ok("predict", ref, "--signature", signature, "--set", "BLOCK_SIZE=1024",
                                 "--launch-grid", ADD_GRID, "--device", "h200", "--json"))
    assert data["device"] == "H200" and data["details"]["programs"] == 1024, data
    rows = json.loads(run_cli_ok("sweep", ref, "--signature", signature, "--grid", "BLOCK_SIZE=256,1024",
                                 "--launch-grid", ADD_GRID, "--device", "h200", "--sort", "time", "--json"))["rows"]
    assert len(rows) == 2 and all(row["facts"]["time"] > 0 for row in rows), [row["reasons"] for row in rows]
    diff = json.loads(run_cli_ok("diff", f"{ref}:BLOCK_SIZE=1024", f"{ref}:BLOCK_SIZE=256", "--signature", signature,
                                 "--launch-grid", ADD_GRID, "--device", "h200", "--json"))["predicted"]
    assert diff["device"] == "H200"
    assert (diff["a"]["details"]["programs"], diff["b"]["details"]["programs"]) == (1024, 4096)
    assert_one_line_error(run_cli("predict", ref, "--signature", signature, "--device", "h300"), 2,
                          "unknown device 'h300'")


def test_a_problem_size_that_is_no_argument_sets_the_grid_too():
    # attention's Z (batch × heads) is no kernel argument, so builds at every Z are one cached build: the grid is
    # the build's own request (its label), not the problem the cached entry was first made for
    programs = [json.loads(run_cli_ok("predict", "attn", "--set", f"Z={z}", "--set", "N_CTX=2048", "--arch", "sm_90",
                                      "--json"))["details"]["programs"] for z in (1, 64, 32)]
    assert programs == [2048 // 128 * 1, 2048 // 128 * 64, 2048 // 128 * 32]
