"""Shapes kernel libraries give their kernels (found by the corpus, tests/corpus/, written here by shape):
a library's own launch wrapper around Triton's decorators, an early_config_prune that makes the configs a
launch times (adding a constexpr), and the API given the `--arg` text for a file's kernel."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ttinspect
from cli_helpers import run_cli_ok
from ttinspect.refs.resolver import RefOptions

WRAPPED = Path(__file__).parent / "data" / "library_shapes" / "wrapped.py"


def test_a_librarys_launch_wrapper_is_seen_through():
    listing = json.loads(run_cli_ok("list", str(WRAPPED), "--json"))
    kinds = {k["name"]: (k["kind"], k["autotune_configs"]) for k in listing["kernels"]}
    assert kinds["scale_kernel"] == ("autotune", 2)
    rows = json.loads(run_cli_ok("report", f"{WRAPPED}:scale_kernel", "--signature", "*fp32, *fp32, i32, fp32",
                                 "--config", "all", "--arch", "sm_90", "--json"))
    assert [row["config"]["BLOCK"] for row in rows] == [128, 256]


def test_configs_the_pruner_makes_supply_their_constexprs():
    rows = json.loads(run_cli_ok("report", f"{WRAPPED}:staged_sum", "--signature", "*fp32, *fp32, i32",
                                 "--config", "all", "--arch", "sm_90", "--json"))
    assert [(row["config"]["BLOCK"], row["config"]["NUM_STAGES"]) for row in rows] == [(64, 1), (64, 2), (128, 1),
                                                                                      (128, 2)]
    assert "made 4 of its own (#3-#6" in rows[0]["note"]
    one = json.loads(run_cli_ok("report", f"{WRAPPED}:staged_sum", "--signature", "*fp32, *fp32, i32",
                                "--config", "4", "--arch", "sm_90", "--json"))
    assert one["config"]["NUM_STAGES"] == 2 and one["label"].endswith("#4")


def test_the_api_takes_the_arg_text_and_dtype_text_for_a_files_kernel():
    report = ttinspect.inspect(f"{WRAPPED}:scale_kernel", "sm_90", args={"x_ptr": "*fp16", "y_ptr": "*fp16",
                                                                          "n": "i32:16", "factor": 2.0}, config=1)
    assert report.config["BLOCK"] == 128
    norm = Path(__file__).parent / "data" / "autotune_shapes" / "many_constexprs.py"
    sets = {"BLOCK_SIZE": 1024, "NUM_ROWS_PER_PROGRAM": 4, "HAS_WEIGHT": True, "HAS_BIAS": True,
            "IS_RMS_NORM": False, "CASTING_MODE": "llama", "OFFSET": 0.0, "USE_FAST_RSQRT": True,
            "STORE_RSTD": True, "ELEMENTWISE_AFFINE": True, "ACCUMULATE_IN_FP32": True, "compute_type": "tl.bfloat16"}
    report = ttinspect.inspect(f"{norm}:fused_norm", "sm_90", signature="*bf16:16, *bf16:16, *fp32:16, *bf16:16, "
                               "i32:16, fp32", config=sets)
    assert report.as_dict()["config"]["compute_type"] == "tl.bfloat16"


@pytest.mark.parametrize("args, words", [({"n": "i32:16", "x_ptr": "*fp16"}, ("n=i32:16", "x_ptr=*fp16")),
                                         ({"n": 4096, "flag": True}, ("n=4096", "flag=true"))])
def test_text_arguments_reach_another_triton(args, words):
    assert RefOptions({}, args).words()[1] == words
