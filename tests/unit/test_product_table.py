"""run/products/table.py: every product description complete and consistent, and every
list of products (settings, both catalogs, the reports' product lines) exactly the table's."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_skill_lens.run.catalog import BUILTIN_RUNNERS, EVERY_FEATURE
from pytest_skill_lens.run.products.description import PROMPT_PLACEHOLDER, Preset
from pytest_skill_lens.run.products.entries import product_names
from pytest_skill_lens.run.products.table import BY_NAME, NAMES, PRODUCTS
from pytest_skill_lens.score.judges.catalog import BUILTIN_JUDGES
from pytest_skill_lens.settings import Settings, load_settings
from pytest_skill_lens.suite.errors import ConfigError
from pytest_skill_lens.suite.paths import path_problem
from pytest_skill_lens.suite.product_config import CONFIG_PATHS

FRAMEWORKS = ("fake", "pydantic-ai", "langchain")


def test_the_names_are_unique_and_in_the_order_messages_list_them() -> None:
    assert len(set(NAMES)) == len(PRODUCTS)
    assert NAMES == ("copilot", "claude-code", "codex", "gemini-cli", "opencode", "cli")


@pytest.mark.parametrize("product", PRODUCTS, ids=NAMES)
def test_every_description_is_complete(product: Preset) -> None:
    assert product.reader is not None and callable(product.reader())
    assert product.install and product.auth_hint
    assert path_problem(product.skills_dir) is None and not Path(product.skills_dir).is_absolute()
    assert "{task}" in product.invoke
    if product.names_command:  # the table names the command; nothing of its own to start
        assert product.executable == "" and product.flags == ()
        return
    assert product.executable and product.executable == product.executable.strip()
    assert sum(PROMPT_PLACEHOLDER in arg for arg in product.prompt_args) == 1
    assert product.sign_in_variables, "a product signs in from the environment under isolation"
    assert product.config_paths, "the files it reads as configuration are listed"


@pytest.mark.parametrize("product", PRODUCTS, ids=NAMES)
def test_the_forms_that_name_a_file_name_it_once(product: Preset) -> None:
    flag = product.bridge.flag if product.bridge is not None else None
    if product.bridge is not None and flag is None:
        assert product.launch is not None, "a product with no config flag takes it at launch"
    elif product.bridge is not None and flag is not None:
        assert flag.count("{path}") == 1
        assert str(product.bridge.argument(Path("/x/mcp.json"))).endswith("/x/mcp.json")
        assert "type" in product.bridge.server
    if product.bridge is not None:
        assert product.bridge.prefix
        assert product.traced, "mock tools are read back from a trace of tool calls"
    if product.left_file is not None:
        assert product.left_file.max_bytes > 0
        flag = product.left_file.flag
        assert flag is None or flag.count("{path}") == 1


@pytest.mark.parametrize("product", PRODUCTS, ids=NAMES)
def test_a_product_that_takes_tools_is_judged_without_them(product: Preset) -> None:
    if product.names_command:
        assert product.judge_tool_flag is None and product.judge_restriction == ()
        return
    flag = product.judge_tool_flag
    assert flag is not None and product.judge_restriction
    # The flag a table may not carry is the restriction's own, or (Codex) its inverse.
    inverse = {"--enable": "--disable"}
    assert product.judge_restriction[0].split("=")[0] == inverse.get(flag, flag)
    # Priced in dollars, or a reason for the runner and the judge alike.
    assert (product.never_priced is None) == (product.judge_never_priced is None)


def test_the_settings_take_a_table_for_exactly_the_products(tmp_path: Path) -> None:
    config = tmp_path / "skill-lens.toml"
    config.write_text("".join(f"[runners.{name}]\n" for name in NAMES), encoding="utf-8")
    assert tuple(load_settings(config, products=NAMES).runners) == NAMES
    config.write_text("[runners.kodex]\n", encoding="utf-8")
    with pytest.raises(ConfigError) as refused:
        load_settings(config, products=NAMES)
    listed = "'copilot', 'claude-code', 'codex', 'gemini-cli', 'opencode' or 'cli'"
    assert (
        f"[runners.kodex] is not a table this file takes; the tables under [runners] are {listed}"
        in refused.value.message
    )


def test_the_settings_read_the_product_names_from_the_table_not_a_list_of_their_own(
    tmp_path: Path,
) -> None:
    # A row added to the table is a [runners.<name>] table the file takes, nothing more.
    config = tmp_path / "skill-lens.toml"
    config.write_text("[runners.newcomer]\nargs = ['-x']\n", encoding="utf-8")
    settings = load_settings(config, products=(*NAMES, "newcomer"))
    assert settings.runners["newcomer"].args == ["-x"]
    with pytest.raises(ConfigError, match="the tables under \\[runners\\] are 'only'"):
        load_settings(config, products=("only",))


def test_both_catalogs_list_exactly_the_products_after_the_frameworks() -> None:
    assert tuple(d.name for d in BUILTIN_RUNNERS) == (*FRAMEWORKS, *NAMES)
    assert tuple(d.name for d in BUILTIN_JUDGES) == (*FRAMEWORKS, *NAMES)


@pytest.mark.parametrize("product", PRODUCTS, ids=NAMES)
def test_the_runner_catalog_reads_its_entry_from_the_description(product: Preset) -> None:
    (runner,) = (d for d in BUILTIN_RUNNERS if d.name == product.name)
    (judge,) = (d for d in BUILTIN_JUDGES if d.name == product.name)
    assert (runner.check_tools is not None) == (product.bridge is not None)
    assert (runner.serves == EVERY_FEATURE) == product.traced
    assert runner.never_priced == product.never_priced
    assert judge.never_priced == product.judge_never_priced
    assert runner.delivers_into is not None
    assert runner.delivers_into(Settings()) == product.skills_dir


def test_the_configuration_table_lists_exactly_the_products_that_read_one() -> None:
    # suite/ cannot import the table: its entries are keyed by the table's names, no other.
    assert {name for name, product in BY_NAME.items() if product.config_paths} == set(CONFIG_PATHS)


def test_the_reports_name_exactly_the_tables_products() -> None:
    assert product_names([*FRAMEWORKS, *NAMES], "fake") == list(NAMES)
    assert product_names(["fake"], "not-a-product") == []
