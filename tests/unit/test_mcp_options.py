"""``mcp-import --url``'s options: a URL shown without what may be secret, and headers
taken only from named environment variables."""

from __future__ import annotations

import pytest

from pytest_skill_lens.authoring.json_input import InputError
from pytest_skill_lens.cli.mcp_options import checked_url, display_url, headers_from_env


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://mcp.example.com/mcp", "https://mcp.example.com/mcp"),
        (
            "https://mcp.example.com:8443/v1/mcp?api_key=s3cret",
            "https://mcp.example.com:8443/v1/mcp?…",
        ),
        ("http://me:s3cret@host/mcp#frag", "http://host/mcp?…"),
        ("http://[::1]:9000/mcp", "http://[::1]:9000/mcp"),
        ("http://host:99999999/x?k=s3cret", "http://host:99999999/x"),
    ],
)
def test_a_url_is_shown_without_credentials_or_query(url: str, shown: str) -> None:
    assert display_url(url) == shown
    assert "s3cret" not in display_url(url)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mcp.example.com/mcp", "--url must be an http:// or https:// URL with a host"),
        ("http://host:notaport/mcp", "--url must be an http:// or https:// URL with a host"),
        ("https://user:s3cret@host/mcp", "the URL carries credentials"),
        ("https://token@host/mcp", "the URL carries credentials"),
    ],
)
def test_a_url_that_cannot_be_asked_is_refused_unprinted(url: str, message: str) -> None:
    with pytest.raises(InputError) as refused:
        checked_url(url)
    assert message in refused.value.message
    assert "s3cret" not in refused.value.message + refused.value.fix


def test_headers_are_read_from_the_environment_in_order() -> None:
    environ = {"MCP_AUTH": "Bearer abc", "TEAM_ID": "7\tteam"}
    headers = headers_from_env(["Authorization=MCP_AUTH", "X-Team=TEAM_ID"], environ)
    assert headers == {"Authorization": "Bearer abc", "X-Team": "7\tteam"}
    assert headers_from_env([], environ) == {}


@pytest.mark.parametrize(
    ("specs", "environ", "message"),
    [
        (["A=X", "a=Y"], {"X": "1", "Y": "2"}, "--header-env a=Y: the header a is given twice"),
        (["A=lower_case"], {"lower_case": "v"}, "the part after = must name an environment"),
        (["A=X"], {"X": "caf\u00e9"}, "or one outside ASCII, which a header cannot carry"),
        (["A=X"], {"X": "   "}, "the environment variable X is empty"),
        (["=X"], {"X": "v"}, "'' is not an HTTP header name"),
    ],
)
def test_each_header_problem_is_named(
    specs: list[str], environ: dict[str, str], message: str
) -> None:
    with pytest.raises(InputError) as refused:
        headers_from_env(specs, environ)
    assert message in refused.value.message
