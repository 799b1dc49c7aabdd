"""The command-line options of ``python -m agents.play --web``, added to the play command's parser.

This module imports nothing from :mod:`agents.play.terminal`, so the play command can import it at its top.
"""

from __future__ import annotations

import argparse
import ipaddress
import socket

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
    """Whether the server, told to listen on ``host``, listens on this machine only.

    ``host`` is resolved as the server's bind resolves it (IPv6 when it holds a colon, IPv4 otherwise), so a
    shorthand or a name counts by the address it leads to: ``127.1``, ``2130706433``, ``localhost.`` and
    ``::ffff:127.0.0.1`` are loopback, ``0.0.0.0`` and a name that does not resolve are not. The server itself
    decides from the address it is bound to (:func:`address_is_loopback`); this is for before it starts.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        found = socket.getaddrinfo(host, None, family, socket.SOCK_STREAM)
    except (OSError, UnicodeError, ValueError):  # no such name, or one the resolver refuses
        return False
    return bool(found) and all(address_is_loopback(str(info[4][0])) for info in found)


def address_is_loopback(address: str) -> bool:
    """Whether the numeric ``address`` is a loopback address (127.0.0.0/8 or ::1).

    An IPv4-mapped IPv6 address (``::ffff:127.0.0.1``) counts by its IPv4 address: that is where its packets go.
    Anything that is not a numeric address is not loopback.
    """
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 scope (fe80::1%eth0) is no part of it
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped.is_loopback
    return ip.is_loopback


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
