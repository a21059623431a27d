"""Nothing foreign is read: a spec or template file linked from outside its folder (by a symbolic
link, or a hard link in a user's folder) is refused, and a file that fails to parse is never
quoted beyond its own located token, so a secret read by mistake is never printed.

The secrets are planted by each test; every check asserts both the refusal and that the secret's
text appears nowhere in what perfdrill printed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from perfdrill.engine import yamlio
from perfdrill.engine.errors import SpecError
from perfdrill.engine.yamlio import check_inside
from tests.helpers import MATMUL, write_template

SECRET = "GITHUB_TOKEN=ghp_not_a_real_token_0123456789"
SHADOW = "root:$6$salt$hashhashhash:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n"


def secret_file(tmp_path: Path, text: str = SECRET + "\n") -> Path:
    path = tmp_path / "outside" / ".env"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    return path


def spec_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "specs"
    folder.mkdir()
    return folder


def test_a_spec_file_linked_from_outside_is_refused_unread(run_cli, tmp_path: Path) -> None:
    folder = spec_folder(tmp_path)
    (folder / "team.yaml").symlink_to(secret_file(tmp_path))
    code, out, err = run_cli("specs", "--specs", str(folder))
    assert code == 2
    assert err == (
        f"perfdrill: error: {folder}/team.yaml: is a link to a file outside its folder; "
        "perfdrill reads only files inside it\n"
    )
    assert "ghp_" not in out + err


def test_a_link_inside_the_spec_folder_is_still_read(run_cli, tmp_path: Path) -> None:
    folder = spec_folder(tmp_path)
    (folder / "real.yml").write_text(SECRET + "\n", encoding="utf-8")  # not *.yaml: read only via the link
    (folder / "team.yaml").symlink_to("real.yml")
    code, _, err = run_cli("specs", "--specs", str(folder))
    assert code == 2 and "team.yaml: must be a mapping, not text" in err


def test_a_hard_link_in_a_spec_folder_is_refused(run_cli, tmp_path: Path) -> None:
    folder = spec_folder(tmp_path)
    os.link(secret_file(tmp_path), folder / "team.yaml")
    code, out, err = run_cli("specs", "--specs", str(folder))
    assert code == 2 and f"{folder}/team.yaml: has 2 hard links" in err
    assert "ghp_" not in out + err


@pytest.mark.parametrize("name", ["question.yaml", "prompt.md.j2"])
def test_a_hard_linked_template_file_is_left_out(run_cli, tmp_path: Path, name: str) -> None:
    """A hard link to an outside file would be rendered into the prompt: the template is left out."""
    folder = write_template(tmp_path / "q", "matmul/h100-4096", MATMUL)
    outside = tmp_path / "outside"
    outside.mkdir()
    os.replace(folder / name, outside / name)
    os.link(outside / name, folder / name)
    code, out, err = run_cli("list", "--questions", str(tmp_path / "q"))
    assert code == 0
    assert f"q/matmul/h100-4096/{name}: has 2 hard links" in err and "(left out)" in err
    assert "matmul/h100-4096" not in out


def test_shipped_folders_may_be_hard_linked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Installers (uv, pip's cache) may hard-link a wheel's files; those are perfdrill's own."""
    (tmp_path / "a.yaml").write_text("chips: {}\n", encoding="utf-8")
    os.link(tmp_path / "a.yaml", tmp_path / "b.yaml")
    with pytest.raises(SpecError, match="has 2 hard links"):
        check_inside(tmp_path / "b.yaml", tmp_path, SpecError, display="b.yaml")
    monkeypatch.setattr(yamlio, "_shipped_folders", lambda: (tmp_path.resolve(),))
    check_inside(tmp_path / "b.yaml", tmp_path, SpecError, display="b.yaml")  # no error


@pytest.mark.parametrize("content", [SECRET + "\n", "42\n"])
def test_a_file_that_is_one_value_is_not_quoted(run_cli, tmp_path: Path, content: str) -> None:
    """A copy of ~/.env parses as one YAML text: the error says its kind, not its text."""
    folder = spec_folder(tmp_path)
    (folder / "team.yaml").write_text(content, encoding="utf-8")
    code, _, err = run_cli("specs", "--specs", str(folder))
    assert code == 2
    assert err.startswith(f"perfdrill: error: {folder}/team.yaml: must be a mapping, not ")
    assert "ghp_" not in err and "$6$" not in err and not err.endswith("42\n")


def test_a_key_that_is_no_field_name_is_not_quoted(run_cli, tmp_path: Path) -> None:
    """/etc/shadow parses as a mapping whose keys are whole lines (`root:$6$…:7::` then `:`)."""
    folder = spec_folder(tmp_path)
    (folder / "team.yaml").write_text(SHADOW, encoding="utf-8")
    code, _, err = run_cli("specs", "--specs", str(folder))
    assert code == 2
    assert err == (
        f"perfdrill: error: {folder}/team.yaml:1: a key here is not a field name; allowed: chips, models\n"
    )
    (folder / "team.yaml").write_text("chip: {}\n", encoding="utf-8")  # a misspelt key is quoted
    code, _, err = run_cli("specs", "--specs", str(folder))
    assert err.endswith("team.yaml:1: chip: unknown field; allowed: chips, models\n")


def test_a_block_of_text_is_quoted_by_its_first_line_only(run_cli, tmp_path: Path) -> None:
    folder = spec_folder(tmp_path)
    (folder / "team.yaml").write_text(f"chips: |\n  first line\n  {SECRET}\n", encoding="utf-8")
    code, _, err = run_cli("specs", "--specs", str(folder))
    assert code == 2 and "team.yaml:1: chips: must be a mapping or empty, not 'first line...'" in err
    assert "ghp_" not in err


def test_a_wrong_value_is_quoted_by_at_most_its_first_40_characters(run_cli, tmp_path: Path) -> None:
    """A value outside a fixed set is the located token, and even it is cut short: 40 characters."""
    long_line = SECRET + "_and_more_" * 20
    write_template(
        tmp_path / "q", "matmul/h100-4096", MATMUL.replace("difficulty: easy", f"difficulty: {long_line}")
    )
    code, _, err = run_cli("list", "--questions", str(tmp_path / "q"))
    assert code == 0
    assert "difficulty: unknown difficulty 'GITHUB_TOKEN=ghp_not_a_real_token_01...; allowed: easy" in err
    assert "_and_more_" not in err
