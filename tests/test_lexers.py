"""Syntax highlighting: the lexers over real stage text, highlight() and the color decision.

The samples under data/lexers/ are excerpts of real output (their first line says of what): TTIR and
TTGIR from Triton 3.9.0, SASS from the nvdisasm / cuobjdump that Triton ships. Compiling them here
would need triton and take seconds, hence the files.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygments")

from pygments.token import (Comment, Error, Keyword, Name, Number, Operator, Punctuation, String,
                            Whitespace)

from ttinspect.errors import UsageError
from ttinspect.render.highlight import highlight, lexer_for, should_color
from ttinspect.render.lexers import SassLexer, TritonLlvmLexer, TritonMLIRLexer, TritonPtxLexer

DATA = Path(__file__).parent / "data" / "lexers"
MLIR_FILES = sorted(DATA.glob("*.ttir")) + sorted(DATA.glob("*.ttgir"))
SASS_FILES = sorted(DATA.glob("*.sass"))
ANSI = re.compile(r"\x1b\[[0-9;]*m")

# Real lines from Triton's PTX and LLVM IR that pygments' own lexers turn into Error tokens.
PTX = """\t@%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r23], 32;
\t@!%p31 bra \t$L__BB0_2;
\tfence.proxy.async.shared::cta;
\telect.sync \t%r89|%p13, -1;
\t@%p9 st.shared::cta.b32 [ %r10 + 0 ], %r11;
\t// end inline asm"""
LLIR = """define ptx_kernel void @matmul_kernel(ptr addrspace(1) readnone captures(none) %9) #0 {
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
!4 = distinct !DISubprogram(spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)"""


def stage_of(path: Path) -> str:
    return "sass" if path.suffix == ".sass" else path.suffix[1:]


def tokens(path: Path) -> list[tuple[int, object, str]]:
    return list(lexer_for(stage_of(path)).get_tokens_unprocessed(path.read_text()))


def types_of(toks, value: str) -> set:
    return {ttype for _, ttype, v in toks if v == value}


def ids(paths):
    return [p.name for p in paths]


# --- every sample: no Error token, exact round trip --------------------------------------------------


@pytest.mark.parametrize("path", MLIR_FILES + SASS_FILES, ids=ids(MLIR_FILES + SASS_FILES))
def test_no_error_tokens(path):
    text = path.read_text()
    errors = [(text.count("\n", 0, pos) + 1, value) for pos, ttype, value in tokens(path) if ttype in Error]
    assert errors == []  # (line, text) of each miss


@pytest.mark.parametrize("path", MLIR_FILES + SASS_FILES, ids=ids(MLIR_FILES + SASS_FILES))
def test_round_trip(path):
    text = path.read_text()
    assert "".join(v for _, _, v in tokens(path)) == text
    # get_tokens too: lexer_for's lexers neither strip nor add newlines
    assert "".join(v for _, v in lexer_for(stage_of(path)).get_tokens(text)) == text
    assert "".join(v for _, v in lexer_for(stage_of(path)).get_tokens(text.rstrip("\n"))) == text.rstrip("\n")


@pytest.mark.parametrize("stage, text", [("ptx", PTX), ("llir", LLIR)])
def test_patched_pygments_lexers_read_triton_output(stage, text):
    toks = list(lexer_for(stage).get_tokens_unprocessed(text))
    assert [v for _, t, v in toks if t in Error] == []
    assert "".join(v for _, _, v in toks) == text
    if stage == "ptx":
        assert types_of(toks, "@%p1") == {Operator.Word}
        assert types_of(toks, "@!%p31") == {Operator.Word}
    else:
        assert types_of(toks, "captures") == {Keyword}


# --- MLIR: the constructs a reader looks for ---------------------------------------------------------


def mlir_tokens():
    return [tok for path in MLIR_FILES for tok in tokens(path)]


