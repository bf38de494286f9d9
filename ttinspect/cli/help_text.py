"""Every command's one-line description (the `ttinspect --help` list: whole, never cut with "...") and
the real examples its own --help ends with. One table, so a test can check that no command lacks either."""

from __future__ import annotations

import click

SHORT = {
    "list": "The shipped variants, or the kernels in your file",
    "dump": "Print one compiled stage (ttir, ttgir, llir, ptx, sass)",
    "report": "The facts about a kernel's compiled code",
    "diff": "Compare two kernels' facts, each change explained",
    "check": "What is wrong with a kernel: evidence, why, the fix",
    "passes": "Every compiler pass: what it changed, facts it made",
    "html": "One self-contained HTML page about one or two kernels",
    "sweep": "Compile a grid of configs x targets, a row of facts each",
    "predict": "A launch's time on a named GPU, predicted offline",
    "calibrate": "Measure this GPU once: a device profile for predict (GPU)",
    "snapshot": "A library's kernels' facts in one file; --check gates CI",
    "targets": "NVIDIA targets, their limits, which Tritons compile them",
    "toolchains": "Other Triton releases to compile with (@triton=X.Y.Z)",
    "capture": "Record every Triton kernel a program compiles and launches",
    "repro": "A standalone script replaying one captured launch",
    "translate": "Triton's Triton-to-Gluon translator run on a kernel",
    "mcp": "An MCP server: these commands as tools for coding agents",
    "versions": "One kernel under several Tritons: a row of facts each",
    "cache": "The kernels in Triton's cache (torch.compile's too)",
    "cache-info": "ttinspect's own cache: where, how big, --clear",
    "bench": "TFLOP/s of variants beside cuBLAS (GPU)",
    "profile": "Nsight Compute metrics of one launch each (GPU)",
    "ladder": "Doc 003's optimisation steps, each measured (GPU)",
    "autotune": "Time every autotune config, save the winner (GPU)",
}

EXAMPLES = {
    "list": ["ttinspect list", "ttinspect list my_kernels.py", "ttinspect list --json"],
    "dump": ["ttinspect dump opt --stage ptx --arch sm_90", "ttinspect dump opt --stage ttgir --loop",
             "ttinspect dump my.py:kern --signature \"*fp16:16, *fp16:16, i32:16\" --stage sass"],
    "report": ["ttinspect report opt --arch sm_90", "ttinspect report opt --arch sm_90 --explain",
               "ttinspect report my.py:matmul --config all"],
    "diff": ["ttinspect diff naive opt", "ttinspect diff opt opt:num_stages=1 --arch sm_90 --passes",
             "ttinspect diff opt@triton=3.5.1 opt --arch sm_90", "ttinspect diff opt@sm_80 opt@sm_90 --stage ptx"],
    "check": ["ttinspect check tileon --arch sm_90", "ttinspect check opt --arch sm_90 --fail-on warning"],
    "passes": ["ttinspect passes opt --arch sm_90", "ttinspect passes opt --arch sm_90 --show tritongpu-pipeline"],
    "html": ["ttinspect html opt --arch sm_90 -o opt.html", "ttinspect html naive opt -o naive-vs-opt.html"],
    "sweep": [],  # its epilog has them (cli/sweep_cmd.py)
    "predict": [],  # its epilog has them (cli/predict_cmd.py)
    "calibrate": [],  # its epilog has them (cli/calibrate_cmd.py)
    "snapshot": [],  # its epilog has them (cli/snapshot_cmd.py)
    "targets": ["ttinspect targets", "ttinspect targets --json"],
    "capture": [],  # its epilog has them (cli/capture_cmd.py)
    "repro": [],  # its epilog has them (cli/repro_cmd.py)
    "translate": [],  # its epilog has them (cli/translate_cmd.py)
    "mcp": [],  # its epilog has them (cli/mcp_cmd.py)
    "toolchains": ["ttinspect toolchains", "ttinspect toolchains --add 3.5.1",
                   "ttinspect toolchains --add 3.6.0 --python /opt/venv-3.6/bin/python"],
    "versions": ["ttinspect versions opt --arch sm_90", "ttinspect versions opt --triton 3.5.1,3.9.0 --arch sm_90"],
    "cache": ["ttinspect cache", "ttinspect cache ~/.triton/cache --sort registers",
              "ttinspect report cache:3fa9c2"],
    "cache-info": ["ttinspect cache-info", "ttinspect cache-info --clear"],
    "bench": ["ttinspect bench naive opt", "ttinspect bench opt --sizes 1024,4096"],
    "profile": ["ttinspect profile naive opt --size 4096", "ttinspect profile opt --size 8192 --json"],
    "ladder": ["ttinspect ladder --size 4096", "ttinspect ladder --json"],
    "autotune": ["ttinspect autotune opt --size 4096", "ttinspect report opt --config best"],
}


def describe(name: str, command: click.Command) -> None:
    """The command's one-liner, and the examples its --help ends with (unless its epilog has them)."""
    command.short_help = SHORT[name]
    if command.epilog and "Examples:" in command.epilog:  # written beside the command already
        return
    examples = "\b\nExamples:\n" + "\n".join(f"  {line}" for line in EXAMPLES[name])
    command.epilog = f"{command.epilog}\n\n{examples}" if command.epilog else examples
