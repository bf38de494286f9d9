"""A sweep's rows as data: the values a filter sees, sorting, CSV, JSON, and `triton.Config` lines."""

from __future__ import annotations

import csv
import io
import json
from typing import Any, Iterable

from ttinspect.errors import UsageError
from ttinspect.files.generated_python import dtype_attribute, in_comment, literal
from ttinspect.kernel.options import OPTION_KEYS
from ttinspect.sweep.task import DEFAULT_COLUMNS


def values(row: dict) -> dict[str, Any]:
    """What `--where` and `--sort` see: every fact, the point's values, arch, ok, error."""
    out = dict(row.get("facts") or {})
    out.update(row.get("config") or {})
    out.update(row.get("point") or {})
    out["arch"] = row.get("target") or row.get("arch")
    out["target"] = out["arch"]
    out["label"] = row.get("label")
    out["error"] = row.get("error")
    out["ok"] = not row.get("error")
    return out


def known_names(rows: Iterable[dict]) -> set[str]:
    names = {"arch", "target", "label", "error", "ok", "fits", *DEFAULT_COLUMNS}
    for row in rows:
        names.update(values(row))
    return names


def refuse_unknown(option: str, names: Iterable[str], rows: list[dict], what: str = "fact or axis") -> None:
    """A name no row has — a typo, or a fact this kernel has none of — is refused in one line with the
    known ones. The facts are known from a point that compiled: while none did, nothing is refused (the
    exit code says every point failed)."""
    if not any(not row.get("error") for row in rows):
        return
    import difflib

    known = known_names(rows)
    unknown = [name for name in dict.fromkeys(names) if name not in known]
    if not unknown:
        return
    ordered = [*(c for c in DEFAULT_COLUMNS if c in known), *sorted(known - set(DEFAULT_COLUMNS))]
    near = [n for name in unknown for n in difflib.get_close_matches(name, ordered, n=2, cutoff=0.6)]
    hint = f" (did you mean {', '.join(dict.fromkeys(near))}?)" if near else ""
    plural = "s" if len(unknown) > 1 else ""
    raise UsageError(f"{option}: unknown {what}{plural} {', '.join(map(repr, unknown))}{hint}; "
                     f"known: {', '.join(ordered)}")


def sort_rows(rows: list[dict], key: str) -> list[dict]:
    """`registers` ascending, `-registers` descending; unknown values last either way."""
    descending = key.startswith("-")
    name = key.lstrip("-+")

    def sort_key(row):
        value = values(row).get(name)
        if value is None:
            return (1, 0, "")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return (0, -value if descending else value, "")
        return (0, 0, str(value))

    ordered = sorted(rows, key=sort_key)
    if descending:  # non-numeric values: reverse their order, keep unknowns last
        numeric = all(isinstance(values(r).get(name), (int, float)) for r in rows if values(r).get(name) is not None)
        if not numeric:
            known = [r for r in ordered if values(r).get(name) is not None]
            ordered = known[::-1] + [r for r in ordered if values(r).get(name) is None]
    return ordered


def to_json(result, rows: list[dict]) -> str:
    return json.dumps({"ref": result.ref, "axes": result.axes, "points": result.total, "shown": len(rows),
                       "seconds": round(result.seconds, 3), "warm": result.warm, "compiled": result.compiled,
                       "failed": result.failed, "interrupted": result.interrupted, "executor": result.executor,
                       "rows": [_public(row) for row in rows]}, indent=2, default=repr)


def _public(row: dict) -> dict:
    return {k: v for k, v in row.items() if k not in ("files",)}


def to_csv(result, rows: list[dict], columns: tuple[str, ...] = DEFAULT_COLUMNS) -> str:
    """One line per row: the axes, target, label, the columns asked for, then error."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*result.axes, "arch", "label", *columns, "error"])
    for row in rows:
        data = values(row)
        writer.writerow([*(_csv(row.get("point", {}).get(a)) for a in result.axes), data["arch"] or "",
                         data["label"] or "", *(_csv(data.get(c)) for c in columns), row.get("error") or ""])
    return buffer.getvalue()


def _csv(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True)
    return str(value)


def autotune_configs(rows: list[dict]) -> str:
    """The rows that compiled and fit, as `triton.Config(...)` lines to paste into
    `@triton.autotune(configs=[...])`: constexprs in the dict, options as keywords. One line per
    distinct config; the comment names the targets it was swept on and its facts there. Every value is a
    literal (files/generated_python.py): pasted and run, the lines build configs and do nothing else."""
    by_config: dict[str, list[dict]] = {}
    order: list[str] = []
    for row in rows:
        if row.get("error") or not (row.get("facts") or {}).get("fits", True):
            continue
        line = config_line(row.get("config") or {})
        if line not in by_config:
            by_config[line] = []
            order.append(line)
        by_config[line].append(row)
    out = [f"# {len(order)} config(s) from ttinspect sweep; paste into @triton.autotune(configs=[...])"]
    for line in order:
        notes = "; ".join(f"{r.get('target') or r.get('arch')}: regs {r['facts'].get('registers')}, "
                          f"spills {r['facts'].get('spills')}, occupancy {r['facts'].get('occupancy')}%"
                          for r in by_config[line])
        out.append(f"{line},  # {in_comment(notes)}")
    return "\n".join(out) + "\n"


def config_line(config: dict[str, Any]) -> str:
    constexprs = {k: v for k, v in config.items() if k not in OPTION_KEYS}
    options = [f"{k}={_literal(config[k])}" for k in ("num_warps", "num_stages", "num_ctas", "maxnreg")
               if k in config]
    body = "{" + ", ".join(f"{str(k)!r}: {_literal(v)}" for k, v in constexprs.items()) + "}"
    return f"triton.Config({', '.join([body, *options])})"


def _literal(value: Any) -> str:
    if isinstance(value, str) and value.startswith(("float", "bfloat", "int", "uint")) and dtype_attribute(value):
        return f"tl.{value}"  # a dtype constexpr (TlDtype is stored by its name)
    return literal(value)
