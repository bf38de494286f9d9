"""The fenced code blocks of README.md and docs/*.md, for tests/test_docs.py (the docs runner).

What a block is, decided from its fence and the lines around it:

- ```python (py, python3): Python. It is run (tests/test_docs.py), unless the line before the fence says
  `<!-- docs: skip: REASON -->` (a fragment: the test is skipped with REASON) or the block needs a GPU
  (`<!-- docs: gpu -->`, or it uses torch.cuda / `.cuda(` / `device="cuda"` / ttinspect.gpu / do_bench):
  skipped without one. A first line `# some/path.py` names the file the block is: the runner writes it
  there, and the later blocks of the same page can import it. A block that defines `test_*` functions (or
  is a file named test_*.py) is run by pytest, as a user would run it.
- ```sh, bash, shell, console, and a block without a language that looks like a shell session (a line
  starting with `$ `, or a first line starting with `ttinspect `): shell. A console-style block (any line
  starts with `$ `) holds commands on its `$ ` lines (and their `\\` continuations) and output elsewhere;
  in any other shell block every line is a command. Every `ttinspect ...` command in it (after `$ `,
  `VAR=value` prefixes and `&&` / `||` / `|` / `;`, with trailing `# comments` dropped and `\\`
  continuations joined) is parsed by the real click CLI; those that need no GPU and have no placeholder
  are also run (see tests/test_docs.py for the rules).
- Anything else (output samples, toml, yaml, text): not executed.

`<!-- docs: ... -->` markers are HTML comments: GitHub does not render them.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

PYTHON_LANGS = {"python", "py", "python3", "pycon"}
SHELL_LANGS = {"sh", "bash", "shell", "console", "shell-session", "zsh"}

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\s]*)[^`]*$")
_MARKER = re.compile(r"^\s*<!--\s*docs:\s*(?P<what>[\w-]+)\s*(?::\s*(?P<reason>.*?))?\s*-->\s*$")
_FILE_LINE = re.compile(r"^#\s*(?P<path>[\w.\-/]+\.py)\s*$")
_GPU_PYTHON = re.compile(r"\btorch\.cuda\b|\.cuda\(|device\s*=\s*['\"]cuda|\bttinspect\.gpu\b|\bdo_bench\b")
_TEST_DEF = re.compile(r"^def test_\w+\s*\(", re.M)


def doc_files() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


@dataclass(frozen=True)
class Block:
    path: str          # relative to the repository root, e.g. "docs/testing.md"
    line: int          # 1-based line of the block's first content line (its id)
    fence_line: int    # 1-based line of the opening fence
    lang: str          # the info string's first word, lowercased ("" when none)
    text: str          # the content, with the fence's indentation removed
    marker: tuple[str, str] | None = None   # ("gpu", "") / ("skip", REASON) from `<!-- docs: ... -->`

    @property
    def id(self) -> str:
        return f"{self.path}:{self.line}"

    @cached_property
    def kind(self) -> str:
        """"python", "shell" or "other"."""
        if self.lang in PYTHON_LANGS:
            return "python"
        if self.lang in SHELL_LANGS:
            return "shell"
        if self.lang == "":
            lines = [x for x in self.text.splitlines() if x.strip()]
            if any(x.startswith("$ ") for x in lines) or (lines and lines[0].startswith("ttinspect ")):
                return "shell"
        return "other"

    # -- Python ----------------------------------------------------------------------------------
    @property
    def file_path(self) -> str | None:
        """`# mypkg/kernels.py` on the first line: the block is that file."""
        first = self.text.splitlines()[0] if self.text else ""
        m = _FILE_LINE.match(first.strip())
        return m.group("path") if m else None

    @property
    def is_pytest(self) -> bool:
        name = Path(self.file_path).name if self.file_path else ""
        return bool(_TEST_DEF.search(self.text)) or (name.startswith("test_") and name.endswith(".py"))

    @property
    def gpu_reason(self) -> str | None:
        if self.marker and self.marker[0] == "gpu":
            return self.marker[1] or "marked <!-- docs: gpu -->"
        if self.kind == "python":
            m = _GPU_PYTHON.search(self.text)
            if m:
                return f"uses {m.group(0)!r}"
        return None

    @property
    def skip_reason(self) -> str | None:
        if self.marker and self.marker[0] == "skip":
            return self.marker[1] or "marked <!-- docs: skip -->"
        return None

    def imports(self) -> list[tuple[int, str]]:
        """(line number, statement) of every `import ttinspect...` / `from ttinspect... import ...`."""
        return [(self.line + i, s) for i, s in _ttinspect_imports(self.text.splitlines())]

    # -- shell ---------------------------------------------------------------------------------
    def commands(self) -> list[Command]:
        """Every command of a shell block (ttinspect's and others), in order."""
        return shell_commands(self)


@dataclass(frozen=True)
class Command:
    block: Block
    line: int                   # 1-based line in the doc file where the command starts
    source: str                 # the command as written (continuations joined)
    argv: tuple[str, ...]       # the words after the program name
    program: str                # "ttinspect", "python", "bash", ...
    env: tuple[tuple[str, str], ...] = ()
    after: str | None = None    # the operator that joins it to the previous command of its line
    previous: Command | None = field(default=None, compare=False, repr=False)

    @property
    def id(self) -> str:
        return f"{self.block.path}:{self.line}"


def extract_blocks(path: Path) -> list[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    rel = path.relative_to(REPO).as_posix()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence = m.group("indent"), m.group("fence")
        lang = m.group("info").lower()
        end = i + 1
        while end < len(lines) and not _closes(lines[end], fence):
            end += 1
        if end == len(lines):
            raise ValueError(f"{rel}:{i + 1}: code block never closed")
        body = [x[len(indent):] if x.startswith(indent) else x.lstrip() for x in lines[i + 1:end]]
        blocks.append(Block(rel, i + 2, i + 1, lang, "\n".join(body) + "\n", _marker_before(lines, i)))
        i = end + 1
    return blocks


def _closes(line: str, fence: str) -> bool:
    s = line.strip()
    return s.startswith(fence[0] * len(fence)) and not s.strip(fence[0])


def _marker_before(lines: list[str], fence_index: int) -> tuple[str, str] | None:
    j = fence_index - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    m = _MARKER.match(lines[j]) if j >= 0 else None
    if not m:
        return None
    what = m.group("what").lower()
    if what not in ("gpu", "skip"):
        raise ValueError(f"line {j + 1}: unknown docs marker {what!r} (known: gpu, skip: REASON)")
    return what, (m.group("reason") or "").strip()


def all_blocks() -> list[Block]:
    return [b for path in doc_files() for b in extract_blocks(path)]


# ---- imports ------------------------------------------------------------------------------------

_IMPORT = re.compile(r"^\s*(from\s+ttinspect(?:\.[\w.]+)?\s+import\s+[^#]+?"
                     r"|import\s+ttinspect(?:\.[\w.]+)?(?:\s+as\s+\w+)?)\s*(?:#.*)?$")
_INLINE_IMPORT = re.compile(r"`(from\s+ttinspect(?:\.[\w.]+)?\s+import\s+[\w, ]+|import\s+ttinspect(?:\.[\w.]+)?)`")


def _ttinspect_imports(lines: list[str]) -> list[tuple[int, str]]:
    found = []
    i = 0
    while i < len(lines):
        m = _IMPORT.match(lines[i])
        if m:
            statement = m.group(1).strip()
            start = i
            if statement.endswith("(") or "(" in statement and ")" not in statement:  # a parenthesized list
                while ")" not in statement and i + 1 < len(lines):
                    i += 1
                    statement += " " + lines[i].split("#")[0].strip()
            found.append((start, statement.rstrip("\\").strip()))
        i += 1
    return found


def inline_imports(path: Path) -> list[tuple[int, str]]:
    """`from ttinspect... import ...` written in the prose (inline code), with its line number."""
    found = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        found += [(n, m.group(1)) for m in _INLINE_IMPORT.finditer(line)]
    return found


# ---- shell ----------------------------------------------------------------------------------------

_OPERATORS = {"&&", "||", "|", ";", "&"}
_REDIRECT = re.compile(r"^(>>?|<|>&|&>)$")
_ENV = re.compile(r"^[A-Za-z_]\w*=")


def _logical_lines(block: Block) -> list[tuple[int, str]]:
    """(doc line, command text): `$ ` prompts stripped (console blocks keep only those lines), `\\`
    continuations joined, blank and comment-only lines dropped."""
    raw = block.text.splitlines()
    console = any(x.startswith("$ ") for x in raw)
    out: list[tuple[int, str]] = []
    i = 0
    while i < len(raw):
        line, start = raw[i], i
        if console:
            if not line.startswith("$ "):
                i += 1
                continue
            line = line[2:]
        while line.rstrip().endswith("\\") and i + 1 < len(raw):
            i += 1
            line = line.rstrip()[:-1] + " " + raw[i].strip()
        i += 1
        if line.strip() and not line.lstrip().startswith("#"):
            out.append((block.line + start, line.strip()))
    return out


def _strip_comment(text: str) -> str:
    """Drop a trailing `# comment`: a `#` outside quotes that starts a word (`canonicalize#2` is a word)."""
    quote = None
    for i, c in enumerate(text):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or text[i - 1].isspace()):
            return text[:i].rstrip()
    return text


def _words(text: str) -> list[str]:
    lexer = shlex.shlex(_strip_comment(text), posix=True, punctuation_chars="|&;<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    return list(lexer)


def shell_commands(block: Block) -> list[Command]:
    commands: list[Command] = []
    for line, text in _logical_lines(block):
        previous: Command | None = None
        after: str | None = None
        for op, words in _segments(_words(text)):
            env = []
            while words and _ENV.match(words[0]):
                name, _, value = words.pop(0).partition("=")
                env.append((name, value))
            if not words:
                continue
            program, argv = words[0], words[1:]
            if program in ("python", "python3") and argv[:2] == ["-m", "ttinspect"]:
                program, argv = "ttinspect", argv[2:]
            command = Command(block, line, text, tuple(argv), program, tuple(env), after if previous else None,
                              previous)
            commands.append(command)
            previous, after = command, op
    return commands


def _segments(words: list[str]):
    """(operator after it, the words of one simple command without redirections)."""
    current: list[str] = []
    skip_next = False
    for w in words:
        if skip_next:
            skip_next = False
            continue
        if w in _OPERATORS:
            yield w, current
            current = []
        elif _REDIRECT.match(w):  # `> probe.json`: the redirection and its target are not arguments
            skip_next = True
        else:
            current.append(w)
    if current:
        yield None, current
