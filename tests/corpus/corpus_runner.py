"""One corpus entry on one target, through ttinspect's public API and its CLI, as a Row: what
scripts/corpus.py tabulates and tests/test_corpus.py asserts.

A row is `ok` when every promise holds:
- `ttinspect.inspect(REF, arch, args=..., config=...)` compiles it (cold: nothing cached) and its findings
  (`ttinspect check`'s) are computed;
- every loop that is pipelined (it issues asynchronous copies: cp.async, TMA) has its depth known;
- `ttinspect.build_jit(kernel, args_with_real_cpu_torch_tensors, config)` — the specialization real tensors
  get — compiles the same PTX (AMDGCN on AMD targets), in a cache of its own so that it is a compile of its own;
- `ttinspect report REF ... --json` (twice: the second is the warm time) and `ttinspect check REF ... --json`
  exit 0 in processes of their own.
Anything else is `fail` with the first reason — `unsupported` when the release is not one the entry lists
(`tritons`), with the manifest's reason beside the error. Nothing is hidden: an exception becomes the row's
reason, and a row under an unlisted release still runs (it may work).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterator

from corpus_manifest import Entry, api_args, api_config, cli_words, real_args, reference

NVIDIA_STAGE, AMD_STAGE = "ptx", "amdgcn"
CLI_TIMEOUT_S = 600


@dataclass
class Row:
    id: str
    library: str
    kernel: str
    target: str
    status: str = "fail"  # ok | fail | unsupported (failed under a release the entry does not list)
    reason: str = ""
    cold_s: float | None = None
    warm_s: float | None = None
    triton: str | None = None  # the release, when not the installed one
    depths: list[Any] = field(default_factory=list)  # each loop's pipeline depth (None: unknown or n/a)
    findings: dict[str, int] = field(default_factory=dict)  # severity -> count
    same_code: bool | None = None  # offline == build_jit with real tensors

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@contextlib.contextmanager
def environment(**values: str) -> Iterator[None]:
    """Set environment variables for the block, restoring what was there."""
    before = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}".strip()


def kernel_object(entry: Entry, ref: str) -> Any:
    """The kernel object ttinspect loaded for `ref` (the package's module, or the file ttinspect loaded as a
    module of its own) — not imported a second time here: a package may need ttinspect's set-up to load."""
    module = sys.modules.get(entry.module)
    if module is None or not hasattr(module, entry.name):
        path = os.path.realpath(ref.rpartition(":")[0]) if ref.count(":") and "/" in ref else None
        module = next((m for m in list(sys.modules.values())
                       if path and os.path.realpath(getattr(m, "__file__", None) or "") == path
                       and hasattr(m, entry.name)), None)
    if module is None:
        raise LookupError(f"{entry.module} was not loaded by ttinspect")
    return getattr(module, entry.name)


def jit_function(obj: Any) -> Any:
    """The @triton.jit function inside an autotuner / heuristics stack."""
    from triton.runtime.jit import JITFunction  # the corpus runs where triton is

    while not isinstance(obj, JITFunction):
        obj = obj.fn
    return obj


def pipelined_loops_without_depth(report: Any) -> list[str]:
    """Loops that issue asynchronous copies (so are pipelined) but whose depth is unknown. AMD reports carry
    no per-loop facts: there the main loop counts as pipelined when it runs matrix instructions (the stream
    pipeliner's loops), and the kernel's depth must then be known."""
    if not report.loops and "pipeline_depth" in report and "loop_tensor_core_ops" in report:
        if report["loop_tensor_core_ops"] and report["pipeline_depth"] is None:
            return [f"main loop: {report.fact('pipeline_depth').display()}"]
        return []
    missing = []
    for loop in report.loops:
        facts = loop["facts"]
        copies = facts.get("async_copies")
        issues_copies = copies is not None and copies.value not in (None, 0, (), "", {})
        if issues_copies and "pipeline_depth" in facts and facts["pipeline_depth"].value is None:
            missing.append(f"{loop['group']}: {facts['pipeline_depth'].display()}")
    return missing


def stage_of(target: str) -> str:
    return AMD_STAGE if target.startswith("gfx") else NVIDIA_STAGE


def inspect_entry(entry: Entry, target: str, ref: str) -> Any:
    import ttinspect  # the API under test

    config = api_config(entry, target)
    if entry.autotune_config_for(target) is None:
        return ttinspect.inspect(ref, target, args=api_args(entry, target), config=config)
    return ttinspect.inspect(ref, target, args=api_args(entry, target), config=entry.autotune_config_for(target),
                             **config)


def same_code_as_real_launch(entry: Entry, target: str, ref: str, report: Any) -> str | None:
    """None when build_jit with real CPU tensors compiles the same code; else what differs."""
    import ttinspect  # the API under test

    fn = jit_function(kernel_object(entry, ref))
    stage = stage_of(target)
    with tempfile.TemporaryDirectory(prefix="ttinspect-corpus-jit-") as own_cache:
        with environment(TTINSPECT_CACHE_DIR=own_cache):
            built = ttinspect.build_jit(fn, real_args(entry, target), dict(report.build.config), arch=target)
            theirs = built.artifacts.text(stage)
    ours = report.build.artifacts.text(stage)
    if ours == theirs:
        return None
    ours_lines, theirs_lines = ours.splitlines(), theirs.splitlines()
    differing = next((i for i, (a, b) in enumerate(zip(ours_lines, theirs_lines, strict=False)) if a != b),
                     min(len(ours_lines), len(theirs_lines)))
    return (f"{stage} differs from build_jit with real tensors at line {differing + 1}: "
            f"{ours_lines[differing:differing + 1]} vs {theirs_lines[differing:differing + 1]}")


