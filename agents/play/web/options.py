"""The command-line options of ``python -m agents.play --web``, added to the play command's parser.

This module imports nothing from :mod:`agents.play.terminal`, so the play command can import it at its top.
"""

from __future__ import annotations

import argparse
import ipaddress

from gubs_env.support.cli import non_negative_int

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
MAX_PORT = 65535


def port_number(text: str) -> int:
    """A TCP port, 0 to 65535 (0: any free port, printed when the server starts)."""
    value = non_negative_int(text)
    if value > MAX_PORT:
        raise argparse.ArgumentTypeError(f"must be a port from 0 to {MAX_PORT}, not {value}")
    return value


def host_name(text: str) -> str:
    """A host name or IP address to listen on: letters, digits, dots, hyphens and colons only."""
    allowed = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:")
    if not text or len(text) > 253 or not set(text) <= allowed:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a host name or IP address")
    return text


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (127.0.0.0/8, ::1 or ``localhost``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def add_web_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--web``, ``--port`` and ``--host`` to the play command's ``parser``."""
    group = parser.add_argument_group("playing in the browser")
    group.add_argument("--web", action="store_true", help="play in the browser: serve the game on a local page")
    group.add_argument(
        "--port", type=port_number, help=f"with --web: the port to listen on (default {DEFAULT_PORT}; 0: any free one)"
    )
    group.add_argument(
        "--host",
        type=host_name,
        help=f"with --web: the address to listen on (default {DEFAULT_HOST}, this machine only); "
        "any other address lets other machines play your game",
    )


def check_web_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse combinations that make no sense (a parser error, exit status 2)."""
    if not args.web and (args.port is not None or args.host is not None):
        parser.error("--port and --host apply only with --web")
    if args.web and args.watch:
        parser.error("--web and --watch cannot be combined: --web seats you at the table")
