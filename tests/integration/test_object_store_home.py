"""A home on object storage: ``s3://bucket/home`` against a local S3 server (moto) on 127.0.0.1."""

from __future__ import annotations

from importlib import resources

import pytest

DEMO = resources.files("affidavit.flows").joinpath("demo")


@pytest.fixture
def s3_home(tmp_path, monkeypatch):  # noqa: ANN201
    """Start moto's S3 server on a free local port, make a bucket; yield the home URL."""
    pytest.importorskip("s3fs")
    server_mod = pytest.importorskip("moto.server")
    import boto3

    server = server_mod.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    for key, value in {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
                       "AWS_DEFAULT_REGION": "us-east-1", "AWS_ENDPOINT_URL": endpoint,
                       "AFFIDAVIT_WORK_DIR": str(tmp_path / "work")}.items():
        monkeypatch.setenv(key, value)
    boto3.client("s3", endpoint_url=endpoint).create_bucket(Bucket="news")
    try:
        yield "s3://news/affidavit"
    finally:
        server.stop()


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

