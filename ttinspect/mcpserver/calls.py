"""The tools that read one kernel: list, list a capture, report, dump, export — each calling the library
functions its CLI command calls and returning the same JSON as the command's `--json` (calls_compare.py has
diff, check and sweep). Every call first refuses a path outside the roots (paths.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from ttinspect.errors import UsageError
from ttinspect.mcpserver.paths import check_path, check_reference, draft_reference, write_draft
from ttinspect.refs.resolver import RefOptions


class Call:
    """One tool call's arguments and the roots it runs under."""

    def __init__(self, arguments: Mapping[str, Any], roots: list[str], scratch: str):
        self.arguments, self.roots, self.scratch = dict(arguments), roots, scratch

    def get(self, name: str, default: Any = None) -> Any:
        value = self.arguments.get(name, default)
        return default if value is None else value

    def reference(self, kernel_key: str = "kernel", code_key: str = "code") -> str:
        """The kernel reference a call names (a draft written to the scratch folder first), its paths checked."""
        code, kernel = self.get(code_key), self.get(kernel_key)
        if code is not None:
            return draft_reference(kernel, str(code), self.scratch)
        if not isinstance(kernel, str) or not kernel.strip():
            raise UsageError(f"`{kernel_key}` is required: a reference such as opt, my_mm.py:matmul, run.ttcap:k")
        check_reference(kernel, self.roots, self.get("source"))
        return kernel

    def options(self, config: Any = None, with_arch: bool = True) -> RefOptions:
        """The CLI's reference options (--set, --arg, --signature, --config, --arch, --device-props, --source)."""
        config = config if config is not None else self.get("config")
        return RefOptions.from_cli(words(self.get("settings", {})), words(self.get("args", {})),
                                   self.get("signature"), text_or_none(config),
                                   text_or_none(self.get("arch")) if with_arch else None,
                                   words(self.get("device_props", {})), self.get("source"))


def text_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def words(values: Mapping[str, Any]) -> tuple[str, ...]:
    """{"num_stages": 3, "EVEN_K": True} -> ("num_stages=3", "EVEN_K=true"): the CLI's KEY=VALUE words."""
    if not isinstance(values, Mapping):
        raise UsageError(f"expected an object of KEY: VALUE, got {type(values).__name__}")
    return tuple(f"{key}={str(value).lower() if isinstance(value, bool) else value}" for key, value in values.items())


def list_kernels(call: Call) -> dict[str, Any]:
    file, code, arch = call.get("file"), call.get("code"), call.get("arch")
    if code is not None:
        file = str(write_draft(str(code), call.scratch))
    if file is None:
        if arch is not None:
            raise UsageError("`arch` is for a file's listing (the file is imported as that target's GPU would see it)")
        # the shipped catalog: loaded when this tool runs
        from ttinspect.kernel.catalog import all_variants

        return {"variants": [{"name": v.name, "aliases": list(v.aliases), "seed": v.seed, "kernel": v.kernel,
                              "config": dict(v.config), "problem": dict(v.problem), "description": v.description}
                             for v in all_variants()]}
    if code is None:
        check_reference(str(file), call.roots)
    from ttinspect.refs.listing import list_file  # imports the user's file: loaded when this tool runs

    return list_file(str(file), arch)


def list_capture(call: Call) -> dict[str, Any]:
    # the capture's reader: loaded when this tool runs
    from ttinspect.refs.capture_listing import list_capture as listing
    from ttinspect.refs.kinds import kind_of

    capture = str(call.get("capture", ""))
    if kind_of(capture) != "capture":
        raise UsageError(f"{capture!r} is not a capture (FILE.ttcap or FILE.ttcap:KERNEL, from `ttinspect capture`)")
    check_reference(capture, call.roots, "captured")  # a listing compiles nothing: the capture file alone
    return listing(capture)


