"""Bad values for every option of every command: wrong types, out of range, empty, unicode, very long.
Each case must be answered with one line on stderr (`ttinspect: error: ...`), nothing on stdout and exit
code 2 — tests/test_cli_bad_values.py runs them, scripts/reliability_table.py renders docs/reliability.md.

A case is (category, command line). Values that are well-formed but that the compiler rejects (a block
of 48) are compile errors (exit 3), tested elsewhere; here everything is refused before compiling.
"""

from __future__ import annotations

LONG = "x" * 10_000
UNICODE = ["é", "sm_９０", "名前", "\u202e", "\U0001F600"]

_REF = ["", " ", "nonexistent", "opt:", "opt:=", "opt:=3", "opt:num_stages", "opt:num_stages=abc", "opt@",
        "opt@sm_999", "opt@@sm_90", "opt::", "/no/such/file.py:k", "no_such.py", "cache:", "cache:zzzz",
        LONG, *UNICODE]
_ARCH = ["", " ", "sm_999", "sm_88", "sm_110", "gfx1030", "sm", "90.0", "sm_90\n", LONG, *UNICODE]
_STAGE = ["", " ", "PTX2", "cubin", "hsaco", "ttgir ", LONG, *UNICODE]
_SET = ["", "=", "x", "=3", "num_stages=", "num_stages=abc", "num_stages=-1", "num_stages=999999999999",
        "GROUP_SIZE_M=99999999999999999999", "M=99999999999999999999",
        "num_stages=1.5", "num_warps=3", "num_warps=0", "num_warps=64", "BLOCK_SIZE_M=0", "BLOCK_SIZE_M=-64",
        "BLOCK_SIZE_M=12345678901234567890", "BLOCK_SIZE_M=abc", "unknown=1", "名前=1", f"{LONG}=1",
        f"num_stages={LONG}", "num_stages=\U0001F600"]
_ARG = ["", "=", "M", "M=", "M=abc", "M=-1", "nonexistent=1", f"M={LONG}", "名前=1"]
_SIGNATURE = ["", ",", "*fp99", "i32:17", "*fp16:16,", "banana", LONG, *UNICODE]
_CONFIG = ["", "abc", "0", "-1", "99", "1.5", LONG, *UNICODE]
_INT = ["", "abc", "1.5", "-1", "0", "99999999999999999999", "1e3", LONG, "\U0001F600"]


def cases() -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []

    def add(category: str, *args: str) -> None:
        out.append((category, list(args)))

    for command in ("dump", "report"):
        for value in _REF:
            add(f"{command} REF", command, value)
        for value in _ARCH:
            add(f"{command} --arch", command, "opt", "--arch", value)
        for value in _SET:
            add(f"{command} --set", command, "opt", "--set", value)
        for value in _CONFIG:
            add(f"{command} --config", command, "opt", "--config", value)
        for value in _ARG:
            add(f"{command} --arg", command, "opt", "--arg", value)
        for value in _SIGNATURE:
            add(f"{command} --signature", command, "opt", "--signature", value)
        for value in _STAGE:
            add(f"{command} --stage", command, "opt", "--stage", value) if command == "dump" else \
                add(f"{command} --stage", command, "opt", "--by-line", "--stage", value)
        add(f"{command} missing value", command, "opt", "--arch")
        add(f"{command} unknown option", command, "opt", "--bogus")
    for value in _REF[:6] + [LONG]:
        add("diff A B", "diff", value, "opt")
        add("diff A B", "diff", "opt", value)
    for value in _ARCH[:5]:
        add("diff --arch", "diff", "naive", "opt", "--arch", value)
    for value in _STAGE[:5]:
        add("diff --stage", "diff", "naive", "opt", "--stage", value)
    for value in _SET[:8]:
        add("diff --set", "diff", "naive", "opt", "--set", value)
    add("dump --out", "dump", "opt", "--all", "--out", "/proc/version")
    add("dump --out", "dump", "opt", "--out", "x")  # --out without --all
    add("dump --all", "dump", "opt", "--all")  # --all without --out
    for value in ["", "/no/such/file.py", "/etc/hostname", "/", LONG, *UNICODE[:2]]:
        add("list FILE", "list", value)
    for value in ["/no/such/dir", "/etc/hostname", LONG]:
        add("cache DIR", "cache", value)
    for value in ["", "bogus", "-", "--registers", LONG]:
        add("cache --sort", "cache", "tests/data/triton_cache", "--sort", value)
    for command in ("ladder", "autotune opt", "profile opt"):
        for value in _INT:
            add(f"{command.split()[0]} --size", *command.split(), "--size", value)
    for value in _INT:
        add("bench --rounds", "bench", "opt", "--rounds", value)
    for value in ["", "abc", "1,,2", "-5", "0", LONG]:
        add("bench --sizes", "bench", "opt", "--sizes", value)
    for value in ["", "fp99", LONG, *UNICODE[:2]]:
        add("bench --dtype", "bench", "opt", "--dtype", value)
    add("bench --plot", "bench", "opt", "--plot", "/")
    for value in ["bogus", "--bogus", LONG]:
        add("unknown command", value)
    add("targets --json=1", "targets", "--json=1")
    add("cache-info extra argument", "cache-info", "extra")
    return out
