"""The compiled kernel as files: every stage's text or bytes and the metadata, read from a cache entry.
SASS is derived from the cubin the first time it is asked for, then kept beside the other stages."""

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

    @cached_property
    def metadata(self) -> dict[str, Any]:
        return json.loads((self.directory / "metadata.json").read_text())

    def path(self, stage: str) -> Path:
        return self.directory / f"kernel.{get_stage(stage).name}"

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
            raise TTInspectError(f"{stage} is missing from the cache entry {self.directory}")
        if stage == "sass":
            text = tools.disassemble(self.data("cubin"))
            cache.add_file(self.directory, self.path(stage).name, text.encode())

    def extra(self, name: str) -> str | None:
        """A side file of the entry that is not a stage (e.g. "ptxas_log"), or None."""
        path = self.directory / f"kernel.{name}"
        return path.read_text() if path.is_file() else None

    def resource_usage(self) -> str:
        """cuobjdump's resource table for the cubin, derived once and kept like the SASS."""
        path = self.directory / "kernel.resources"
        if not path.is_file():
            cache.add_file(self.directory, path.name, tools.resource_usage(self.data("cubin")).encode())
        return path.read_text()

    def export(self, out_dir: Path, *, force: bool = False) -> list[Path]:
        """Write every stage (SASS included) and metadata.json into out_dir. Refuses to overwrite a
        file that is already there unless `force`: nothing the user had is lost."""
        names = [self.path(stage).name for stage in STAGES] + ["metadata.json"]
        clashes = [n for n in names if (out_dir / n).exists()]
        if clashes and not force:
            raise UsageError(f"{out_dir} already has {', '.join(clashes)}; choose another --out or pass --force")
        for stage in STAGES:  # derive first, so a failure leaves out_dir untouched
            self.data(stage)
        out_dir.mkdir(parents=True, exist_ok=True)
        written = []
        for name in names:
            target = out_dir / name
            shutil.copyfile(self.directory / name, target)
            written.append(target)
        return written
