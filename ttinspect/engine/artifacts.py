"""The compiled kernel as files: every stage's text or bytes and the metadata, read from a cache entry —
ttinspect's own (`kernel.<stage>`, `metadata.json`) or one of Triton's (`<name>.<stage>`, `<name>.json`).
SASS is derived from the cubin the first time it is asked for, then kept: beside the other stages in
ttinspect's cache, in a `derived` directory of ttinspect's cache for an entry of Triton's (read-only).

Every read of ttinspect's own entries is checked against the digest the file was stored with
(cache.read). A damaged file is never returned: a derived one is derived again, a compiled one makes
the entry be compiled again through `rebuild` (one warning line), or, where nothing can rebuild it, a
one-line error. Triton's own entries carry no digests; they are read as they are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Callable

from ttinspect.caches import store as cache
from ttinspect.engine import tools
from ttinspect.errors import EXIT_USAGE, TTInspectError, UsageError
from ttinspect.files.outputs import check_output_dir, write_atomically
from ttinspect.dialects.stages import STAGES, get_stage, missing_for_language
from ttinspect.files.source_files import read_regular


@dataclass(eq=False)
class Artifacts:
    directory: Path
    stem: str = "kernel"  # files are <stem>.<stage>
    metadata_file: str = cache.METADATA
    derived: Path | None = None  # where derived files go; None: the entry itself
    verified: bool = True  # ttinspect's own entry, with a manifest of digests
    rebuild: Callable[[], Path] | None = field(default=None, repr=False)  # compiles the entry again

    @cached_property
    def metadata(self) -> dict[str, Any]:
        try:
            return json.loads(self._read(self.metadata_file))
        except ValueError as exc:  # only an unverified (Triton) entry can get here
            raise TTInspectError(f"{self.directory / self.metadata_file} is not valid JSON ({exc})") from exc

    def _derived_dir(self) -> Path:
        return self.derived or self.directory

    def _name(self, stage: str) -> str:
        return f"{self.stem}.{get_stage(stage).name}"

    def path(self, stage: str) -> Path:
        spec = get_stage(stage)
        if spec.derived_from is not None:
            return self._derived_dir() / f"kernel.{spec.name}"
        return self.directory / self._name(stage)

    def has(self, stage: str) -> bool:
        spec = get_stage(stage)
        if spec.derived_from is not None:
            return (self._derived_dir() / f"kernel.{spec.name}").is_file()
        if self.verified:
            return cache.has(self.directory, self._name(stage))
        return self.path(stage).is_file()

    def data(self, stage: str) -> bytes:
        spec = get_stage(stage)
        source = spec.derived_from  # a local: the lambda below must see it as a str, not str | None
        if source is not None:
            return self._derived(f"kernel.{spec.name}", lambda: tools.disassemble(self.data(source)))
        if not self.has(stage):
            raise MissingStage(stage, self.directory, missing_for_language(stage, self.has))
        return self._read(self._name(stage))

    def text(self, stage: str) -> str:
        if get_stage(stage).binary:
            raise UsageError(f"{stage} is binary; ask for sass to read it")
        data = self.data(stage)
        try:
            return data.decode()
        except UnicodeDecodeError as exc:  # only an unverified (Triton) entry can get here
            raise TTInspectError(f"{self.path(stage)} is not text (byte {exc.start} is not UTF-8)") from exc

    def _read(self, name: str) -> bytes:
        """A compiled file, verified; a damaged entry is compiled again once."""
        if not self.verified:  # a Triton cache entry: regular files only (a FIFO there would block the read)

            data = read_regular(self.directory / name)
            if data is None:
                raise TTInspectError(f"{self.directory / name} is missing, unreadable or not a regular file")
            return data
        try:
            return cache.read(self.directory, name)
        except cache.Damaged as damage:
            if self.rebuild is None:
                raise TTInspectError(f"{damage}; remove it or run `ttinspect cache-info --clear`") from damage
            cache.warn(f"{damage}; compiling it again")
            cache.discard(self.directory)
            self.directory = self.rebuild()
            try:
                return cache.read(self.directory, name)
            except cache.Damaged:  # another process discarded it between our store and read: once more
                self.directory = self.rebuild()
                return cache.read(self.directory, name)

    def _derived(self, name: str, derive: Callable[[], str]) -> bytes:
        return self.derived_file(name, lambda: derive().encode())

    def derived_file(self, name: str, derive: Callable[[], bytes]) -> bytes:
        """A file derived from the entry (SASS, the pass history), read back verified or derived and
        kept with its digest; a damaged one is derived again (one warning line)."""
        folder = self._derived_dir()
        if (folder / name).is_file():
            try:
                return cache.read(folder, name)
            except cache.Damaged as damage:
                cache.warn(f"{damage}; deriving it again")
        data = derive()
        cache.add_file(folder, name, data, create=self.derived is not None)
        return data

    def extra(self, name: str) -> str | None:
        """A side file of the entry that is not a stage (e.g. "ptxas_log"), or None."""
        file = f"{self.stem}.{name}"
        if self.verified:
            return self._read(file).decode() if cache.has(self.directory, file) else None
        path = self.directory / file

        data = read_regular(path)
        return data.decode(errors="replace") if data is not None else None

    def resource_usage(self) -> str:
        """cuobjdump's resource table for the cubin, derived once and kept like the SASS."""
        return self._derived("kernel.resources", lambda: tools.resource_usage(self.data("cubin"))).decode()

    def export(self, out_dir: Path, *, force: bool = False) -> list[Path]:
        """Write every stage (SASS included) and metadata.json into out_dir. Refuses to overwrite a
        file that is already there unless `force`: nothing the user had is lost."""
        stages = [stage for stage in STAGES if self.has(stage) or STAGES[stage].derived_from is not None]
        if STAGES["sass"].derived_from not in stages:
            stages.remove("sass")  # no cubin to derive it from
        names = [f"kernel.{stage}" for stage in stages] + ["metadata.json"]
        paths = check_output_dir(out_dir, names, force=force)  # links, FIFOs, devices: refused even with force
        contents = {f"kernel.{stage}": self.data(stage) for stage in stages}  # verified, before writing
        contents["metadata.json"] = self._read(self.metadata_file)
        out_dir.mkdir(parents=True, exist_ok=True)
        written = []
        for target in paths:
            write_atomically(target, contents[target.name], force=force)
            written.append(target)
        return written


class MissingStage(TTInspectError):
    """A stage the entry does not have (a Triton cache entry can lack some): facts from it are unknown."""

    def __init__(self, stage: str, directory: Path, why: str | None = None):
        self.stage = stage
        # what a fact read from the stage says: the language's lack in short, else the entry's
        self.short = why.partition(":")[0] if why else f"the cache entry {directory} has no {stage}"
        if why:  # a stage the kernel's language has none of: the request is what is wrong
            self.exit_code = EXIT_USAGE
        super().__init__(why or self.short)