@pytest.mark.parametrize("value, ttype", [
    ("arith.constant", Keyword), ("tt.load", Keyword), ("tt.reduce.return", Keyword),
    ('"tt.reduce"', Keyword), ("scf.for", Keyword), ("ttng.tc_gen5_mma", Keyword), ("tt.func", Keyword),
    ("%x_10", Name.Variable), ("%0", Name.Variable), ("%c-1_i32", Name.Variable),
    ("%acc_99#10", Name.Variable), ("^bb0", Name.Label), ("@softmax_kernel", Name.Function),
    ("#blocked", Name.Constant), ("#blocked1", Name.Constant), ("#ttg.blocked", Name.Builtin),
    ("tensor", Keyword.Type), ("!tt.ptr", Keyword.Type), ("!ttg.memdesc", Keyword.Type),
    ("!tt.tensordesc", Keyword.Type), ("f16", Keyword.Type), ("i32", Keyword.Type),
    ("128x32x", Keyword.Type), ("sizePerThread", Name.Attribute), ("tt.divisibility", Name.Attribute),
    ('"ttg.num-warps"', Name.Attribute), ("iter_args", Keyword), ("true", Keyword.Constant),
    ("0xFF800000", Number.Hex), ("5.000000e-01", Number.Float), ("16", Number.Integer),
    ('"mov.b32 $0, $1;"', String.Double), ("->", Punctuation),
])
def test_mlir_token_types(value, ttype):
    assert types_of(mlir_tokens(), value) == {ttype}


def _loc_spans(text: str):
    """(start, end) of every loc(...) in the text, parentheses balanced outside strings."""
    for match in re.finditer(r"(?<![\w%#])loc\(", text):
        depth, pos, in_string = 0, match.start() + 3, False
        while True:
            char = text[pos]
            if in_string:
                in_string = char != '"' or text[pos - 1] == "\\"
            elif char == '"':
                in_string = True
            elif char in "()":
                depth += 1 if char == "(" else -1
                if depth == 0:
                    break
            pos += 1
        yield match.start(), pos + 1


@pytest.mark.parametrize("path", MLIR_FILES, ids=ids(MLIR_FILES))
def test_mlir_locations_are_comments(path):
    text = path.read_text()
    commented = [False] * len(text)
    for pos, ttype, value in tokens(path):
        if ttype in Comment:
            commented[pos:pos + len(value)] = [True] * len(value)
    spans = list(_loc_spans(text))
    assert len(spans) > 10
    for start, end in spans:
        assert all(commented[start:end]), text[start:end]
    # `#loc12 = loc(...)` definitions: the whole line
    offset = 0
    for line in text.splitlines(True):
        if line.startswith("#loc"):
            assert all(commented[offset:offset + len(line.rstrip())]), line
        offset += len(line)


def test_mlir_header_comment_and_alias_definitions():
    toks = tokens(DATA / "softmax_sm90.ttgir")
    assert toks[0][1] is Comment.Single and toks[0][2].startswith("// TTGIR")
    line = "#blocked = #ttg.blocked<{sizePerThread = [4], order = [0]}>"
    got = [(t, v) for _, t, v in TritonMLIRLexer().get_tokens_unprocessed(line) if t is not Whitespace]
    assert got[:3] == [(Name.Constant, "#blocked"), (Punctuation, "="), (Name.Builtin, "#ttg.blocked")]


def test_mlir_unterminated_loc_ends_at_the_line():
    text = '%0 = arith.addi %a, %b : i32 loc("k.py"(#loc\n%1 = arith.muli %0, %0 : i32\n'
    toks = list(TritonMLIRLexer().get_tokens_unprocessed(text))
    assert types_of(toks, "%1") == {Name.Variable}
    assert types_of(toks, "arith.muli") == {Keyword}
    assert "".join(v for _, _, v in toks) == text


# --- SASS --------------------------------------------------------------------------------------------


def sass_tokens():
    return [tok for path in SASS_FILES for tok in tokens(path)]


