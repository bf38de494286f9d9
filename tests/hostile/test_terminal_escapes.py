"""What a stranger's file, capture or cache says reaches the terminal as text, never as a command to it: control
characters (ESC sequences that clear the screen, set the window title or write the clipboard with OSC 52; a
carriage return that overwrites a line; bidirectional overrides) in kernel files' names, examples' names and
descriptions, import errors' messages, captures' strings and warnings are shown quoted (`\\x1b`), rich markup in
them prints as it is, and a stream that cannot encode a character (PYTHONIOENCODING=ascii) gets its escape, not
a traceback. JSON output escapes them itself."""

from __future__ import annotations

import json
import re

import pytest
from cli_helpers import ERROR, assert_one_line_error, run_cli, run_process

from ttinspect.files.terminal_text import shown, shown_block

# A family of what terminals obey, each with the text it must be shown as.
CONTROLS = {
    "\x1b[2J\x1b[H": "\\x1b[2J\\x1b[H",              # clear the screen
    "\x1b]0;pwned\x07": "\\x1b]0;pwned\\x07",          # set the window title
    "\x1b]52;c;cm0gLXJmIH4=\x07": "\\x1b]52;c;cm0gLXJmIH4=\\x07",  # write the clipboard (OSC 52)
    "\x9b31m": "\\x9b31m",                              # a C1 CSI
    "safe\rEVIL": "safe\\rEVIL",                        # overwrite the line
    "\u202egnp.py": "\\u202egnp.py",                    # right-to-left override
    "\u2066x\u2069": "\\u2066x\\u2069",                 # an isolate
    "nul\x00del\x7f": "nul\\x00del\\x7f",
    "bs\x08\x08": "bs\\x08\\x08",
}
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def assert_nothing_raw(text: str) -> None:
    """No control character in `text` but newlines and tabs."""
    assert not RAW.search(text), ascii(text)


# --- the quoting itself ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("raw, quoted", list(CONTROLS.items()), ids=[ascii(k)[:24] for k in CONTROLS])
def test_every_control_character_is_quoted(raw, quoted):
    assert shown(raw) == quoted and shown_block(raw) == quoted
    assert shown(shown(raw)) == shown(raw)  # quoting twice (a relayed warning) changes nothing more


@pytest.mark.parametrize("text", ["plain", "tab\there", "ünïcödé 名前 ×·→", "a\\x1b literal backslash", ""])
def test_legitimate_text_is_unchanged(text):
    assert shown(text) == text and shown_block(text) == text


def test_a_newline_is_quoted_in_a_line_and_kept_in_a_block():
    assert shown("a\nb") == "a\\nb" and shown_block("a\nb\x1b") == "a\nb\\x1b"


# --- through the commands -------------------------------------------------------------------------------------

KERNEL = """\
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)


TTINSPECT_EXAMPLES = {NAME!r: {"kernel": k, "signature": "*fp32:16", "description": DESCRIPTION}}
"""


@pytest.mark.parametrize("raw, quoted", list(CONTROLS.items()), ids=[ascii(k)[:24] for k in CONTROLS])
def test_list_quotes_what_a_file_says(tmp_path, raw, quoted):
    path = tmp_path / "kernels.py"
    path.write_text(KERNEL.replace("NAME!r", repr(f"ex{raw}")).replace("DESCRIPTION", repr(f"d [bold]{raw}")))
    result = run_cli("list", path, "--width", "400")
    assert result.exit_code == 0, result.output
    assert_nothing_raw(result.output)
    assert f"ex{quoted}" in result.output and f"d [bold]{quoted}" in result.output  # markup printed as it is
    listing = json.loads(run_cli("list", path, "--json").output)  # JSON escapes controls itself
    assert listing["examples"][0]["name"] == f"ex{raw}"


@pytest.mark.parametrize("raw, quoted", list(CONTROLS.items()), ids=[ascii(k)[:24] for k in CONTROLS])
def test_a_file_name_in_an_error_line_is_quoted(tmp_path, raw, quoted):
    result = run_cli("report", tmp_path / f"no{raw}such.py:k")
    line = assert_one_line_error(result, 2)
    assert_nothing_raw(result.output)
    assert f"no{quoted}such.py" in line


