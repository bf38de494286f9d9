"""The entries of a snapshot: every kernel file's examples × every target, each reduced to the facts that
matter and its findings' ids — computed in parallel, warm ones read without compiling.

An entry is keyed `FILE:EXAMPLE@TARGET` with FILE relative to the library's root, so the snapshot reads
the same on every machine. Its facts are a documented, versioned subset (FACTS; docs/ci.md): what a
reviewer needs to see a regression, and what diff's explanations need to say why (shared buffers, tiles).
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import json
import os
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterator

from ttinspect.caches import store as cache
from ttinspect.dialects.stages import dialect_of
from ttinspect.dialects.mlir import dot_input_precision
from ttinspect.errors import TTInspectError, UsageError
from ttinspect.files.declared_names import mention_line
from ttinspect.files.source_files import digests, local_imports, read_regular
from ttinspect.refs.userfile import EXAMPLES_NAME, examples_in, load_module
from ttinspect.refs.loading import NO_SCOPE
from ttinspect.refs.resolver import RefOptions, import_scope
from ttinspect.engine.builds import NotCached, cached_only
from ttinspect.snapshot.schema import example_name_problem, library_path_problem, not_in_a_name
from ttinspect.snapshot.sources import function_node, places, written

FORMAT = "ttinspect-snapshot/1"  # bump when FACTS or an entry's shape changes
# The facts kept per entry: the guarded ones, what explains them, and what a reviewer reads beside them.
FACTS = ("block_sizes", "num_warps", "num_stages", "registers", "spills", "local_bytes", "shared_memory",
         "shared_buffers", "blocks_per_sm", "occupancy", "occupancy_limit", "pipeline_depth", "tensor_core_path",
         "loop_tensor_core_ops", "tma_copies", "warp_specialized")


# ptxas's spill stores and loads per thread (bytes): what TTI003 counts, beside the snapshot's `spills` (the stack
# frame the spilled values live in), so that a spills change says both numbers (explain.py). Never written.
_SPILL_TRAFFIC = ("spill_store_bytes", "spill_load_bytes")


def cached_example_names(path: Path) -> list[str] | None:
    """The names of the file's TTINSPECT_EXAMPLES as a run before found them (None: not known). They are kept in
    the cache keyed by the file and the local modules it imports, so a warm run imports nothing."""
    try:
        names = json.loads(_names_index(path).read_text())["examples"]
        if isinstance(names, list) and all(isinstance(n, str) for n in names):
            return names
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def example_names(path: Path, target: str | None = None) -> list[str]:
    """The names of the file's TTINSPECT_EXAMPLES; loading the file (running it) is the cold part, under the
    virtual device of `target` (the library's first): code that asks the GPU at import gets its answers here
    as in the entries' own imports, instead of failing for want of a GPU."""
    names = cached_example_names(path)
    if names is not None:
        return names
    module = load_module(path, scope=import_scope(target) if target else NO_SCOPE)
    names = list(examples_in(module, path))
    cache.write_json(_names_index(path), {"examples": names})
    return names


def _names_index(path: Path) -> Path:
    """Keyed by the file, the local modules it imports, and whether what they import from outside is installed
    here: a warm run in an environment that lacks torch imports the file again and fails as a cold run does,
    never passing on a cache filled where torch was there."""
    key = cache.content_key({"examples": 2, "path": os.path.realpath(path), "sources": digests(path),
                             "environment": installed(path)})
    return cache.cache_root() / "examples-index" / f"{key}.json"


def installed(path: Path) -> dict[str, str]:
    """Each top-level module the file and its local imports import from outside its folder tree, with its
    distribution's version where the two share a name (torch, triton, numpy), else whether it is found here;
    `import` statements read with `ast`, nothing imported (find_spec of a top-level name runs no code)."""
    folder = path.parent
    names: set[str] = set()
    for file in local_imports(path):
        data = read_regular(file)
        try:
            tree = ast.parse(data or b"")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names.add(node.module.split(".")[0])
    found = {}
    for name in sorted(names):
        if not name.isidentifier() or (folder / name).is_dir() or (folder / f"{name}.py").is_file():
            continue  # the library's own modules are keyed by their content (digests)
        found[name] = _presence(name)
    return found


def _presence(name: str) -> str:
    try:
        if importlib.util.find_spec(name) is None:
            return "absent"
    except (ImportError, ValueError):
        return "absent"
    try:
        return importlib.metadata.version(name)
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return "present"


def declaring(config, only: set[str] | None = None) -> tuple[list[Path], list[str]]:
    """The kernel files that declare TTINSPECT_EXAMPLES, read statically (files/declared_names.py: a file that
    does not mention the name is never imported, so a glob matching a script never runs it), and a note for
    each file left out (`only`: of these library-relative files)."""
    files, notes = [], []
    for path in config.files():
        if only is not None and os.path.relpath(path, config.root) not in only:
            continue
        if mention_line(path, EXAMPLES_NAME) is None:
            notes.append(f"{os.path.relpath(path, config.root)}: declares no {EXAMPLES_NAME} (read without "
                         "importing it), so not in the snapshot (docs/your-kernels.md says how to declare a launch)")
        else:
            files.append(path)
    return files, notes


def planned(config, only: set[str] | None = None, announce: Callable[[str], None] | None = None
            ) -> tuple[list[tuple[str, str, str]], list[str]]:
    """(entry key, reference, target) for every example × target, and a note per file with no examples.
    `announce` is told once, before any is imported, which files are imported to read their examples."""
    files, notes = declaring(config, only)
    cold = [os.path.relpath(path, config.root) for path in files if cached_example_names(path) is None]
    if cold and announce is not None:
        several = len(cold) > 1
        announce(f"importing {len(cold)} kernel file{'s' if several else ''} that declare{'' if several else 's'} "
                 f"{EXAMPLES_NAME} (their top-level code runs): {', '.join(cold)}")
    plan = []
    for path in files:
        relative = os.path.relpath(path, config.root)
        try:
            names = example_names(path, config.targets[0])
        except TTInspectError as error:  # a file that no longer loads fails its own entries, not the whole gate
            plan += [(f"{relative}:*@{target}", f"!{error}", target) for target in config.targets]
            continue
        if not names:
            notes.append(f"{relative}: {EXAMPLES_NAME} is empty, so not in the snapshot")
            continue
        for name in names:
            why = example_name_problem(name)
            # a name no key can hold is one failing entry, under a key that can be printed and written
            refused = f"!{_name_refused(path, relative, name, why)}" if why else None
            for target in config.targets:
                if refused:
                    plan.append((f"{relative}:{_escaped(name)}@{target}", refused, target))
                else:
                    plan.append((f"{relative}:{name}@{target}", f"{path}:{name}", target))
    return plan, notes


def _name_refused(path: Path, relative: str, name: object, why: str) -> str:
    """One line for an example name no entry key can hold, at the line that spells it (else the declaration's)."""
    line = (mention_line(path, name) if isinstance(name, str) else None) or mention_line(path, EXAMPLES_NAME)
    return (f"{relative}:{line or 1}: {EXAMPLES_NAME}: {why}; an entry is keyed FILE:EXAMPLE@TARGET, so rename "
            "the example (letters, digits, '_', '-', '.', spaces)")


def _escaped(name: object) -> str:
    """A refused example name as a key's EXAMPLE part: every character the key cannot hold as its escape."""
    text = name if isinstance(name, str) else repr(name)
    return "".join(_escape(c) if not_in_a_name(c) or c == "\\" else c for c in text) or "(empty)"


def _escape(char: str) -> str:
    return f"\\x{ord(char):02x}" if ord(char) < 256 else f"\\u{ord(char):04x}"


def compute(reference: str, target: str, root: str) -> dict[str, Any]:
    """One entry (a worker's whole job): the facts subset, the findings, where the kernel lives."""
    from ttinspect.check import check_reference  # the check rules load only when checking
    from ttinspect.ci.from_check import def_line_of  # the check rules load only when checking

    start = time.perf_counter()
    report, findings = check_reference(reference, RefOptions(arch=target))
    facts = {key: _jsonable(report[key]) for key in FACTS if key in report}
    build = report.build
    limit = build.target.max_shared_per_block if build is not None else None
    if limit and isinstance(facts.get("shared_memory"), int):
        facts["fits"] = facts["shared_memory"] <= limit
    facts["loop_depths"] = list(report.loop_depths)
    source = build.source_file if build is not None else None
    file = os.path.relpath(source, root).replace(os.sep, "/") if source else None
    if file is not None and library_path_problem(file):  # a kernel defined outside the library (a dependency):
        file = None  # not located, as a snapshot names no place outside the library (schema.py)
    text = (read_regular(Path(source)) or b"").decode("utf-8", "replace") if file and source else ""
    function = function_node(text, report.kernel.rpartition(":")[2]) if text else None
    examples_file, _, example = reference.partition("@triton=")[0].rpartition(":")
    declared = (Path(examples_file), example) if examples_file and Path(examples_file).is_file() else None
    loops = {f.key: f.value for f in report.facts if f.key.startswith("loop")}
    # no `device`: refs/ names the virtual device only where this process's import asked it, which depends on
    # which worker imported which file first; the report says each target's device for every run alike (run.py)
    return {"kernel": report.kernel, "target": report.target, "triton_version": report.triton_version,
            "file": file, "line": def_line_of(source, report.kernel) if file else None,
            "facts": facts, "sources": written(build, function, text),
            "evidence": {"dots": dots_of(build), "places": places(build, function, text, declared, root, loops),
                         "spill_bytes": {k: report[k] for k in _SPILL_TRAFFIC if k in report}},
            "findings": sorted(({"id": f.id, "slug": f.slug, "severity": f.severity, "title": f.title,
                                 "line": next((e.python_line for e in f.evidence if e.python_line), None),
                                 "fix": f.fix} for f in findings), key=lambda f: (f["id"], f["line"] or 0)),
            "seconds": round(time.perf_counter() - start, 3)}


# `tt.dot %a, %b, %c, inputPrecision = tf32 : tensor<64x32xf32, ...> * tensor<32x64xf32, ...> -> ...`
# (an IEEE dot names no precision: dialects/mlir.py's dot_input_precision)
_DOT = re.compile(r"\btt\.dot\b(?P<attrs>[^:]*):\s*tensor<[0-9x]*x(?P<a>[a-zA-Z]+[0-9]*\w*)[,>].*?\*\s*"
                  r"tensor<[0-9x]*x(?P<b>[a-zA-Z]+[0-9]*\w*)[,>]")


def dots_of(build: Any) -> list[dict[str, Any]]:
    """Each tt.dot of the TTIR: its operand element types and input precision, and its TTIR line — what names
    the cause of a tensor-core path lost (snapshot/explain.py). Kept with the entry computed now, never in the
    snapshot; [] where the build has no TTIR (a Gluon kernel) or it cannot be read."""
    try:
        if build is None or not build.artifacts.has("ttir"):
            return []
        text = build.artifacts.text("ttir")
    except Exception:  # a damaged or unreadable stage: no cause named, never a failed entry
        return []
    dots = []
    for number, line in enumerate(text.splitlines(), 1):
        found = _DOT.search(line)
        if found:
            dots.append({"a": found["a"], "b": found["b"], "precision": dot_input_precision(found["attrs"]),
                         "ttir_line": number})
    if dots:
        _python_lines(dots[:8], text, build.source_file)
    return dots[:8]


def _python_lines(dots: list[dict[str, Any]], text: str, source: str | None) -> None:
    """Each dot's line in the kernel's file, from the TTIR's locations (innermost in that file: a dot inlined
    from a helper is placed at its call); none where the TTIR does not say."""
    if not source:
        return
    try:
        located = dialect_of("ttir").source_lines(text).lines  # type: ignore[union-attr]
    except Exception:  # a TTIR this release's parser does not read: no line, never a failed entry
        return
    real = os.path.realpath(source)
    for dot in dots:
        chain = located[dot["ttir_line"] - 1].chain if dot["ttir_line"] <= len(located) else ()
        dot["python_line"] = next((line for path, line, _ in chain if os.path.realpath(path) == real), None)


def _jsonable(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return str(value)


def _compute_row(reference: str, target: str, root: str) -> dict[str, Any]:
    """A worker's result: the entry, or the error that stopped it (a row, not an exception: one kernel
    that no longer compiles is a finding of the gate, not the end of it). A reference `!REASON` is a file
    that could not even be loaded."""
    if reference.startswith("!"):
        return {"error": reference[1:].splitlines()[0], "exit_code": 2}
    try:
        return compute(reference, target, root)
    except TTInspectError as error:
        return {"error": str(error).splitlines()[0], "exit_code": error.exit_code}


def compute_all(plan: list[tuple[str, str, str]], root: Path, jobs: int | None = None, executor: str = "local",
                ray_address: str | None = None) -> Iterator[tuple[str, dict]]:
    """(key, entry or error row) for every planned entry: warm ones here, without compiling; cold ones in the
    sweep's executors (a process pool: one import of the library per worker; or Ray tasks for a big
    matrix), or here when only one is cold."""
    cold, warm = [], []
    with cached_only():  # rows are gathered first: nothing else runs while compiling is forbidden
        for key, reference, target in plan:
            try:
                warm.append((key, _compute_row(reference, target, str(root))))
            except NotCached:
                cold.append((key, reference, target))
    yield from warm
    if not cold:
        return
    if executor == "local" and (len(cold) == 1 or jobs == 1):
        for key, reference, target in cold:
            yield key, _compute_row(reference, target, str(root))
        return
    # the worker pool (and Ray, when asked for) is loaded only when entries need compiling in parallel
    from ttinspect.sweep.executors import default_jobs
    from ttinspect.sweep.run import make_executor

    runner = make_executor(executor, jobs or default_jobs(), ray_address)
    work: list[tuple[int, str, dict[str, Any], str | None, dict[str, Any]]] = [
        (index, reference, {}, target, {"root": str(root)}) for index, (_, reference, target) in enumerate(cold)]
    try:
        for index, row in runner.run(work, None, entry_task):
            yield cold[index][0], row
    finally:
        stop = getattr(runner, "stop", None)
        if stop:
            stop()


def entry_task(reference: str, overrides: dict, target: str, options: dict, driver: dict | None) -> dict[str, Any]:
    """One entry in a worker (the sweep executors' task signature)."""
    return _compute_row(reference, target, options["root"])


def check_unique(plan: list[tuple[str, str, str]]) -> None:
    counts = Counter(key for key, _, _ in plan)
    doubled = sorted(key for key, count in counts.items() if count > 1)
    if doubled:
        raise UsageError(f"the snapshot would hold {doubled[0]} twice: two patterns name one file under two paths?")
