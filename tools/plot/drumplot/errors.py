"""The one error type of drumplot: bad input, told as `file:line: what is wrong; the fix`."""

from __future__ import annotations


class InputError(Exception):
    """A file or setting that drumplot cannot use.

    `str()` reads like the Swift side's errors (docs/architecture.md, Sensor log CSV): `log.csv:1234: what is wrong`,
    followed by `; ` and the fix where there is one. `line` is 1-based, or None when the problem
    is the file as a whole (or a command-line setting, when `path` is the option's name).
    """

    def __init__(self, path: str, line: int | None, message: str, fix: str | None = None):
        self.path = path
        self.line = line
        self.message = message
        self.fix = fix
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        text = f"{where}: {self.message}"
        return f"{text}; {self.fix}" if self.fix else text
