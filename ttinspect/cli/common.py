"""What the commands share: the reference options, JSON output, stage checks."""

from __future__ import annotations

import click

from ..errors import UsageError

STAGE_NAMES = ("ttir", "ttgir", "llir", "ptx", "sass")  # the text stages (stages.TEXT_STAGES)


def emit_json(data) -> None:
    from ..render.jsonout import dumps

    click.echo(dumps(data))


def check_stage(stage: str) -> None:
    if stage not in STAGE_NAMES:
        raise UsageError(f"unknown stage {stage!r}; valid: {', '.join(STAGE_NAMES)}")


def settings_option(f):
    return click.option("--set", "settings", multiple=True, metavar="KEY=VALUE",
                        help="Override a config or problem value (repeatable), e.g. --set num_stages=3.")(f)


def config_option(f):
    return click.option("--config", "config", default=None, metavar="best|N",
                        help="Start from the saved autotune winner (`best`, from `ttinspect autotune`) or "
                             "the variant's N-th autotune config; --set still applies on top.")(f)


def arch_option(f):
    return click.option("--arch", default=None, metavar="ARCH",
                        help="Target: sm_80, sm_86, sm_89 (default), sm_90, sm_100, sm_120, or native.")(f)


