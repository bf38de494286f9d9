"""What a vendor backend supplies (like Triton's `make_backend(target)`): the facts of its assembly, its
occupancy calculator, and the hooks the check rules call — each returns data (widths, evidence, wording),
never a finding, so that check/ holds the rules and no vendor branch."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ttinspect.engine.builds import Build
    from ttinspect.facts.model import Fact


class Backend(Protocol):
    name: str  # "nvidia", "amd": the key check/ looks its vendor's finding builders up by
    assembly_stage: str  # the stage the machine-level evidence comes from: "ptx", "amdgcn"
    thread_word: str  # what runs one element of a tile: "thread", "lane"
    cta_word: str  # a program instance: "CTA", "workgroup"
    shared_word: str  # the on-chip memory a program shares: "shared memory", "LDS"

    def facts(self, result: Build, sass: bool) -> tuple[list[Fact], str | None]:
        """The build's facts after its configuration ones, and its main loop's text (None when unknown)."""

    def has_tma(self, target: Any) -> bool:
        """Whether tensor descriptors become TMA copies on `target`."""

    def has_async_copy(self, target: Any) -> bool:
        """Whether Triton can pipeline loads on `target` (NVIDIA: cp.async, sm_80+)."""

    def mma_upgrade(self, target: Any) -> tuple[str, int] | None:
        """The MMA `target` should use instead of mma.sync and its layout version; None where none."""

    def access_widths(self, stages: Any) -> dict[tuple[int, str], list[tuple[int, int]]]:
        """(python line, "load"/"store") -> [(bits per thread per access, assembly line)]."""

    def narrow_loop_loads(self, stages: Any) -> tuple:
        """The main loop's global loads of fewer than 32 bits per thread (at most 2, as evidence)."""

    def narrow_loop_reason(self, target: Any, where: str, descriptors: list[str]) -> tuple[str, str]:
        """(why narrow loads keep the loop from being pipelined, the fix), for TTI001."""

    def narrow_blocks_pipelining(self, report: Any, narrow_in_loop: bool) -> tuple[bool, str]:
        """(whether a narrow load in the loop kept it from being pipelined, the clause saying so), for TTI005."""

    def descriptor_lowering(self, target: Any) -> tuple[str, str]:
        """(why descriptors are plain loads on `target`, the end of TTI005's fix)."""
