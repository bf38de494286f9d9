"""The facts of a build, kept beside its artifacts (`kernel.facts-*.json`, a derived file checked like the
SASS) so that a warm `report` reads them back instead of parsing the stages again. The file is named by
the digest of the code that computes facts: facts from other code are never read back."""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ttinspect.facts.model import Counts, Fact
from ttinspect.report.model import Report
from ttinspect.targets.device_limits import changed_limits

if TYPE_CHECKING:
    from ttinspect.engine.builds import Build
    from ttinspect.targets.nvidia import Target


FACTS_FILE = "kernel.facts"


def facts_code_files() -> list[Path]:
    """The code facts are computed by: every module of the package but the commands, renderers, GPU tools
    and what runs after the facts (the package's root, not this folder's: the facts live in facts/,
    dialects/, backends/ ...)."""
    root = Path(__file__).resolve().parent.parent
    skip = {"cli", "render", "html", "gpu", "sweep", "check", "passes", "refs", "virtual"}
    return [path for path in sorted(root.rglob("*.py")) if path.relative_to(root).parts[0] not in skip]


@lru_cache(maxsize=1)
def _facts_code_digest() -> str:
    """Cached facts from other code are never read back."""
    root = Path(__file__).resolve().parent.parent
    sha = hashlib.sha256()
    for path in facts_code_files():
        sha.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return sha.hexdigest()[:16]


def facts_file_name(sass: bool = True, target: Target | None = None) -> str:
    """Named by the fact code's digest, and by the target's own limits where --device-props changed them
    (occupancy and fits read them: the same compiled code has other facts on a smaller part)."""
    limits = changed_limits(target) if target is not None else {}
    own = "-" + hashlib.sha256(json.dumps(limits, sort_keys=True).encode()).hexdigest()[:8] if limits else ""
    return f"{FACTS_FILE}-{'all' if sass else 'nosass'}-{_facts_code_digest()}{own}.json"


def _encode_value(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, tuple):
        items = [_encode_value(v) for v in value]
        return {"counts": items} if isinstance(value, Counts) else {"tuple": items}
    raise TypeError(type(value).__name__)


def _decode_value(value: Any) -> Any:
    if isinstance(value, dict):
        if "counts" in value:
            return Counts(_decode_value(v) for v in value["counts"])
        return tuple(_decode_value(v) for v in value["tuple"])
    if isinstance(value, list):
        raise ValueError("untagged list")
    return value


def encode_report(report: Report) -> bytes | None:
    """None when a value cannot be written exactly (then the facts are computed each time)."""
    try:
        facts = [[f.key, f.title, f.group, _encode_value(f.value), f.explanation, f.source, f.unknown]
                 for f in report.facts]
    except TypeError:
        return None
    return json.dumps({"v": 1, "facts": facts, "main_loop_ptx": report.main_loop_ptx}).encode()


def decode_report(data: bytes, result: Build) -> Report | None:
    try:
        record = json.loads(data)
        if not isinstance(record, dict) or record.get("v") != 1:
            return None
        facts = tuple(Fact(key, title, group, _decode_value(value), explanation, source, why)
                      for key, title, group, value, explanation, source, why in record["facts"])
    except (ValueError, TypeError, KeyError, RecursionError):
        return None
    return Report(result.label, result.kernel, result.target.name, str(result.metadata.get("triton_version")),
                  dict(result.config), facts, record.get("main_loop_ptx"), result)
