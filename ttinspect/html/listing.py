"""Highlighted stage text as HTML, one string per line of the text, so that the page can wrap each line
in an element of its own (line N of the stage = element N: attribution, the main loop, clicks).

pygments' HtmlFormatter with the project's lexers (render/lexers.py) and CSS classes; the stylesheet
(`stylesheet`) goes inline into the page. The formatter escapes every token (&, <, >, quotes).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import groupby

from ttinspect.render.highlight import lexer_for

STYLE = "default"  # pygments' light theme: readable printed, and on the page's white panes


def _formatter():
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(nowrap=True, style=STYLE)


def _lexer(stage: str):
    if stage == "python":
        from pygments.lexers import PythonLexer

        return PythonLexer(stripnl=False, ensurenl=False)
    return lexer_for(stage)


def html_lines(text: str, stage: str) -> list[str]:
    """`text` highlighted, split into exactly `len(text.split("\\n"))` HTML fragments. HtmlFormatter closes
    every span at the end of a line (a token over several lines is split), so splitting its output on
    newlines gives self-contained lines; escaping never adds a newline."""
    from pygments import format as pygments_format

    tokens = ((_styled(ttype), value) for _, ttype, value in _lexer(stage).get_tokens_unprocessed(text))
    merged = ((ttype, "".join(v for _, v in group)) for ttype, group in groupby(tokens, key=lambda t: t[0]))
    lines = pygments_format(merged, _formatter()).split("\n")
    expected = len(text.split("\n"))
    if len(lines) != expected:  # never seen; a plain escaped listing keeps line numbers right regardless
        import html

        return [html.escape(line) for line in text.split("\n")]
    return lines


@lru_cache(maxsize=None)
def _styled(ttype):
    """The token type's nearest ancestor with a short class of its own (`Name.Variable.Anonymous` ->
    `Name.Variable`: one class, not "nv nv-Anonymous"), or plain text (no span at all) when STYLE gives
    it no look of its own (whitespace, punctuation): the colors stay the same, the page gets smaller."""
    from pygments.styles import get_style_by_name
    from pygments.token import STANDARD_TYPES, Text, Whitespace

    if ttype in Whitespace:  # its style colors spaces: nothing to see
        return Text
    while ttype not in STANDARD_TYPES:
        ttype = ttype.parent
    look = get_style_by_name(STYLE).style_for_token(ttype)
    plain = not (look["color"] or look["bgcolor"] or look["bold"] or look["italic"] or look["underline"]
                 or look["border"])
    return Text if plain else ttype


def stylesheet(scope: str) -> str:
    """The token colors of STYLE for elements under `scope` (a CSS selector)."""
    return _formatter().get_style_defs(scope)
