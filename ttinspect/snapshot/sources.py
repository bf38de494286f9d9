"""The source pieces that define a snapshot entry, read when the entry is computed: what tells a later change's
cause (snapshot/origin.py) and the line it should be annotated at.

Written to the snapshot (`sources`, a few short values per entry, pure functions of the code): a fingerprint of
the kernel's body (its tokens, comments and blank lines left out, so reformatting is no change) and of the call
(the launch's argument types and specializations), and the compile options the facts do not already hold. The
config's constexprs, num_warps and num_stages need no fingerprint: they are facts (`block_sizes`, ...).

Kept with the entry computed now, never written (`evidence`, like the dots): where each piece is today — the
`triton.Config(...)` call an autotuned entry compiles, each parameter's default, the example's declaration, the
loops' and dots' Python lines — since lines move with every edit above them and would make the snapshot churn.
"""

from __future__ import annotations

import ast
import hashlib
import io
import json
import os
import re
import textwrap
import tokenize
from pathlib import Path
from typing import Any

from ttinspect.files.declared_names import mention_line
from ttinspect.files.source_files import local_imports, read_regular
from ttinspect.refs.userfile import EXAMPLES_NAME

_FACT_OPTIONS = ("num_warps", "num_stages")  # options the snapshot already keeps as facts
_AUTOTUNE_NUMBER = re.compile(r"autotune config (\d+) of")  # Build.note (refs/launch.py)


def fingerprint(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:16]


def written(build: Any, function: ast.FunctionDef | None, text: str) -> dict[str, str]:
    """The `sources` an entry records: {"body", "call", "options"} where each is known."""
    found: dict[str, str] = {}
    if function is not None:
        found["body"] = fingerprint(body_tokens(function, text))
    meta = (build.metadata.get("ttinspect") or {}) if build is not None else {}
    signature, config = meta.get("signature"), dict(build.config) if build is not None else {}
    if isinstance(signature, dict):  # its constexprs are block_sizes' facts; the rest is what the launch passes
        found["call"] = fingerprint({k: v for k, v in signature.items() if k not in config})
        options = {k: v for k, v in config.items() if k not in signature and k not in _FACT_OPTIONS}
        if options:
            found["options"] = ", ".join(f"{k}={v}" for k, v in sorted(options.items()))[:200]
    return found


def body_tokens(function: ast.FunctionDef, text: str) -> list[str]:
    """The body's tokens without its docstring, comments and blank lines; an f-string as its source text (Python
    3.12 tokenizes its parts, 3.11 gives one string: the same text either way)."""
    body = function.body
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        body = body[1:]
    if not body:
        return []
    lines = text.splitlines()[body[0].lineno - 1:function.end_lineno]
    lines[0] = " " * body[0].col_offset + lines[0][body[0].col_offset:]
    source = textwrap.dedent("\n".join(lines)) + "\n"
    tokens: list[str] = []
    depth, start = 0, (0, 0)
    rows = source.splitlines()
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            kind = tokenize.tok_name[token.type]
            if kind == "FSTRING_START":
                depth += 1
                start = token.start if depth == 1 else start
            elif kind == "FSTRING_END":
                depth -= 1
                if depth == 0:
                    tokens.append(_span(rows, start, token.end))
            elif depth == 0 and kind not in ("COMMENT", "NL", "ENDMARKER"):
                tokens.append(kind if kind in ("NEWLINE", "INDENT", "DEDENT") else token.string)
    except (tokenize.TokenError, IndentationError, SyntaxError):  # not tokenizable here: its text, stripped
        return [line.strip() for line in rows if line.strip() and not line.strip().startswith("#")]
    return tokens


def _span(rows: list[str], start: tuple[int, int], end: tuple[int, int]) -> str:
    if start[0] == end[0]:
        return rows[start[0] - 1][start[1]:end[1]]
    return "\n".join([rows[start[0] - 1][start[1]:], *rows[start[0]:end[0] - 1], rows[end[0] - 1][:end[1]]])


def function_node(text: str, name: str) -> ast.FunctionDef | None:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name), None)


