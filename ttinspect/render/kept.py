"""Rendered output kept for the next warm run: a warm `diff A B` into a pipe or file prints what it
printed last time for the same two entries. The table is a pure function of their facts (kept beside each
entry, named by the fact code's digest), the labels, the environment that shapes rendering and the code
that compares and renders them; the key holds all of those, so a kept text is never another's. A terminal
is always rendered afresh (rich's layout is most of a warm diff's time)."""

from __future__ import annotations

import sys

from ttinspect.caches import store as cache
from ttinspect.render import term

_RENDER_ENV = ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS", "LINES", "TERM",
               "JUPYTER_COLUMNS")


def _rendered_key(builds) -> str | None:
    import hashlib
    import os
    from pathlib import Path

    if term.color() or sys.stdout.isatty():  # a terminal is rendered afresh; coloured text is not kept
        return None
    try:
        from ttinspect.report.store import facts_file_name  # the facts' parsers load only when a report is made

        facts = [facts_file_name(target=x.target) for x in builds]
        if not all(x.artifacts.verified and (x.artifacts.directory / name).is_file()
                   for x, name in zip(builds, facts, strict=True)):
            return None
        root = Path(__file__).resolve().parent.parent
        code = hashlib.sha256()
        for rel in ("compare/facts_diff.py", "compare/explain.py", "compare/evidence.py", "facts/model.py",
                    "kernel/variants.py", "render/diff_view.py", "render/glance.py", "render/kept.py",
                    "render/names.py", "render/term.py"):
            code.update((root / rel).read_bytes())
        return cache.content_key({
            "rendered": "diff", "code": code.hexdigest(), "facts": facts,
            "entries": [str(x.artifacts.directory) for x in builds],
            "facts_digests": [(x.artifacts.directory / f"{name}.sha256").read_text().strip()
                              for x, name in zip(builds, facts, strict=True)],
            "labels": [(x.label, x.target.name, x.header()) for x in builds],
            "env": {k: os.environ.get(k) for k in _RENDER_ENV}, "term": term.settings_key()})
    except (OSError, ValueError):
        return None


def echo_kept(builds) -> bool:
    key = _rendered_key(builds)
    if key is None:
        return False
    path = cache.cache_root() / "rendered" / key[:2] / key
    try:
        data = cache.read(path.parent, path.name)
    except cache.Damaged:
        return False
    sys.stdout.write(data.decode())
    return True


def render_and_keep(builds, render) -> None:
    """Render to stdout; into a pipe or file, also keep the text for the next warm run."""
    import io
    from contextlib import redirect_stdout

    key = _rendered_key(builds)
    if key is None:
        render()
        return
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        render()
    text = buffer.getvalue()
    sys.stdout.write(text)
    cache.add_file(cache.cache_root() / "rendered" / key[:2], key, text.encode(), create=True)


