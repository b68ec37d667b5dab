"""``mcp-import --url``'s options, checked before anything is sent: the URL, and each header
taken from a named environment variable, so that a secret never stands on a command line
(a shell's history, a CI log, ``ps``). Nothing here ever prints a header's value.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Mapping, Sequence

from ..authoring.json_input import InputError

# RFC 9110's token: what a header name may hold.
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
# By convention an environment variable is named in capitals; a token or a "Bearer ..."
# value never is, so a value typed where the name belongs is refused, not looked up.
_VARIABLE = re.compile(r"[A-Z_][A-Z0-9_]*")
_EXAMPLE = "export MCP_AUTH='Bearer ...', then --header-env Authorization=MCP_AUTH"


def checked_url(url: str) -> str:
    """``url`` when it is an http(s) URL with a host and no credentials in it."""
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018  # parsed here: a port that is no number raises
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(
            f"--url must be an http:// or https:// URL with a host, got {display_url(url)!r}",
            "e.g. --url https://mcp.example.com/mcp",
        )
    if parts.username is not None or parts.password is not None:
        raise InputError(
            "the URL carries credentials (user:password@), which would stand on the command line",
            f"drop them from the URL and send a header from the environment: {_EXAMPLE}",
        )
    return url


def display_url(url: str) -> str:
    """``url`` as it may be shown: no credentials, and its query and fragment elided (a
    token is often passed there)."""
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port is not None else ""
    except ValueError:
        return url.split("@")[-1].split("?")[0]
    if ":" in host:
        host = f"[{host}]"
    rest = "?…" if parts.query or parts.fragment else ""
    return f"{parts.scheme}://{host}{port}{parts.path}{rest}"


def headers_from_env(specs: Sequence[str], environ: Mapping[str, str]) -> dict[str, str]:
    """The headers ``--header-env NAME=ENVVAR`` names, each value read from ``environ``."""
    headers: dict[str, str] = {}
    for spec in specs:
        name, equals, variable = spec.partition("=")
        if not equals:
            raise InputError("--header-env: give NAME=ENVVAR", _EXAMPLE)
        if not _HEADER_NAME.fullmatch(name):
            raise InputError(f"--header-env: {name!r} is not an HTTP header name", _EXAMPLE)
        if not _VARIABLE.fullmatch(variable):
            raise InputError(  # what follows the = is never shown: it may be the secret
                f"--header-env {name}=...: the part after = must name an environment "
                "variable (capitals, digits and _), never hold the header's value",
                _EXAMPLE,
            )
        given = f"--header-env {name}={variable}"
        value = environ.get(variable)
        if value is None or not value.strip():
            state = "is not set" if value is None else "is empty"
            raise InputError(
                f"{given}: the environment variable {variable} {state}",
                f"set it before the command, e.g. {_EXAMPLE}",
            )
        if any(not (" " <= char <= "~") and char != "\t" for char in value):
            raise InputError(
                f"{given}: the environment variable {variable} holds a line break or control "
                "character, or one outside ASCII, which a header cannot carry",
                "set it to the header's value alone",
            )
        if name.lower() in (known.lower() for known in headers):
            raise InputError(f"{given}: the header {name} is given twice", "give it once")
        headers[name] = value
    return headers
