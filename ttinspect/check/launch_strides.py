"""TTI005's cause where the launch gave the runtime strides of a narrow access (`--arg`, `--signature`, or every
recorded launch of a capture agreeing: check/recorded_values.py): the values say what the access is — 0, a
broadcast (an expanded tensor, the gradient of a sum); any other, a strided view — so no hint is advised."""

from __future__ import annotations

from typing import Any, Iterable, Mapping


def launch_stride_cause(stages: Any, strides: Iterable[str], stride_shapes: Mapping[str, set[tuple[int, ...]]],
                        fastest: int | None) -> tuple[str, str] | None:
    """(the `why` sentence, the fix) when the strides that scale the layout's fastest (contiguous) dimension all
    have the value the launches gave — a row's or a batch's stride says nothing of how wide one access is; None
    when there is none, or one has no value (or several: unknown) — the rule then names them as candidates."""
    along = [name for name in strides if fastest is not None and
             {i for shape in stride_shapes.get(name, ()) for i, n in enumerate(shape) if n != 1} == {fastest}]
    names = [name.lstrip("%") for name in along]
    known = {name: stages.launch_args.get(name) for name in names}
    if not names or not all(isinstance(v, int) and not isinstance(v, bool) for v in known.values()):
        return None
    told = ", ".join(f"{name} = {value}" for name, value in known.items())
    if all(value == 0 for value in known.values()):
        return (f"Responsible: the launch, not a hint — {told} at launch: every element of the access is one address "
                "(a broadcast: an expanded tensor, the gradient of a sum), so nothing is moved twice over the bus "
                "and no hint would widen it.", "Nothing to declare: a broadcast read is served from one address.")
    return (f"Responsible: the launch, not a hint — {told} at launch: the elements are that far apart in memory, so "
            "a wider access would not be contiguous.",
            "Nothing to declare: the tensor the launch gives is strided (a transposed or sliced view). A contiguous "
            "copy (`.contiguous()`) before the launch widens the access, at the copy's cost.")
