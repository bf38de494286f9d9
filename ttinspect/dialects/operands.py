"""Operand lists of assembly instructions (PTX, SASS): commas split operands only outside brackets."""

from __future__ import annotations


def split_operands(text: str, *, angles: bool = False) -> tuple[str, ...]:
    """Top-level commas only: `{ %r1, %r2 }, [%rd1+8], 0x10` -> 3 operands. `angles`: `<...>` nests too (a
    descriptor type `tensordesc<fp16[128, 64],Layout(...)>`; an arrow `->` closes nothing)."""
    if not text:
        return ()
    # PTX's hot path (every instruction's operands): three substring tests, then per character no more
    # comparisons than before `angles` existed
    if "{" not in text and "[" not in text and "(" not in text and not (angles and "<" in text):
        return tuple(part.strip() for part in text.split(","))
    opening, closing = ("{[(<", "}])>") if angles else ("{[(", "}])")
    out, level, start = [], 0, 0
    for pos, ch in enumerate(text):
        if ch in opening:
            level += 1
        elif ch in closing and not (ch == ">" and text[pos - 1:pos] == "-"):
            level -= 1
        elif ch == "," and level == 0:
            out.append(text[start:pos].strip())
            start = pos + 1
    out.append(text[start:].strip())
    return tuple(out)
