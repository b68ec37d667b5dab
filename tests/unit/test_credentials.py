"""One rule says which variable names hold a credential, for pass_env and cassette markers."""

from __future__ import annotations

import pytest

from pytest_skill_lens.credentials import names_credential
from pytest_skill_lens.run.cassettes.marker import error_line
from pytest_skill_lens.run.products.table_rules import passes_credential
from pytest_skill_lens.settings import ProductTable


@pytest.mark.parametrize(
    "name",
    ["OPENAI_API_KEY", "gh_token", "CLIENT_SECRET", "DB_PASSWD", "DB_PASSWORD",
     "GOOGLE_APPLICATION_CREDENTIALS", "BASIC_AUTH", "SESSION_COOKIE"],
)  # fmt: skip
def test_a_credential_name_is_named_so(name: str) -> None:
    assert names_credential(name)


@pytest.mark.parametrize("name", ["AWS_REGION", "AWS_PROFILE", "HTTPS_PROXY", "HOME", "LANG"])
def test_a_region_a_profile_or_a_proxy_is_not(name: str) -> None:
    assert not names_credential(name)


def test_pass_env_and_the_marker_agree() -> None:
    """A variable pass_env counts as signing in is one a marker hides, and the reverse."""
    for name in ("SESSION_COOKIE", "MY_AUTH", "AWS_REGION"):
        signs_in = passes_credential(ProductTable(pass_env=[name]))
        hidden = "s3cr3t-value" not in error_line("failed: s3cr3t-value", {name: "s3cr3t-value"})
        assert signs_in == hidden == names_credential(name), name
