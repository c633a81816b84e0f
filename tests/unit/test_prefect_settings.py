"""Prefect as users configure it, URL homes refused, read-only commands without Prefect."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from affidavit.warehouse.home import (
    configured_prefect_api,
    prefect_environment,
    resolve_home,
)

PROFILES = """active = "{active}"

[profiles.ephemeral]
PREFECT_SERVER_ALLOW_EPHEMERAL_MODE = "true"

[profiles.team]
PREFECT_API_URL = "http://prefect.internal:4200/api"
"""


def _profiles(tmp_path: Path, active: str) -> dict[str, str]:
    prefect_home = tmp_path / "user-prefect"
    prefect_home.mkdir(exist_ok=True)
    (prefect_home / "profiles.toml").write_text(PROFILES.format(active=active))
    return {"PREFECT_HOME": str(prefect_home)}


def test_api_url_in_the_environment_is_respected(tmp_path):
    env = {"PREFECT_API_URL": "http://127.0.0.1:4200/api"}
    assert configured_prefect_api(env) == "http://127.0.0.1:4200/api"
    out = prefect_environment(resolve_home(tmp_path / "h"), env)
    assert "PREFECT_HOME" not in out
    assert "PREFECT_SERVER_ALLOW_EPHEMERAL_MODE" not in out


def test_active_profile_with_an_api_keeps_the_users_prefect_home(tmp_path):
    env = _profiles(tmp_path, "team")
    assert configured_prefect_api(env) == "http://prefect.internal:4200/api"
    assert "PREFECT_HOME" not in prefect_environment(resolve_home(tmp_path / "h"), env)
    # PREFECT_PROFILE selects another profile, as in Prefect
    assert configured_prefect_api({**env, "PREFECT_PROFILE": "ephemeral"}) is None


def test_no_api_configured_means_ephemeral_under_the_home(tmp_path):
    env = _profiles(tmp_path, "ephemeral")
    paths = resolve_home(tmp_path / "h")
    out = prefect_environment(paths, env)
    assert configured_prefect_api(env) is None
    assert out["PREFECT_HOME"] == str(paths.prefect)
    assert out["PREFECT_SERVER_ALLOW_EPHEMERAL_MODE"] == "true"
    assert configured_prefect_api({"PREFECT_HOME": str(tmp_path / "nowhere")}) is None


@pytest.mark.parametrize("home", ["gs://b/h", "file:///tmp/x", "HTTP://x/y", "s3://", "s3:///"])
def test_unsupported_url_homes_are_refused(home, tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="unsupported home"):
        resolve_home(home)
    monkeypatch.setenv("AFFIDAVIT_HOME", home)
    with pytest.raises(ValueError, match="unsupported home"):
        resolve_home()


def test_an_s3_home_keeps_its_local_files_in_the_work_dir(tmp_path):
    paths = resolve_home("S3://Bucket/home/", environ={"AFFIDAVIT_WORK_DIR": str(tmp_path)})
    assert paths.url == "s3://Bucket/home"
    assert paths.tables_url == "s3://Bucket/home/tables"
    assert paths.spec == "s3://Bucket/home"
    assert paths.root == tmp_path / "s3" / "Bucket" / "home"
    assert resolve_home(str(tmp_path)).spec == str(tmp_path)


def _cli(args: list[str], cwd: Path, env: dict[str, str] | None = None
         ) -> subprocess.CompletedProcess[str]:
    """Run the CLI in a fresh interpreter; report whether Prefect was imported."""
    code = ("import sys\nfrom affidavit.flows.cli import main\n"
            "try:\n    main()\nexcept SystemExit as e:\n    code = e.code\nelse:\n    code = 0\n"
            "print('PREFECT_IMPORTED' if 'prefect' in sys.modules else 'NO_PREFECT')\n"
            "sys.exit(code)\n")
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_cli_refuses_an_unsupported_home_url_in_one_line_and_writes_nothing(tmp_path):
    res = _cli(["verdicts"], tmp_path, {"AFFIDAVIT_HOME": "gs://bucket/home"})
    assert res.returncode == 2
    assert "unsupported home 'gs://bucket/home'" in res.stderr
    assert not (tmp_path / "gs:").exists()


def test_read_only_commands_and_bad_arguments_import_no_prefect(tmp_path):
    from affidavit.warehouse.store import Warehouse

    home = str(tmp_path / "h")
    Warehouse(resolve_home(home))  # an empty home
    res = _cli(["verdicts", "--home", home], tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip().endswith("NO_PREFECT")
    res = _cli(["recall", "bridge", "--home", home], tmp_path)
    assert res.returncode == 0, res.stderr
    assert "no unexpired finding" in res.stdout
    assert res.stdout.strip().endswith("NO_PREFECT")
    res = _cli(["run", "--claims", "x.jsonl", "--mode", "bogus", "--home", home], tmp_path)
    assert res.returncode == 2
    assert "unknown mode" in res.stderr
    assert res.stdout.strip().endswith("NO_PREFECT")


@pytest.mark.parametrize("command", [["verdicts"], ["recall", "bridge"],
                                     ["export", "claimreview"]])
def test_read_only_commands_refuse_a_home_that_does_not_exist_and_create_nothing(tmp_path,
                                                                                 command):
    home = tmp_path / "nowhere"
    res = _cli([*command, "--home", str(home)], tmp_path)
    assert res.returncode == 1
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1
    assert f"no affidavit home at {home}" in lines[0]
    assert res.stdout.strip().endswith("NO_PREFECT")
    assert not home.exists()


def test_commands_that_do_not_use_the_home_create_none(tmp_path):
    page = tmp_path / "page.html"
    page.write_text("<html><head><title>T</title></head><body><p>Text.</p></body></html>")
    res = _cli(["source", str(page), "--json"], tmp_path)
    assert res.returncode == 0, res.stderr
    assert not (tmp_path / ".affidavit").exists()


def test_parse_source_reports_unreadable_sources_like_the_driver(tmp_path):
    from affidavit.flows.fanout import parse_source
    from affidavit.tasks.ingest_common import ColumnMapping

    good = tmp_path / "docs.jsonl"
    good.write_text('{"id": "1", "url": "https://a.example/x", "text": "Some text here."}\n')
    batches, error = parse_source(str(good), ColumnMapping(), None)
    assert error is None
    assert sum(b.documents.num_rows for b in batches) == 1
    assert parse_source(str(tmp_path / "missing.jsonl"), ColumnMapping(), None) == (
        [], "no such file")
    assert parse_source(str(tmp_path), ColumnMapping(), None) == (
        [], "is a directory, not a file")


@pytest.mark.parametrize("command", [["verdicts"], ["recall", "bridge"],
                                     ["export", "claimreview"]])
def test_read_only_commands_write_nothing_in_the_home_and_start_no_prefect(tmp_path, command):
    """What lets them read a home on a read-only disk: no lock, no write check, no Prefect."""
    from affidavit.warehouse.store import Warehouse

    home = tmp_path / "h"
    Warehouse(resolve_home(str(home)))  # an empty home
    before = sorted((str(p), p.stat().st_mtime_ns) for p in home.rglob("*"))
    res = _cli([*command, "--home", str(home)], tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip().endswith("NO_PREFECT")
    assert sorted((str(p), p.stat().st_mtime_ns) for p in home.rglob("*")) == before


def test_home_may_come_before_the_command(tmp_path):
    from affidavit.warehouse.store import Warehouse

    home = tmp_path / "h"
    Warehouse(resolve_home(str(home)))  # an empty home
    res = _cli(["--home", str(home), "verdicts"], tmp_path)
    assert res.returncode == 0, res.stderr
    assert "all claims:" in res.stdout
    # the command's own --home wins: a home that does not exist is refused by name
    res = _cli(["--home", str(home), "verdicts", "--home", str(tmp_path / "nowhere")], tmp_path)
    assert res.returncode == 1
    assert f"no affidavit home at {tmp_path / 'nowhere'}" in res.stderr
    res = _cli(["--home", "", "verdicts"], tmp_path)
    assert res.returncode == 2
    assert res.stderr.strip().splitlines() == [
        "error: --home is empty: give a folder (or leave it out for $AFFIDAVIT_HOME or "
        "./.affidavit)"]
