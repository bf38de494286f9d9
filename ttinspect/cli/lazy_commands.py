"""The group's commands by name, each command's module imported the first time the command is looked up.

A command pays for its own module only: `ttinspect dump` never imports the modules of `mcp`, `snapshot` or
`capture`, and `ttinspect --help` imports none (it lists the one-liners of cli/help_text.py). A module
imported in any other way still registers its commands here, as click's own table would have them.
"""

from __future__ import annotations

import importlib
from collections.abc import MutableMapping
from typing import Callable, Iterator, Mapping

import click


class LazyCommands(MutableMapping[str, click.Command]):
    """`modules`: each command's name -> the module that registers it (`@cli.command`) when imported;
    `prepare(name, command)`: what every command gets once it exists (its help, shared options)."""

    def __init__(self, modules: Mapping[str, str], prepare: Callable[[str, click.Command], None]):
        self._modules = dict(modules)
        self._prepare = prepare
        self._loaded: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        if name not in self._loaded and name in self._modules:
            importlib.import_module(self._modules[name])  # its `@cli.command`s come back through __setitem__
        return self._loaded[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._prepare(name, command)
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self._modules.pop(name, None)
        self._loaded.pop(name, None)

    def __contains__(self, name: object) -> bool:  # told from the table: nothing imported to answer
        return name in self._modules or name in self._loaded

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys([*self._modules, *self._loaded]))

    def __len__(self) -> int:
        return len(self._modules.keys() | self._loaded.keys())

    def loaded(self) -> list[str]:
        """The commands whose modules have been imported so far."""
        return list(self._loaded)
