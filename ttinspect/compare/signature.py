"""What two compiles of one kernel were specialized on, where it differs — the cause a diff names first.

Triton's JIT specializes every launch on its runtime arguments (kernel/specialize.py): an int divisible by 16
or a 16-byte-aligned pointer is marked `:16`, an int equal to 1 is folded into the constant 1. Two launches of
one kernel with other sizes (n = 64 and n = 100) are two compiles that differ only there, and what follows —
narrower loads, more masks, no cp.async — is its effect. A diff lists the facts of the compiled code; this
says which specialization made them differ, read from the signature each build recorded
(`metadata["ttinspect"]["signature"]`: `*fp16 D`, `i32 D`, `=1`). Constexpr values are the configuration's
facts, not compared here.
"""

from __future__ import annotations

from typing import Any

from ttinspect.facts.model import Fact, format_value
from ttinspect.report.model import Report

KEY, TITLE = "specialization", "specialization (signature)"
_EXPLANATION = ("what the JIT specialized the runtime arguments on: `:16` = divisible by 16 (a pointer: "
                "16-byte aligned), `1` = the value 1 folded into a constant")


def recorded_signature(report: Report) -> dict[str, str] | None:
    """Each parameter's specialization as the build recorded it (`n: i32 D`); None when it was not (a
    Triton cache entry, a build made before ttinspect recorded it)."""
    build = report.build
    signature = (build.metadata.get("ttinspect") or {}).get("signature") if build is not None else None
    return dict(signature) if isinstance(signature, dict) else None


def signature_text(described: str) -> str:
    """`i32 D` -> `i32:16`, `*fp16 D` -> `*fp16:16`, `=1` -> `1`: as `--signature` and the capture write it."""
    if described.startswith("="):
        return described[1:]
    return described[:-2] + ":16" if described.endswith(" D") else described


def signature_facts(a: Report, b: Report) -> tuple[Fact, Fact] | None:
    """The two sides' specialization of the runtime parameters that differ, as facts of the configuration
    group; None when both are the same, when a side has no recorded signature, or when the two are not one
    kernel's (other parameters: nothing to pair)."""
    left, right = recorded_signature(a), recorded_signature(b)
    if left is None or right is None or list(left) != list(right):
        return None
    differ = [name for name in left if left[name] != right[name]
              and not (left[name].startswith("=") and right[name].startswith("="))]  # constexprs: the config's
    if not differ:
        return None
    return (_fact(tuple((name, signature_text(left[name])) for name in differ)),
            _fact(tuple((name, signature_text(right[name])) for name in differ)))


def _fact(value: tuple[tuple[str, str], ...]) -> Fact:
    return Fact(KEY, TITLE, "configuration", value, _EXPLANATION, "metadata")


def explain(a: Report, b: Report, before: Any, after: Any, others: int, settings_differ: bool) -> str:
    """One line: what each differing parameter was on each side, and that the other `others` changes
    follow from it (with the settings', where the two were given other settings too)."""
    said = [_parameter(name, old, new, a.label, b.label) for (name, old), (_, new) in zip(before, after, strict=True)]
    text = f"{format_value(before)} → {format_value(after)}: " + "; ".join(said) + (
        ". The JIT compiles each specialization on its own, and the compiler may use only what it was told")
    if others and not settings_differ:
        return text + f" — this is the cause of the {others} other change{'s' * (others != 1)} below"
    if others:
        return text + " — with the settings that differ, a cause of the changes below"
    return text + "; here the compiled code came out the same"


def _parameter(name: str, old: str, new: str, label_a: str, label_b: str) -> str:
    if old.endswith(":16") != new.endswith(":16") and old.removesuffix(":16") == new.removesuffix(":16"):
        has, lacks = (label_a, label_b) if old.endswith(":16") else (label_b, label_a)
        if old.startswith("*"):
            return (f"{name} was 16-byte aligned in {has}'s launch and not in {lacks}'s, so only {has}'s loads "
                    "and stores through it may be wide (vectorized)")
        return (f"{name} was a multiple of 16 in {has}'s launch and not in {lacks}'s, so only {has}'s compiler "
                f"knew that masks and offsets made from {name} keep groups of 16 elements whole, which wide "
                "(vectorized) loads and stores need")
    if "1" in (old, new):
        one, other = (label_a, label_b) if old == "1" else (label_b, label_a)
        return f"{name} was 1 in {one}'s launch, folded into a constant there, and a runtime value in {other}'s"
    return f"{name} is {old} in {label_a} and {new} in {label_b}"