@pytest.mark.parametrize("value, ttype", [
    ("HMMA.16816.F32", Keyword), ("LDGSTS.E.BYPASS.LTC128B.128", Keyword), ("HGMMA.64x128x16.F32", Keyword),
    ("UTCHMMA", Keyword), ("UTMALDG.2D", Keyword), ("EXIT", Keyword), ("BRA", Keyword),
    ("R12", Name.Variable), ("UR4", Name.Variable), ("RZ", Name.Variable), ("PT", Name.Variable),
    ("URZ", Name.Variable), ("P5", Name.Variable), (".reuse", Name.Attribute),
    ("SR_TID.X", Name.Builtin), ("SR_CTAID.X", Name.Builtin), ("gdesc", Name.Builtin), ("tmem", Name.Builtin),
    ("c[0x0][0x210]", Name.Constant), ("@P0", Operator.Word), ("@!P0", Operator.Word),
    ("@UP0", Operator.Word), ("/*0080*/", Comment.Special), (".L_x_2", Name.Label), (".L_x_3:", Name.Label),
    ("matmul_kernel:", Name.Function), (".section", Keyword.Pseudo), (".headerflags", Keyword.Pseudo),
    ("0x1f", Number.Hex), ("1.4426950216293334961", Number.Float),
    ("/* 0x00000a00ff017b82 */", Comment.Multiline),
    ("code for", Keyword.Pseudo),
])
def test_sass_token_types(value, ttype):
    assert types_of(sass_tokens(), value) == {ttype}


@pytest.mark.parametrize("path", SASS_FILES, ids=ids(SASS_FILES))
def test_sass_every_instruction(path):
    """Each instruction line: address, optional guard, opcode, then the operands up to `;`."""
    text = path.read_text()
    toks = [(t, v) for _, t, v in tokens(path) if t not in Whitespace]
    addresses = [i for i, (t, _) in enumerate(toks) if t is Comment.Special]
    assert len(addresses) == len(re.findall(r"^\s*/\*[0-9a-f]{4}\*/", text, re.M)) > 10
    for i in addresses:
        j = i + 1 + (toks[i + 1][0] is Operator.Word)
        assert toks[j][0] is Keyword and re.fullmatch(r"[A-Z][A-Z0-9_]*(\.\w+)*", toks[j][1])
    registers = [(t, v) for t, v in toks if re.fullmatch(r"U?R\d+|U?RZ|U?P\d|U?PT", v)]
    assert registers and all(t is Name.Variable for t, _ in registers)
    guards = [(t, v) for t, v in toks if v.startswith("@") and not v.startswith('@"')]
    assert all(t in (Operator.Word, Name.Attribute) for t, _ in guards)  # @progbits: a directive's


@pytest.mark.parametrize("path", SASS_FILES, ids=ids(SASS_FILES))
def test_sass_line_info_marks_are_comments(path):
    marks = [v for _, t, v in tokens(path) if t is Comment.Preproc]
    assert marks == re.findall(r'//## File "[^"]*", line \d+', path.read_text())


def test_sass_more_real_lines():
    # From the softmax kernel on sm_100 (not among the excerpts): the predicate file, a cluster SR.
    text = ("        /*0150*/                   P2R R21, PR, RZ, 0x10 ;\n"
            "        /*0250*/                   S2UR UR5, SR_CgaCtaId ;\n")
    toks = list(SassLexer().get_tokens_unprocessed(text))
    assert types_of(toks, "PR") == {Name.Variable}
    assert types_of(toks, "SR_CgaCtaId") == {Name.Builtin}
    assert types_of(toks, "S2UR") == {Keyword}


def test_sass_dual_issue_braces():
    # cuobjdump's pairing braces on sm_5x (which Triton no longer targets, hence no real sample):
    text = ("        /*0050*/         {         SHL R2, R0.reuse, 0x2 ;            /* 0x3848000000270002 */\n"
            "        /*0058*/                   SHR R0, R0, 0x1e         }\n"
            "                                                            /* 0x3829000001e70000 */\n")
    toks = list(SassLexer().get_tokens_unprocessed(text))
    assert [v for _, t, v in toks if t is Punctuation and v in "{}"] == ["{", "}"]
    assert types_of(toks, "SHL") == types_of(toks, "SHR") == {Keyword}
    assert not [v for _, t, v in toks if t in Error]
    assert "".join(v for _, _, v in toks) == text


# --- lexer_for and highlight() -----------------------------------------------------------------------


@pytest.mark.parametrize("stage, cls", [
    ("ttir", TritonMLIRLexer), ("ttgir", TritonMLIRLexer), ("llir", TritonLlvmLexer), ("ptx", TritonPtxLexer),
    ("sass", SassLexer),
])
def test_lexer_for(stage, cls):
    lexer = lexer_for(stage)
    assert type(lexer) is cls


