"""The project's progress bars: a live bar on a terminal, plain timed lines in a log file or a pipe.

Every long piece of work shows its progress through :func:`progress_bar` (tqdm's bar, with its ETA). On a terminal
it redraws in place, and bars nest. Written to a file or a pipe, tqdm's redraws would leave carriage returns and
cursor-movement codes (``ESC[A``) in the log; there each bar instead prints a whole line at most every
:data:`LOG_INTERVAL` seconds, and once more when it ends.
"""

from __future__ import annotations

import re
import sys
import time
from typing import Any

from tqdm import tqdm

LOG_INTERVAL = 10.0
"""Seconds between two lines of one bar when the output is not a terminal."""
_CONTROL = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
"""Terminal control sequences (tqdm moves the cursor up with ESC[A to redraw nested bars)."""


class PlainLines:
    """A file-like target for tqdm that turns its redraws into whole lines on ``stream``, without control codes.

    tqdm redraws a bar by writing a carriage return and the bar again; this keeps the newest text of each write
    and prints it as one line when :data:`LOG_INTERVAL` has passed since the last line, or when the bar ends
    (tqdm's final refresh is followed by a newline).
    """

    def __init__(self, stream: Any = None, interval: float = LOG_INTERVAL) -> None:
        self.stream = stream
        self.interval = interval
        self.last_line = -float("inf")
        self.pending = ""
        self.shown = ""

    def write(self, text: str) -> int:
        """Take tqdm's output; print the newest bar text when it is due."""
        clean = _CONTROL.sub("", text)
        for part in clean.replace("\n", "\r\n\r").split("\r"):
            if part == "\n":
                self._flush_pending(force=True)
            elif part.strip():
                self.pending = part.strip()
        self._flush_pending(force=False)
        return len(text)

    def _flush_pending(self, force: bool) -> None:
        now = time.monotonic()
        if not self.pending or self.pending == self.shown:
            return
        if force or now - self.last_line >= self.interval:
            stream = self.stream or sys.stderr
            stream.write(self.pending + "\n")
            stream.flush()
            self.shown, self.last_line = self.pending, now

    def flush(self) -> None:
        """Nothing to do: lines are flushed as they are written."""

    def close(self) -> None:
        """Print the last text if it was never shown (a bar that ends between two due lines)."""
        self._flush_pending(force=True)


def is_terminal(stream: Any) -> bool:
    """Whether ``stream`` is an interactive terminal."""
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def progress_bar(iterable: Any = None, **options: Any) -> tqdm:
    """A tqdm bar (same arguments) that writes plain timed lines when stderr is not a terminal.

    A bar that is not kept (``leave=False``) still prints its last line in a log: a log keeps what happened.
    """
    if "file" not in options and not is_terminal(sys.stderr) and not options.get("disable"):
        target = PlainLines()
        settings = {"mininterval": 1.0, **options, "leave": True, "file": target}
        bar = tqdm(iterable, **settings)
        bar_close = bar.close

        def close() -> None:
            bar_close()
            target.close()

        bar.close = close
        return bar
    return tqdm(iterable, **options)
