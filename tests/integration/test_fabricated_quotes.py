"""A judge that invents its quotes cannot add support: the anchor gate rejects every one."""

from __future__ import annotations

import re
from importlib import resources

from affidavit.flows.context import RunRecord
from affidavit.schemas.enums import Mode, Stance
from affidavit.schemas.judgments import JudgeResult

DEMO = resources.files("affidavit.flows").joinpath("demo")


class FabricatingJudge:
    """Claims SUPPORTS with the document's first sentence, one digit changed (or a word)."""

    name = "fabricating"

    def judge_batch(self, pairs, *, titles=None, found=False, hosts=None):  # noqa: ANN001, ANN201
        out = []
        for _, doc in pairs:
            sentence = re.split(r"(?<=[.!?])\s+", doc.strip())[0]
            if re.search(r"\d", sentence):
                fake = re.sub(r"\d", lambda m: str((int(m.group()) + 1) % 10), sentence, count=1)
            else:
                fake = sentence.replace(" the ", " no ", 1) + " indeed"
            out.append(JudgeResult(Stance.SUPPORTS, 0.9, fake, "made up", self.name))
        return out


def test_fabricated_quotes_are_rejected(tmp_path):
    from affidavit.flows.context import open_warehouse, utcnow
    from affidavit.flows.research_loop import research
    from affidavit.flows.stages import index_task, ingest_task, lineage_task
    from affidavit.tasks.search import ArchiveProvider
    from affidavit.tasks.tribunal import decide
    from affidavit.warehouse.search_index import SearchIndex

    wh = open_warehouse(str(tmp_path / "home"))
    run = RunRecord(wh, "test", {})
    ids = ingest_task.fn(wh, [str(DEMO.joinpath("documents.jsonl"))], run=run)
    lineage_task.fn(wh, ids, run=run)
    index_task.fn(wh, ids, run=run)
    claims = [{"claim_id": "c1", "text": "The Lumen Bridge in Corvallo opened to traffic on "
               "14 May 2024."}]
    res = research(wh, claims, run=run, mode=Mode.QUICK, judge=FabricatingJudge(),
                   providers=[ArchiveProvider(SearchIndex.open(wh.paths.index))], now=utcnow())
    j = res.judgments
    assert j.height > 0
    assert not j["is_admitted"].any()
    assert set(j["anchor"].to_list()) == {"FAILED"}
    assert decide(j).status.value == "UNVERIFIED"
