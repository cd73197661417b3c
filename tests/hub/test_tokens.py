"""Where the sync token comes from (hub/tokens.py): a file, the environment, the
service's env file, and last the argument, which warns."""

from __future__ import annotations

from pathlib import Path

import pytest

from hub.tokens import TOKEN_ARG_WARNING, TokenFileError, find_token, read_token_file


@pytest.mark.parametrize("text", ["tok-1\n", "# mine\n\ntok-1\n", "SYNC_TOKEN=tok-1\n",
                                  "export SYNC_TOKEN='tok-1'\nCF_ACCESS_CLIENT_ID=x\n",
                                  'CF_ACCESS_CLIENT_ID=x\nSYNC_TOKEN="tok-1"\n'])
def test_a_token_file_holds_the_token_alone_or_as_an_env_file(tmp_path: Path,
                                                              text: str) -> None:
    (tmp_path / "t").write_text(text)
    assert read_token_file(tmp_path / "t") == "tok-1"


def test_the_order_file_argument_environment_env_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "file").write_text("from-file")
    env_file = tmp_path / "env"
    env_file.write_text("SYNC_TOKEN=from-env-file\n")
    monkeypatch.setenv("SYNC_TOKEN", "from-environment")
    assert find_token(str(tmp_path / "file"), "from-arg", env_file).value == "from-file"
    by_arg = find_token(None, "from-arg", env_file)
    assert (by_arg.value, by_arg.warning) == ("from-arg", TOKEN_ARG_WARNING)
    assert find_token(None, None, env_file).value == "from-environment"
    monkeypatch.delenv("SYNC_TOKEN")
    assert find_token(None, None, env_file).value == "from-env-file"
    assert find_token(None, None, tmp_path / "none").value == ""


def test_a_missing_or_empty_token_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(TokenFileError, match="cannot read"):
        find_token(str(tmp_path / "missing"), None)
    (tmp_path / "empty").write_text("# nothing\nOTHER=1\n")
    with pytest.raises(TokenFileError, match="holds no token"):
        find_token(str(tmp_path / "empty"), None)