@pytest.mark.parametrize("raw, quoted", list(CONTROLS.items()), ids=[ascii(k)[:24] for k in CONTROLS])
def test_an_import_error_message_is_one_quoted_line(tmp_path, raw, quoted):
    path = tmp_path / "raises.py"
    path.write_text(f"raise RuntimeError({raw + chr(10) + 'second line'!r})\n")
    result = run_cli("list", path)
    line = assert_one_line_error(result, 2)
    assert_nothing_raw(result.output)
    assert "second line" in line  # on the same line (a carriage return is whitespace: the line's words joined)


def test_a_file_listed_under_a_hostile_name_is_quoted(tmp_path):
    path = tmp_path / "k\x1b]0;title\x07.py"
    path.write_text(KERNEL.replace("NAME!r", "'e'").replace("DESCRIPTION", "''"))
    result = run_cli("list", path, "--width", "400")
    assert result.exit_code == 0, result.output
    assert_nothing_raw(result.output)
    assert "k\\x1b]0;title\\x07.py" in result.output


def test_a_warning_line_is_quoted(capsys):
    from ttinspect.caches.store import warn

    warn("the cache entry at /x/\x1b]52;c;AAAA\x07 is damaged")
    err = capsys.readouterr().err
    assert err == "ttinspect: warning: the cache entry at /x/\\x1b]52;c;AAAA\\x07 is damaged\n"


SOURCE_LINE = """\
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)  # \x1b]0;title\x07 \u202e a[i] [bold]x
    tl.store(x_ptr + offs, 1.0)
"""


def test_a_kernel_line_quoted_by_dump_and_report_is_quoted(tmp_path):
    """The kernel's own Python lines, as `dump --source` interleaves them and `report --by-line` tabulates
    them (one compile, cached for the second): controls quoted, `[i]` and `[bold]` printed as they are."""
    path = tmp_path / "k.py"
    path.write_text(SOURCE_LINE)
    ref = [f"{path}:k", "--signature", "*fp32:16", "--set", "BLOCK=16", "--arch", "sm_90"]
    quoted = "# \\x1b]0;title\\x07 \\u202e a[i] [bold]x"
    for command in (["dump", *ref, "--stage", "ttir", "--source"], ["report", *ref, "--by-line", "--width", "300"]):
        result = run_cli(*command)
        assert result.exit_code == 0, result.output
        assert_nothing_raw(result.output)
        assert quoted in result.output, result.output


def test_a_stream_that_cannot_encode_gets_escapes_not_a_traceback(tmp_path):
    """PYTHONIOENCODING=ascii: non-ASCII text (a description, the table's own ·) is escaped; the command still
    exits as it would, and an error is still one line."""
    path = tmp_path / "kernels.py"
    path.write_text(KERNEL.replace("NAME!r", "'ünï'").replace("DESCRIPTION", "'名前 → ×'"))
    env = {"PYTHONIOENCODING": "ascii", "LC_ALL": "C"}
    listed = run_process("list", path, env=env)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.isascii() and "\\xfcn\\xef" in listed.stdout
    failed = run_process("report", tmp_path / "nö.py:k", env=env)
    assert failed.returncode == 2 and failed.stderr.count("\n") == 1 and failed.stderr.startswith(ERROR)
    assert "Traceback" not in failed.stderr  # click writes its stderr lines as UTF-8 whatever the encoding says


def test_rich_markup_in_data_is_printed_as_it_is(tmp_path):
    path = tmp_path / "kernels.py"
    path.write_text(KERNEL.replace("NAME!r", "'[red]e[/red]'").replace("DESCRIPTION", "'a[i] [link=x]b'"))
    result = run_cli("list", path, "--width", "400")
    assert result.exit_code == 0, result.output
    assert "[red]e[/red]" in result.output and "a[i] [link=x]b" in result.output
