"""Operand lists of assembly instructions (PTX, SASS): commas split operands only outside brackets."""

from __future__ import annotations


def split_operands(text: str) -> tuple[str, ...]:
    """Top-level commas only: `{ %r1, %r2 }, [%rd1+8], 0x10` -> 3 operands."""
    if not text:
        return ()
    if "{" not in text and "[" not in text and "(" not in text:
        return tuple(part.strip() for part in text.split(","))
    out, level, start = [], 0, 0
    for pos, ch in enumerate(text):
        if ch in "{[(":
            level += 1
        elif ch in "}])":
            level -= 1
        elif ch == "," and level == 0:
            out.append(text[start:pos].strip())
            start = pos + 1
    out.append(text[start:].strip())
    return tuple(out)
