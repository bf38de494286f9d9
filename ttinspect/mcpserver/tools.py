"""The server's tools as data: name, description, input schema, output schema (JSON Schema 2020-12 subsets
every MCP client reads). Nothing here imports the SDK or compiles anything: `server` lists these, `worker`
runs them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SCALAR = {"type": ["string", "integer", "number", "boolean"]}

KERNEL = {"type": "string", "description":
          "A kernel reference, as the CLI takes it: a shipped variant (`opt`, `naive:num_stages=3@sm_90`), a kernel or "
          "declared example in a file under the roots (`my_mm.py:matmul`, `kernels/attn.py:small`), a module whose "
          "file is under the roots (`pkg.ops:kern`), a Triton cache entry (`cache:3fa9c2`) or a captured compile "
          "(`run.ttcap:matmul_kernel#2`). With `code`: the name of the kernel or example in that code, optionally "
          "with the same tail (`matmul:BLOCK_M=64@sm_90`)."}
CODE = {"type": "string", "description":
        "The text of a Python file holding the kernel (your draft), used instead of a file: it is written to a "
        "scratch file named by its content, so line numbers in evidence are lines of this text."}
ARCH = {"type": "string", "description": "Target: sm_80, sm_89 (default), sm_90, sm_100, gfx942, ... (what the "
                                         "installed Triton compiles for)."}
SETTINGS = {"type": "object", "additionalProperties": SCALAR, "description":
            "Constexprs, compile options and problem values: {\"num_stages\": 3, \"BLOCK_SIZE_N\": 64} "
            "(the CLI's --set)."}
ARGS = {"type": "object", "additionalProperties": SCALAR, "description":
        "Your kernel's arguments by name, as a launch passes them: {\"a_ptr\": \"*fp16\", \"M\": 4096} "
        "(the CLI's --arg)."}
SIGNATURE = {"type": "string", "description":
             "The kernel's arguments in order, as Triton's AOT compiler writes them: \"*fp16:16, i32:16, 64\"."}
CONFIG = {"type": ["string", "integer"], "description":
          "An @triton.autotune kernel's N-th config (1-based), or `best` for a shipped variant."}
DEVICE_PROPS = {"type": "object", "additionalProperties": SCALAR, "description":
                "Overrides of the target's virtual device seen by your code at import: {\"num_sms\": 114}."}
SOURCE = {"type": "string", "enum": ["captured", "current"], "description":
          "A captured kernel whose file changed since the run: compile the text the capture kept, or the file now."}

KERNEL_INPUTS = {"kernel": KERNEL, "code": CODE, "arch": ARCH, "settings": SETTINGS, "args": ARGS,
                 "signature": SIGNATURE, "config": CONFIG, "device_props": DEVICE_PROPS, "source": SOURCE}

STAGES = ["ttir", "glir", "ttgir", "llir", "ptx", "sass", "amdgcn", "asm"]
SEVERITY = {"type": "string", "enum": ["info", "warning", "error"]}

_OBJ = {"type": "object"}
_ARR = {"type": "array"}
_STR = {"type": "string"}
_INT = {"type": "integer"}
_OPT_STR = {"type": ["string", "null"]}
_OPT_INT = {"type": ["integer", "null"]}

FINDING = {"type": "object", "required": ["id", "slug", "severity", "title", "evidence", "why", "fix", "edit"],
           "properties": {"id": _STR, "slug": _STR, "severity": SEVERITY, "title": _STR, "evidence": _ARR,
                          "why": _STR, "fix": _STR,
                          "edit": {"type": "object", "required": ["kind", "instruction"],
                                   "properties": {"kind": {"type": "string", "enum": ["settings", "code", "none"]},
                                                  "instruction": _STR, "file": _OPT_STR, "settings": _OBJ,
                                                  "lines": _ARR}}}}


def _object(required: list[str], properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": required, "properties": properties}


def _inputs(required: list[str], properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": required, "properties": properties, "additionalProperties": False}


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    read_only: bool = True  # writes nothing but ttinspect's cache (and the agent's drafts in the scratch folder)


TOOLS: tuple[Tool, ...] = (
    Tool("list_kernels", "List kernels",
         "The kernels ttinspect ships (no `file`), or the @triton.jit kernels and declared examples of a Python file "
         "or module under the roots (or of `code`), each marked kernel or device helper; a capture (FILE.ttcap) "
         "lists what the run compiled. Same JSON as `ttinspect list [FILE] --json` (the shipped list under "
         "`variants`).",
         _inputs([], {"file": {"type": "string", "description": "A .py file, a module or a .ttcap under the roots."},
                      "code": CODE, "arch": ARCH}),
         _object([], {"variants": _ARR, "file": _STR, "kernels": _ARR, "examples": _ARR, "compiles": _ARR})),
    Tool("list_capture", "List a capture",
         "What a captured run (`ttinspect capture -o run.ttcap -- CMD`) compiled: one row per compile with its "
         "kernel, target, config, launches and autotune results, and the run's header. `run.ttcap:KERNEL` lists "
         "that kernel's compiles. Same JSON as `ttinspect list run.ttcap --json`.",
         _inputs(["capture"], {"capture": {"type": "string", "description": "FILE.ttcap[:KERNEL] under the roots."}}),
         _object(["capture", "run", "compiles"], {"capture": _STR, "run": _OBJ, "compiles": _ARR})),
    Tool("report", "Compile and report facts",
         "Compile a kernel for a target (no GPU needed; cached by content) and report what the compiler did: "
         "target, config, device, and every fact (pipeline depth read from the PTX and the TTGIR, tensor-core "
         "path and ops per K step, shared memory, registers, spills, occupancy, loads and stores...), each with "
         "its explanation, per loop too. Same JSON as `ttinspect report --json`.",
         _inputs(["kernel"], KERNEL_INPUTS),
         _object(["label", "kernel", "target", "triton_version", "config", "facts", "loops"],
                 {"label": _STR, "kernel": _STR, "target": _STR, "triton_version": _STR, "config": _OBJ,
                  "facts": _OBJ, "loops": _ARR})),
    Tool("dump", "Dump one stage",
         "One compiled stage's text (ttir, ttgir, llir, ptx, sass, amdgcn; `asm`: the target's assembly), bounded: "
         "at most `max_lines` lines from `first_line`. `loop`: only the main loop; `python_line`: only the lines "
         "that come from that line of the kernel's file; `interleave`: the Python lines shown above the code "
         "they made (objdump -S). `truncated` says when more lines follow (ask again from `next_line`).",
         _inputs(["kernel"], {**KERNEL_INPUTS,
                              "stage": {"type": "string", "enum": STAGES, "default": "asm"},
                              "loop": {"type": "boolean", "default": False},
                              "python_line": {"type": "integer", "minimum": 1},
                              "interleave": {"type": "boolean", "default": False},
                              "first_line": {"type": "integer", "minimum": 1, "default": 1},
                              "max_lines": {"type": "integer", "minimum": 1, "maximum": 5000, "default": 200}}),
         _object(["label", "target", "stage", "header", "selection", "total_lines", "first_line", "last_line",
                  "truncated", "text"],
                 {"label": _STR, "target": _STR, "stage": _STR, "header": _STR, "selection": _STR,
                  "total_lines": _INT, "first_line": _OPT_INT, "last_line": _OPT_INT, "truncated": {"type": "boolean"},
                  "next_line": _OPT_INT, "text": _STR, "lines": _ARR})),
    Tool("export_stages", "Write every stage to a folder",
         "Write every stage of a compiled kernel and its metadata.json into `out`, a folder under the roots (made "
         "if missing; files already there are refused unless `force`). Same as `ttinspect dump --all --out`.",
         _inputs(["kernel", "out"], {**KERNEL_INPUTS, "out": {"type": "string"},
                                     "force": {"type": "boolean", "default": False}}),
         _object(["label", "target", "folder", "written"],
                 {"label": _STR, "target": _STR, "header": _STR, "folder": _STR, "written": _ARR}),
         read_only=False),
    Tool("diff", "Diff two kernels or configs",
         "Compare two kernels (A and B: two references, or one kernel with two `configs`, or two drafts as "
         "`code_a`/`code_b`): every changed fact with one explanation each; `stage`: also a renumbered text diff "
         "of the two main loops; `passes`: also the first compiler pass after which they part. Same JSON as "
         "`ttinspect diff --json` (`--stage`, `--passes`).",
         _inputs(["a"], {"a": KERNEL, "b": KERNEL, "code_a": CODE, "code_b": CODE, "arch": ARCH,
                         "settings": SETTINGS, "args": ARGS, "signature": SIGNATURE, "device_props": DEVICE_PROPS,
                         "configs": {"type": "array", "items": CONFIG, "minItems": 1, "maxItems": 2,
                                     "description": "One config for both sides, or A's then B's."},
                         "stage": {"type": "string", "enum": STAGES},
                         "passes": {"type": "boolean", "default": False}}),
         _object(["a", "b", "facts", "changes"],
                 {"a": _OBJ, "b": _OBJ, "facts": _OBJ, "changes": _ARR, "one_side": _OBJ, "loop_diff": _OBJ,
                  "passes": _OBJ})),
    Tool("check", "Check a kernel",
         "What is wrong with a kernel's compiled code: each finding (TTI001 loop not pipelined, TTI002 older MMA "
         "path, TTI003 spills, TTI004 occupancy, TTI005 narrow loads, TTI006 shared memory, TTI007 no TMA, ...) "
         "with its severity, evidence (IR/PTX lines and the Python line they come from), why, the fix, and `edit`: "
         "the edit the fix implies (settings to pass, or the lines of the kernel's file to change). A capture "
         "checks every compile it holds. Same JSON as `ttinspect check --json`, plus `edit`.",
         _inputs(["kernel"], {**KERNEL_INPUTS, "min_severity": {**SEVERITY, "default": "info"},
                              "passes": {"type": "boolean", "default": False, "description":
                                         "Compute the pass history first (one more compile when not cached), so "
                                         "TTI001 shows what Triton's pipelining passes did."}}),
         _object(["counts"], {"label": _STR, "kernel": _STR, "target": _STR, "triton_version": _STR,
                              "counts": _OBJ, "findings": {"type": "array", "items": FINDING},
                              "kernel_file": _OPT_STR, "compiles": _ARR})),
    Tool("sweep", "Sweep a small grid",
         "Compile a kernel at every point of a small grid of constexprs and options x targets (in parallel, "
         "cached), one row of facts per point (registers, spills, shared, fits, occupancy, pipeline depth, "
         "tensor-core path...); `where` keeps the points whose facts satisfy an expression, `sort` orders them. "
         "At most `max_points` points. Same JSON as `ttinspect sweep --json`.",
         _inputs(["kernel", "grid"], {
             "kernel": KERNEL, "code": CODE, "settings": SETTINGS, "args": ARGS, "signature": SIGNATURE,
             "config": CONFIG,
             "arch": {"type": "string", "description": "Targets, comma-separated: sm_80,sm_90."},
             "grid": {"type": "object", "minProperties": 1,
                      "additionalProperties": {"type": ["string", "array"], "items": SCALAR},
                      "description": "Axes: {\"num_stages\": \"2..5\", \"BLOCK_SIZE_N\": [32, 64, 128]} (the CLI's "
                                     "--grid: lists, A..B, A..B:x2, A..B:+S; config: \"all\")."},
             "where": {"type": "string", "description": "e.g. \"spills == 0 and fits\"."},
             "sort": {"type": "string", "description": "A fact or axis; -FACT for descending."},
             "max_points": {"type": "integer", "minimum": 1, "maximum": 256, "default": 64},
             "jobs": {"type": "integer", "minimum": 1, "maximum": 64}}),
         _object(["ref", "axes", "points", "rows"], {"ref": _STR, "axes": _ARR, "points": _INT, "rows": _ARR})),
)

BY_NAME = {tool.name: tool for tool in TOOLS}
