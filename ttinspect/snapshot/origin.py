"""Which source line changed what changed: where a changed entry's result is annotated, so that the annotation
lands inside the pull request's diff instead of on the kernel's `def`.

The pieces that define an entry, compared between the snapshot and now:
- a constexpr or num_warps / num_stages (the facts `block_sizes`, `num_warps`, `num_stages`): the autotune config's
  `triton.Config(...)` line when that config sets it, else the parameter's default on the `def`, else the example
  that declares the launch;
- the launch's arguments or compile options (`sources.call`, `sources.options`): the example's line;
- the kernel's body (`sources.body`): the changed fact's own line where it has one (the loop of a pipeline depth,
  the `tl.dot` of a tensor-core path), else the `def`.
One piece changed: its line. Several at different lines: the `def`, naming each (which one caused the change is not
known). None: nothing in the entry's own source changed (a helper, a dependency, the compiler), the fact's own line
or the `def`. An entry recorded before the snapshot kept `sources` is judged on its facts alone, and says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

_OPTIONS = ("num_warps", "num_stages")


@dataclass(frozen=True)
class Origin:
    file: str | None
    line: int | None
    said: str  # one sentence: what the line is, or why the annotation stays on the def


def origin(fact: str, old: dict[str, Any], new: dict[str, Any]) -> Origin:
    """Where the change of `fact` between the committed entry `old` and the entry computed now `new` is shown."""
    places = (new.get("evidence") or {}).get("places") or {}
    kernel_file, def_line = new.get("file"), new.get("line")
    pieces = _changed_pieces(old, new, places)
    own = _own_line(fact, old, new, places)
    body = [p for p in pieces if p[0] == "body"]
    located = [p for p in pieces if p[0] != "body"]
    if len(located) == 1 or (located and len({(p[1], p[2]) for p in located}) == 1):
        what, file, line = located[0][3], located[0][1], located[0][2]
        if file is None or line is None:
            return Origin(kernel_file, def_line, f"{what} changed; {located[0][4]}, so the annotation stays on "
                                                 "the def")
        also = "; the kernel's body changed too" if body else ""
        return Origin(file, line, f"annotated at {file}:{line}, {what}{also}")
    if located:
        named = "; ".join(f"{p[3]} ({p[1]}:{p[2]})" if p[2] else p[3] for p in located)
        return Origin(kernel_file, def_line, f"several pieces of this entry changed since the snapshot — {named} — "
                                             "so the annotation stays on the def")
    file, line = own if own is not None else (kernel_file, def_line)
    at = "at its own line" if own is not None else "on the def"
    if body:
        return Origin(file, line, f"the kernel's body changed since the snapshot; annotated {at}")
    if not old.get("sources"):
        return Origin(file, line, f"annotated {at}: the snapshot records no source fingerprints for this entry (made "
                              "before ttinspect kept them; `--update` records them), so the changed line is not known")
    return Origin(file, line, f"annotated {at}: nothing in this entry's own source changed (its config, defaults, "
                          "launch and body are as the snapshot has them) — a helper it calls, a dependency or the "
                          "compiler did")


def _changed_pieces(old: dict, new: dict, places: dict) -> list[tuple[str, str | None, int | None, str, str]]:
    """(piece, file, line, what changed, why no line) for each piece of the entry that differs."""
    before, after = old.get("facts") or {}, new.get("facts") or {}
    values_was = dict(_pairs(before.get("block_sizes")))
    values_now = dict(_pairs(after.get("block_sizes")))
    for option in _OPTIONS:
        values_was[option], values_now[option] = before.get(option), after.get(option)
    config, example = places.get("config") or {}, places.get("example") or {}
    defaults = places.get("defaults") or {}
    pieces = []
    for name in sorted(set(values_was) | set(values_now)):
        was, now = values_was.get(name), values_now.get(name)
        if was == now or was is None or now is None:  # a constexpr that came or went is the body's or the call's
            continue
        change = f"{name} {was} → {now}"
        if name in (config.get("keys") or ()) or (config.get("why") and name not in defaults):
            pieces.append(("config", config.get("file"), config.get("line"),
                           f"the autotune config this entry compiles ({change})", config.get("why", "")))
        elif name in defaults and name not in _OPTIONS:
            pieces.append(("default", places.get("kernel_file"), defaults[name],
                           f"the default of {name} on the def ({change})", ""))
        else:
            pieces.append(("example", example.get("file"), example.get("line"),
                           f"the example that declares this launch ({change})", "its declaration was not found"))
    was_sources, now_sources = old.get("sources") or {}, new.get("sources") or {}
    for piece, what in (("call", "the launch's arguments (their types or specialization)"),
                        ("options", "the launch's compile options")):
        if piece in was_sources and piece in now_sources and was_sources[piece] != now_sources[piece]:
            pieces.append((piece, example.get("file"), example.get("line"),
                           f"the example that declares this launch ({what})", "its declaration was not found"))
    if "body" in was_sources and "body" in now_sources and was_sources["body"] != now_sources["body"]:
        pieces.append(("body", None, None, "the kernel's body", ""))
    return pieces


def _own_line(fact: str, old: dict, new: dict, places: dict) -> tuple[str | None, int] | None:
    """The changed fact's own Python line, where the compiled code places it: a loop's for a pipeline depth, the
    dot's for a tensor-core path (as the TTIR's locations say)."""
    file, loops = places.get("kernel_file"), places.get("loops") or []
    if fact in ("tensor_core_path", "loop_tensor_core_ops"):
        dots = [d for d in (new.get("evidence") or {}).get("dots") or [] if d.get("python_line")]
        if dots:
            return file, dots[0]["python_line"]
        fact = "pipeline_depth"  # no dot left to place: the loop that held it
    if fact == "loop_depths":
        was, now = (old.get("facts") or {}).get(fact) or [], (new.get("facts") or {}).get(fact) or []
        index = next((i for i, (a, b) in enumerate(zip(was, now, strict=False)) if a != b), None)
        if index is not None and index < len(loops) and loops[index].get("line"):
            return file, loops[index]["line"]
        fact = "pipeline_depth"
    if fact == "pipeline_depth":
        main = [loop for loop in loops if loop.get("dots")] or loops
        depth = (new.get("facts") or {}).get("pipeline_depth")
        chosen = next((loop for loop in main if loop.get("depth") == depth), main[0] if main else None)
        if chosen and chosen.get("line"):
            return file, chosen["line"]
    return None


def _pairs(value: Any) -> list[tuple[str, Any]]:
    if not isinstance(value, list):
        return []
    return [(item[0], item[1]) for item in value if isinstance(item, list) and len(item) == 2
            and isinstance(item[0], str)]
