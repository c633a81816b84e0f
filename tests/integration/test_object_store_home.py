"""A home on object storage: ``s3://bucket/home`` against a local S3 server (moto) on 127.0.0.1."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from importlib import resources

import pytest

from tests.processes import stop_process

DEMO = resources.files("affidavit.flows").joinpath("demo")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def s3_server(tmp_path_factory):  # noqa: ANN201
    """Run moto's S3 server in its own process on a free local port, with a bucket ``news``.

    Its own process, not a thread of the test's: the server then answers from the other core
    instead of taking turns with the flows for this interpreter's lock (the S3 home makes
    thousands of requests). One server serves the module; each test uses its own home or bucket.
    """
    pytest.importorskip("s3fs")
    pytest.importorskip("moto.server")
    import boto3
    import httpx

    port = _free_port()
    log = tmp_path_factory.mktemp("moto") / "moto.log"
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1",
                                 "-p", str(port)], stdout=out, stderr=subprocess.STDOUT)
    endpoint = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, log.read_text()
            try:
                if httpx.get(f"{endpoint}/moto-api/", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "moto's S3 server did not start"
            time.sleep(0.05)
        boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                     aws_access_key_id="test",
                     aws_secret_access_key="test").create_bucket(Bucket="news")
        yield endpoint
    finally:
        stop_process(proc, 30)


@pytest.fixture
def s3_home(s3_server, tmp_path, monkeypatch):  # noqa: ANN201
    """Point the S3 client at the local server; yield the home URL."""
    for key, value in {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
                       "AWS_DEFAULT_REGION": "us-east-1", "AWS_ENDPOINT_URL": s3_server,
                       "AFFIDAVIT_WORK_DIR": str(tmp_path / "work")}.items():
        monkeypatch.setenv(key, value)
    return "s3://news/affidavit"


def test_backfill_and_run_on_an_s3_home_equal_a_local_home(prefect_harness, s3_home, tmp_path):
    import s3fs

    from affidavit.flows.backfill import backfill_archive
    from affidavit.flows.factcheck import factcheck
    from affidavit.warehouse.home import resolve_home
    from affidavit.warehouse.store import Warehouse

    docs, claims = str(DEMO.joinpath("documents.jsonl")), str(DEMO.joinpath("claims.jsonl"))
    out = {}
    for home in (s3_home, str(tmp_path / "local")):
        backfill_archive([docs], home=home)
        res = factcheck(claims_path=claims, home=home, workers=1)
        wh = Warehouse(resolve_home(home))
        out[home] = {
            "verdicts": wh.query("select claim_id, status, supporting_origins, refuting_origins "
                                 "from verdicts_latest order by claim_id").rows(),
            "origins": wh.read("origins").sort("doc_id").rows(),
            "signatures": wh.count("signatures"),
            "passages": wh.scan("passage_grams").select("doc_id").collect().height,
        }
        assert len(res.verdicts) == 6
    remote, local = out.values()
    assert remote == local
    assert remote["signatures"] == 25
    # the tables are objects in the bucket; nothing of them is under the local working folder
    fs = s3fs.S3FileSystem()
    assert fs.glob("news/affidavit/tables/verdicts/part-*.parquet")
    assert fs.cat_file("news/affidavit/tables/origins/CURRENT").startswith(b"gen-")
    paths = resolve_home(s3_home)
    assert paths.root.is_relative_to(tmp_path / "work")
    assert not list(paths.tables.glob("*/part-*.parquet"))
    # the read-only commands read the bucket (DuckDB through the registered fsspec file system)
    from typer.testing import CliRunner

    from affidavit.flows.cli import app

    shown = CliRunner().invoke(app, ["verdicts", "--home", s3_home, "--json"])
    assert shown.exit_code == 0, shown.output
    assert sorted(shown.stdout.count(f'"{c}"') for c, *_ in remote["verdicts"]) == [1] * 6



@pytest.fixture
def fresh_s3fs(s3_home, monkeypatch):  # noqa: ANN201
    """The S3 home, with no S3 client cached from another test (credentials, endpoint), and a
    Prefect API on a closed port: a command that got as far as Prefect would fail on that."""
    import s3fs

    s3fs.S3FileSystem.clear_instance_cache()
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    yield s3_home
    s3fs.S3FileSystem.clear_instance_cache()


def _one_line_error(args: list[str]) -> str:
    from typer.testing import CliRunner

    from affidavit.flows.cli import app

    res = CliRunner().invoke(app, args)
    assert res.exit_code == 1, res.output
    lines = [ln for ln in res.output.strip().splitlines() if "starting" not in ln]
    assert len(lines) == 1, res.output  # the error, after at most the "starting" line
    assert lines[0].startswith("error: ")
    assert "Failed to reach API" not in lines[0]
    return lines[0]


def test_an_s3_home_without_credentials_is_one_line_naming_the_home_and_what_to_set(
        fresh_s3fs, tmp_path, monkeypatch):
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    docs = str(DEMO.joinpath("documents.jsonl"))
    for args in (["verdicts"], ["backfill", docs]):
        line = _one_line_error([*args, "--home", fresh_s3fs])
        assert f"cannot use the home {fresh_s3fs}: no S3 credentials found" in line
        assert "AWS_ACCESS_KEY_ID" in line
        assert "NoCredentialsError" not in line
    assert not (tmp_path / "work").exists()  # nothing local made for a home that failed


def test_an_s3_home_in_a_missing_bucket_names_the_bucket(fresh_s3fs, tmp_path):
    docs = str(DEMO.joinpath("documents.jsonl"))
    for args in (["verdicts"], ["backfill", docs]):
        line = _one_line_error([*args, "--home", "s3://no-such-bucket/affidavit"])
        assert "cannot use the home s3://no-such-bucket/affidavit" in line
        assert "bucket 'no-such-bucket' does not exist" in line
        assert "AWS_ENDPOINT_URL" in line


def test_verdicts_on_an_s3_home_that_does_not_exist_writes_nothing(fresh_s3fs):
    import s3fs

    line = _one_line_error(["verdicts", "--home", "s3://news/nowhere"])
    assert "no affidavit home at s3://news/nowhere" in line
    assert not s3fs.S3FileSystem().exists("news/nowhere")


def test_object_store_errors_are_told_with_the_variables_to_set():
    botocore = pytest.importorskip("botocore.exceptions")
    from affidavit.warehouse.object_store import object_store_error_message

    url = "s3://news/affidavit"
    env = {"AWS_ENDPOINT_URL": "http://127.0.0.1:9"}
    down = botocore.EndpointConnectionError(endpoint_url="http://127.0.0.1:9/news/x")
    line = object_store_error_message(down, url, env)
    assert line.startswith(f"cannot use the home {url}: cannot reach the S3 endpoint "
                           "http://127.0.0.1:9")
    assert "set AWS_ENDPOINT_URL" in line
    denied = object_store_error_message(PermissionError("Access Denied"), url, env)
    assert "access denied to bucket 'news'" in denied
    assert "AWS_SECRET_ACCESS_KEY" in denied
    assert object_store_error_message(ValueError("a bug"), url, env) is None
    assert object_store_error_message(FileNotFoundError("claims.jsonl"), url, env) is None


def test_the_warehouse_tells_object_store_errors_in_one_line(fresh_s3fs):
    """Flows open the warehouse themselves (deployments, no CLI): same one line there."""
    from affidavit.warehouse.home import resolve_home
    from affidavit.warehouse.store import Warehouse, WarehouseError

    with pytest.raises(WarehouseError) as info:
        Warehouse(resolve_home("s3://no-such-bucket/affidavit"))
    line = str(info.value)
    assert "\n" not in line
    assert line.startswith("cannot use the home s3://no-such-bucket/affidavit: the bucket "
                           "'no-such-bucket' does not exist")