def places(build: Any, function: ast.FunctionDef | None, text: str, examples: tuple[Path, str] | None,
           root: str, facts: dict[str, Any]) -> dict[str, Any]:
    """Where each piece of the entry is now, files relative to the library's `root` (never written)."""
    source = build.source_file if build is not None else None
    own = _relative(source, root)
    found: dict[str, Any] = {"kernel_file": own}
    if function is not None and own is not None and source is not None:
        found["defaults"] = {arg.arg: default.lineno for arg, default in _defaults(function)}
        number = _AUTOTUNE_NUMBER.search(build.note or "")
        if number:
            found["config"] = _config_place(function, text, Path(source), int(number[1]), dict(build.config), root)
    if examples is not None:
        path, name = examples
        line = mention_line(path, name) or mention_line(path, EXAMPLES_NAME)
        found["example"] = {"file": _relative(str(path), root), "line": line}
    found["loops"] = [{"line": facts.get(f"loop{n}.line"), "depth": facts.get(f"loop{n}.pipeline_depth"),
                       "dots": facts.get(f"loop{n}.dots")} for n in range(1, 33) if f"loop{n}.line" in facts]
    return found


def _defaults(function: ast.FunctionDef) -> list[tuple[ast.arg, ast.expr]]:
    positional = function.args.posonlyargs + function.args.args
    pairs = list(zip(positional[len(positional) - len(function.args.defaults):], function.args.defaults, strict=True))
    keyword = zip(function.args.kwonlyargs, function.args.kw_defaults, strict=True)
    pairs += [(arg, d) for arg, d in keyword if d is not None]
    return pairs


def _config_place(function: ast.FunctionDef, text: str, path: Path, number: int, config: dict[str, Any],
                  root: str) -> dict[str, Any]:
    """The `triton.Config(...)` call an autotuned entry compiles: the NUMBER-th of the autotune decorator's list
    when the file spells that list; else the one call in the kernel's local files whose literal values are this
    entry's config. Where neither finds one line, why not (the annotation then stays on the def)."""
    listed = _listed_configs(function, text)
    if listed is not None and 0 < number <= len(listed) and _matches(listed[number - 1], config):
        return {"file": _relative(str(path), root), "line": listed[number - 1].lineno,
                "keys": _keys(listed[number - 1])}
    matching = []
    for file in local_imports(path)[:32]:
        data = read_regular(file)
        try:
            tree = ast.parse(data or b"")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        matching += [(file, node) for node in ast.walk(tree)
                     if isinstance(node, ast.Call) and _is_config(node) and _matches(node, config)]
    if len(matching) == 1:
        file, call = matching[0]
        return {"file": _relative(str(file), root), "line": call.lineno, "keys": _keys(call)}
    return {"why": ("several triton.Config calls spell this config" if matching else
                    "no triton.Config call in the kernel's files spells this config with literal values "
                    "(the list is built by code)")}


def _listed_configs(function: ast.FunctionDef, text: str) -> list[ast.Call] | None:
    for decorator in function.decorator_list:
        if not isinstance(decorator, ast.Call) or _name(decorator.func) != "autotune":
            continue
        given = next((k.value for k in decorator.keywords if k.arg == "configs"),
                     decorator.args[0] if decorator.args else None)
        if isinstance(given, ast.Name):  # CONFIGS = [...] at the module's top level
            tree = ast.parse(text)
            given = next((n.value for n in tree.body if isinstance(n, ast.Assign)
                          and any(isinstance(t, ast.Name) and t.id == given.id for t in n.targets)), None)
        if isinstance(given, ast.List) and all(_is_config(e) for e in given.elts):
            return list(given.elts)  # type: ignore[arg-type]
    return None


def _name(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def _is_config(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and _name(node.func) == "Config"


def _literal_parts(call: ast.Call) -> dict[str, Any] | None:
    """The Config's constexprs and options as values, or None when one is not a literal."""
    try:
        given = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "kwargs"), None)
        values = dict(ast.literal_eval(given)) if given is not None else {}
        for keyword in call.keywords:
            if keyword.arg not in (None, "kwargs", "pre_hook"):
                values[keyword.arg] = ast.literal_eval(keyword.value)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None
    return values


def _matches(call: ast.Call, config: dict[str, Any]) -> bool:
    values = _literal_parts(call)
    return values is not None and bool(values) and all(config.get(k) == v for k, v in values.items())


def _keys(call: ast.Call) -> list[str]:
    return sorted(_literal_parts(call) or ())


def _relative(path: str | None, root: str) -> str | None:
    if not path:
        return None
    relative = os.path.relpath(path, root).replace(os.sep, "/")
    return None if relative.startswith("../") or os.path.isabs(relative) else relative