@pytest.mark.parametrize("stage", ["cubin", "TTIR", "mlir", ""])
def test_lexer_for_unknown_stage(stage):
    with pytest.raises(UsageError, match="valid: ttir"):
        lexer_for(stage)


ALL_TEXTS = [(stage_of(p), p.read_text()) for p in MLIR_FILES + SASS_FILES] + [("ptx", PTX), ("llir", LLIR)]


@pytest.mark.parametrize("stage, text", ALL_TEXTS, ids=[f"{s}-{i}" for i, (s, _) in enumerate(ALL_TEXTS)])
def test_highlight(stage, text):
    assert highlight(text, stage, color=False) is text
    colored = highlight(text, stage, color=True)
    assert "\x1b[" in colored
    assert ANSI.sub("", colored) == text  # the text itself untouched: no newline added or stripped
    assert ANSI.sub("", highlight(text.rstrip("\n"), stage, color=True)) == text.rstrip("\n")


def test_highlight_plain_for_unknown_syntax():
    """A lexer miss is shown as plain text, not as pygments' underlined red error."""
    text = "%0 = arith.addi %a, %b : i32 ` § \\\n"
    assert any(t in Error for _, t, _ in lexer_for("ttir").get_tokens_unprocessed(text))
    colored = highlight(text, "ttir", color=True)
    assert ANSI.sub("", colored) == text
    assert "\x1b[04m" not in colored and "\x1b[4m" not in colored


def test_highlight_de_emphasizes_locations():
    colored = highlight('%0 = tt.load %p : !tt.ptr<f16> loc(#loc3)\n', "ttir", color=True)
    loc_color = re.search(r"(\x1b\[[0-9;]*m)loc\(", colored).group(1)
    op_color = re.search(r"(\x1b\[[0-9;]*m)tt\.load", colored).group(1)
    assert loc_color != op_color


# --- should_color ------------------------------------------------------------------------------------


class Stream(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.fixture
def env(monkeypatch):
    for name in ("NO_COLOR", "TTINSPECT_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_should_color_tty_only(env):
    assert should_color(Stream(tty=True)) is True
    assert should_color(Stream(tty=False)) is False
    assert should_color(object()) is False  # no isatty at all
    closed = io.StringIO()
    closed.close()
    assert should_color(closed) is False


@pytest.mark.parametrize("value, expected", [("1", False), ("0", False), ("false", False), ("", True)])
def test_should_color_no_color(env, value, expected):
    """no-color.org: set to anything but the empty string, NO_COLOR turns color off."""
    env.setenv("NO_COLOR", value)
    assert should_color(Stream(tty=True)) is expected


def test_should_color_forced(env):
    env.setenv("TTINSPECT_COLOR", "always")
    assert should_color(Stream(tty=False)) is True
    env.setenv("NO_COLOR", "1")
    assert should_color(Stream(tty=False)) is True  # an explicit per-tool choice wins over NO_COLOR
    env.setenv("TTINSPECT_COLOR", "never")
    env.delenv("NO_COLOR")
    assert should_color(Stream(tty=True)) is False
    env.setenv("TTINSPECT_COLOR", "sometimes")  # unknown: auto
    assert should_color(Stream(tty=True)) is True
    assert should_color(Stream(tty=True), mode="never") is False  # the CLI's --color beats the env
    assert should_color(Stream(tty=False), mode="always") is True
    with pytest.raises(UsageError):
        should_color(Stream(tty=True), mode="yes")


def test_should_color_dumb_terminal(env):
    env.setenv("TERM", "dumb")
    assert should_color(Stream(tty=True)) is False


# --- the fast path -----------------------------------------------------------------------------------


def test_import_does_not_import_pygments():
    code = (
        "import sys\n"
        "import ttinspect.render.highlight as h\n"
        "assert 'pygments' not in sys.modules, 'import'\n"
        "h.should_color(sys.stdout)\n"
        "assert h.highlight('%0 = tt.load %p\\n', 'ttir', color=False) == '%0 = tt.load %p\\n'\n"
        "assert 'pygments' not in sys.modules, 'plain path'\n"
        "h.highlight('%0 = tt.load %p\\n', 'ttir', color=True)\n"
        "assert 'pygments' in sys.modules, 'color path'\n"
    )
    root = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=root)
    assert done.returncode == 0, done.stderr
