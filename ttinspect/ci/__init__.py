"""What a CI run says (check, diff, snapshot --check), for SARIF, Markdown, JUnit and JSON."""

from ttinspect.ci.model import CIReport, Entry, Result, Rule, level_of

__all__ = ["CIReport", "Entry", "Result", "Rule", "level_of"]