def report(call: Call) -> dict[str, Any]:
    # the resolver and the facts: loaded when this tool runs
    from ttinspect.refs.resolver import resolve_one
    from ttinspect.report.collect import report_from_build

    ref = call.reference()
    if str(call.get("config", "")).strip().lower() == "all":
        raise UsageError("config=\"all\" gives a table: use the sweep tool with grid {\"config\": \"all\"}")
    return report_from_build(resolve_one(ref, call.options())).as_dict()


def dump(call: Call) -> dict[str, Any]:
    # the resolver and the stage table: loaded when this tool runs
    from ttinspect.dialects.stages import for_target
    from ttinspect.refs.resolver import resolve_one

    ref = call.reference()
    loop, python_line, interleave = bool(call.get("loop")), call.get("python_line"), bool(call.get("interleave"))
    first, most = int(call.get("first_line", 1)), int(call.get("max_lines", 200))
    if first < 1 or most < 1:
        raise UsageError("first_line and max_lines start at 1")
    built = resolve_one(ref, call.options())
    stage = for_target(str(call.get("stage", "asm")), built.target.backend, built.target.name)
    full = built.artifacts.text(stage)
    lines = full.split("\n")
    numbers = list(range(1, len(lines) + 1))
    selection, note = "whole stage", None
    if loop:
        # the main-loop finder: loaded when a loop is asked for
        from ttinspect.dialects.main_loop import main_loop_slice

        found = main_loop_slice(stage, full)
        if found.start_line is None:
            raise UsageError(f"{built.label}: no main loop in the {stage}: {found.reason}")
        numbers = list(range(found.start_line, found.end_line + 1))
        selection, note = f"main loop (lines {found.start_line}-{found.end_line})", found.reason
    kernel_file = source_text = ""
    if python_line is not None or interleave:
        kernel_file, source_text = kernel_source(built)
    if python_line is not None:
        from ttinspect.source import line_map  # attribution: loaded when a Python line is asked for

        of_line = {a.line for a in line_map(stage, full, kernel_file) if a.source_line == int(python_line)}
        numbers = [n for n in numbers if n in of_line]
        selection = f"{selection}, lines from Python line {python_line}"
        if not numbers:
            note = f"no {stage} line comes from line {python_line} of {kernel_file}"
    chosen = [n for n in numbers if n >= first][:most]
    left = [n for n in numbers if n >= first][most:]
    if interleave and chosen and python_line is None:
        from ttinspect.source import interleave as with_source  # as above

        text = with_source(stage, full, kernel_file, source_text, start_line=chosen[0], end_line=chosen[-1])
    else:
        text = "\n".join(lines[n - 1] for n in chosen)
    data: dict[str, Any] = {
        "label": built.label, "target": built.target.name, "stage": stage, "header": built.header(),
        "selection": selection, "total_lines": len(numbers), "first_line": chosen[0] if chosen else None,
        "last_line": chosen[-1] if chosen else None, "truncated": bool(left), "next_line": left[0] if left else None,
        "text": text}
    if python_line is not None:
        data["lines"] = chosen
    if note:
        data["note"] = note
    return data


def kernel_source(built) -> tuple[str, str]:
    if not built.source_file or not Path(built.source_file).is_file():
        raise UsageError(f"{built.label}: its Python source file is not known here, so lines cannot be attributed")
    return str(built.source_file), Path(built.source_file).read_text()


def export_stages(call: Call) -> dict[str, Any]:
    # the stage table, the output checks and the resolver: loaded when this tool runs
    from ttinspect.dialects.stages import STAGES
    from ttinspect.files.outputs import check_output_folder
    from ttinspect.refs.resolver import resolve_one

    out = call.get("out")
    if not out:
        raise UsageError("`out` is required: a folder under the roots")
    folder = check_output_folder(check_path(str(out), call.roots, "output folder"), STAGES)
    built = resolve_one(call.reference(), call.options())
    written = built.artifacts.export(folder, force=bool(call.get("force")))
    return {"label": built.label, "target": built.target.name, "header": built.header(), "folder": str(folder),
            "written": [str(path) for path in written]}