def run_cli(words: list[str], env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess, float]:
    """`python -m ttinspect WORDS` in a process of its own, timed."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "ttinspect", *words], capture_output=True, text=True,
                          timeout=CLI_TIMEOUT_S, env={**os.environ, **(env or {})})
    return done, time.perf_counter() - start


def cli_failure(done: subprocess.CompletedProcess, command: str) -> str | None:
    if done.returncode == 0 and "Traceback" not in done.stderr:
        return None
    lines = [line for line in done.stderr.splitlines() if line.strip()] or ["(no output)"]
    return f"`ttinspect {command}` exit {done.returncode}: {lines[-1][:300]}"


def severities(findings: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for finding in findings:
        severity = finding["severity"] if isinstance(finding, dict) else finding.severity
        out[severity] = out.get(severity, 0) + 1
    return out


def installed_triton() -> str:
    from importlib.metadata import version  # no triton import

    return version("triton")


def listed(entry: Entry, release: str) -> bool:
    return not entry.tritons or release in entry.tritons


def mark_unsupported(row: Row, entry: Entry, release: str) -> Row:
    """A failed row under a release the entry does not list says why the manifest expects that."""
    if row.status == "fail" and not listed(entry, release):
        row.status = "unsupported"
        row.reason = f"{entry.unsupported or 'not listed'} (works with Triton {', '.join(entry.tritons)}): {row.reason}"
    return row


def run_row(entry: Entry, target: str, form: str = "module") -> Row:
    """The entry on `target` with the installed Triton (see the module docstring), in the entry's environment."""
    with environment(**entry.env_for(target)):
        return mark_unsupported(_run_row(entry, target, form), entry, installed_triton())


def _run_row(entry: Entry, target: str, form: str) -> Row:
    row = Row(entry.id, entry.library, entry.module_ref, target)
    try:
        ref = reference(entry, form)
        start = time.perf_counter()
        report = inspect_entry(entry, target, ref)
        row.cold_s = time.perf_counter() - start
        row.findings = severities(report.findings)
        row.depths = [loop["facts"]["pipeline_depth"].value for loop in report.loops
                      if "pipeline_depth" in loop["facts"]]
        missing = pipelined_loops_without_depth(report)
        if missing:
            row.reason = "pipelined loop with unknown depth: " + "; ".join(missing)
            return row
        differs = same_code_as_real_launch(entry, target, ref, report)
        row.same_code = differs is None
        if differs:
            row.reason = differs
            return row
    except Exception as error:  # the row says what went wrong, whatever it was
        row.reason = first_line(error)
        return row
    # The first report may resolve the reference again (the API's values, e.g. a tl.dtype object, key its
    # record apart from the command line's text); the second is warm.
    failure, _, _ = report_twice_and_check(row, [ref, *cli_words(entry, target), "--json"])
    if failure:
        row.reason = failure
        return row
    row.status = "ok"
    return row


def report_twice_and_check(row: Row, words: list[str]) -> tuple[str | None, float, str | None]:
    """`report` (cold), `report` again (warm: row.warm_s), then `check`, each in a process of its own, stopping at
    the first that fails: (its reason or None, the cold report's seconds, check's stdout when it ran)."""
    done, cold_s = run_cli(["report", *words])
    failure = cli_failure(done, "report")
    if failure is None:
        done, row.warm_s = run_cli(["report", *words])
        failure = cli_failure(done, "report")
    checked = None
    if failure is None:
        checked, _ = run_cli(["check", *words])
        failure = cli_failure(checked, "check")
    return failure, cold_s, checked.stdout if checked is not None else None


def run_row_other_triton(entry: Entry, target: str, triton: str, form: str = "module") -> Row:
    """The entry on `target` under another Triton release (`REF@triton=X.Y.Z`, a toolchain of its own):
    through the CLI only (the API takes text arguments there), no build_jit comparison (that compiles
    with the installed Triton)."""
    with environment(**entry.env_for(target)):
        return mark_unsupported(_run_row_other_triton(entry, target, triton, form), entry, triton)


def _run_row_other_triton(entry: Entry, target: str, triton: str, form: str) -> Row:
    row = Row(entry.id, entry.library, entry.module_ref, target, triton=triton)
    try:
        ref = reference(entry, form)
    except Exception as error:
        row.reason = first_line(error)
        return row
    failure, row.cold_s, checked = report_twice_and_check(row, [f"{ref}@triton={triton}",
                                                                *cli_words(entry, target), "--json"])
    if failure is None:
        with contextlib.suppress(ValueError, KeyError, TypeError):
            row.findings = severities(json.loads(checked or "").get("findings", []))
    if failure:
        row.reason = failure
        return row
    row.status = "ok"
    return row


def fresh_caches(root: Path) -> dict[str, str]:
    """Empty ttinspect and Triton caches under `root`, so that cold times are cold."""
    (root / "ttinspect").mkdir(parents=True, exist_ok=True)
    (root / "triton").mkdir(parents=True, exist_ok=True)
    return {"TTINSPECT_CACHE_DIR": str(root / "ttinspect"), "TRITON_CACHE_DIR": str(root / "triton")}
