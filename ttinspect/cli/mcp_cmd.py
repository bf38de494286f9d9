"""`ttinspect mcp`: the Model Context Protocol server over stdio, whose tools are ttinspect's commands
(logic in ttinspect/mcpserver/; docs/agents.md). Needs the optional extra: pip install 'ttinspect[mcp]'."""

from __future__ import annotations

import click

from ttinspect.cli.app import cli
from ttinspect.errors import UsageError

MCP_HELP = """\b
Examples:
  ttinspect mcp
  ttinspect mcp --call-timeout 600 --root .
  claude mcp add ttinspect -- ttinspect mcp

\b
Register it with a client (docs/agents.md), e.g. in a Claude Desktop / Claude Code style config:
  {"mcpServers": {"ttinspect": {"command": "ttinspect", "args": ["mcp"]}}}

\b
Tools: list_kernels, list_capture, report, dump, export_stages, diff, check, sweep.
Stdout carries only the protocol; every call runs in a process of its own, under the client's roots."""


@cli.command("mcp", epilog=MCP_HELP)
@click.option("--call-timeout", type=click.FloatRange(min=1), default=300.0, show_default=True, metavar="SECONDS",
              help="A tool call that runs longer is stopped (with every process it started) and answered with an "
                   "error.")
@click.option("--root", "roots", multiple=True, metavar="DIR",
              type=click.Path(exists=True, file_okay=False, resolve_path=True),
              help="The folder(s) the server may read and write when the client names no MCP roots (repeatable; "
                   "default: the working directory).")
@click.option("--parallel", type=click.IntRange(1, 64), default=2, show_default=True, metavar="N",
              help="Tool calls run at once; more wait their turn.")
def mcp_command(call_timeout: float, roots: tuple[str, ...], parallel: int) -> None:
    """Serve ttinspect's commands to an agent as MCP tools over stdio: list, report, dump, diff, check and sweep
    kernels, with typed JSON results and errors carrying the CLI's line and exit code."""
    try:
        # the MCP SDK (the optional extra): imported only by this command
        from ttinspect.mcpserver.server import Settings, serve
    except ImportError as error:
        if (error.name or "").split(".")[0] not in ("mcp", "mcp_types", "anyio", "jsonschema"):
            raise
        raise UsageError("`ttinspect mcp` needs the MCP Python SDK: pip install 'ttinspect[mcp]'") from None
    serve(Settings(call_timeout=call_timeout, roots=list(roots), parallel=parallel))
