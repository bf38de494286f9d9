"""The compiled kernel as files: every stage's text or bytes and the metadata, read from a cache entry —
ttinspect's own (`kernel.<stage>`, `metadata.json`) or one of Triton's (`<name>.<stage>`, `<name>.json`).
SASS is derived from the cubin the first time it is asked for, then kept: beside the other stages in
ttinspect's cache, in a `derived` directory of ttinspect's cache for an entry of Triton's (read-only)."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from . import cache, tools
from .errors import TTInspectError, UsageError
from .stages import STAGES, get_stage


@dataclass(frozen=True)
class Artifacts:
    directory: Path
    stem: str = "kernel"  # files are <stem>.<stage>
    metadata_file: str = "metadata.json"
    derived: Path | None = None  # where derived files go; None: the entry itself

    @cached_property
    def metadata(self) -> dict[str, Any]:
        return json.loads((self.directory / self.metadata_file).read_text())

    def _derived_dir(self) -> Path:
        return self.derived or self.directory

    def path(self, stage: str) -> Path:
        spec = get_stage(stage)
        if spec.derived_from is not None and self.derived is not None:
            return self.derived / f"kernel.{spec.name}"
        return self.directory / f"{self.stem}.{spec.name}"

    def has(self, stage: str) -> bool:
        return self.path(stage).is_file()

    def data(self, stage: str) -> bytes:
        path = self.path(stage)
        if not path.is_file():
            self._derive(stage)
        return path.read_bytes()

    def text(self, stage: str) -> str:
        if get_stage(stage).binary:
            raise UsageError(f"{stage} is binary; ask for sass to read it")
        return self.data(stage).decode()

    def _derive(self, stage: str) -> None:
        spec = STAGES[stage]
        if spec.derived_from is None:
            raise MissingStage(stage, self.directory)
        if stage == "sass":
            text = tools.disassemble(self.data("cubin"))
            self._keep(self.path(stage).name, text.encode())

    def _keep(self, name: str, data: bytes) -> None:
        folder = self._derived_dir()
        folder.mkdir(parents=True, exist_ok=True)
        cache.add_file(folder, name, data)

    def extra(self, name: str) -> str | None:
        """A side file of the entry that is not a stage (e.g. "ptxas_log"), or None."""
        path = self.directory / f"{self.stem}.{name}"
        return path.read_text() if path.is_file() else None

    def resource_usage(self) -> str:
        """cuobjdump's resource table for the cubin, derived once and kept like the SASS."""
        path = self._derived_dir() / "kernel.resources"
        if not path.is_file():
            self._keep(path.name, tools.resource_usage(self.data("cubin")).encode())
        return path.read_text()

    def export(self, out_dir: Path, *, force: bool = False) -> list[Path]:
        """Write every stage (SASS included) and metadata.json into out_dir. Refuses to overwrite a
        file that is already there unless `force`: nothing the user had is lost."""
        stages = [stage for stage in STAGES if self.has(stage) or STAGES[stage].derived_from is not None]
        if STAGES["sass"].derived_from not in stages:
            stages.remove("sass")  # no cubin to derive it from
        sources = {f"kernel.{stage}": self.path(stage) for stage in stages}
        sources["metadata.json"] = self.directory / self.metadata_file
        clashes = [n for n in sources if (out_dir / n).exists()]
        if clashes and not force:
            raise UsageError(f"{out_dir} already has {', '.join(clashes)}; choose another --out or pass --force")
        for stage in stages:  # derive first, so a failure leaves out_dir untouched
            self.data(stage)
        out_dir.mkdir(parents=True, exist_ok=True)
        written = []
        for name, source in sources.items():
            target = out_dir / name
            shutil.copyfile(source, target)
            written.append(target)
        return written


class MissingStage(TTInspectError):
    """A stage the entry does not have (a Triton cache entry can lack some): facts from it are unknown."""

    def __init__(self, stage: str, directory: Path):
        self.stage = stage
        super().__init__(f"the cache entry {directory} has no {stage}")
