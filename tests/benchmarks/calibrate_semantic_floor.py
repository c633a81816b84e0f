"""Calibrate the judge's semantic relevance floor on citation-integrity train.

Usage::

    python -m tests.benchmarks.calibrate_semantic_floor [--data DIR] [--percentile 5]

Citation-integrity (SciFact format; ``../shared/data/claims/citation-integrity``) pairs each
citing sentence with the abstracts it cites and marks the abstract sentences that are its
evidence (rationales). The floor is the given percentile of the cosine between a claim and its
rationale sentences, with the encoder the judge uses (:mod:`affidavit.tasks.semantic`): under
it lie only that share of the sentences annotators marked as evidence. No benchmark set is read.

Prints the cosine percentiles of rationale sentences, of the other sentences of the same
abstracts and of abstracts with no rationale, the AUC of rationale against other sentences,
and last the floor as JSON. Exit 2 with one line when the data are absent.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np
from scipy.stats import mannwhitneyu

from affidavit.tasks.semantic import encoder

REPO = Path(__file__).resolve().parents[2]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "claims" / "citation-integrity"
_CITATION_RE = re.compile(r"\s*\[[^\]]*\]")  # "[<|multi_cit|>,7]" markers in citing sentences


def load_pairs(data: Path) -> list[tuple[str, str, int]]:
    """(claim, abstract sentence, kind) triples from ``claims_train.jsonl`` and ``corpus.jsonl``.

    kind is 1 for a rationale sentence, 0 for another sentence of an abstract that has
    rationales for the claim, 2 for a sentence of a cited abstract with none.
    """
    corpus = {str(d["doc_id"]): d["abstract"]
              for d in map(json.loads, (data / "corpus.jsonl").open(encoding="utf-8"))}
    pairs = []
    for line in (data / "claims_train.jsonl").open(encoding="utf-8"):
        c = json.loads(line)
        claim = _CITATION_RE.sub("", c["claim"]).strip()
        for doc_id in map(str, c["cited_doc_ids"]):
            abstract = corpus.get(doc_id)
            if not abstract:
                continue
            ev = c["evidence"].get(doc_id, [])
            rationale = {s for e in ev for s in e["sentences"]}
            for i, sent in enumerate(abstract):
                pairs.append((claim, sent, 1 if i in rationale else (0 if ev else 2)))
    return pairs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--percentile", type=float, default=5.0)
    args = ap.parse_args(argv)
    if not 0 <= args.percentile <= 100:
        print(f"error: --percentile {args.percentile} is not in [0, 100]", file=sys.stderr)
        return 2
    missing = [n for n in ("claims_train.jsonl", "corpus.jsonl") if not (args.data / n).is_file()]
    if missing:
        print(f"error: no citation-integrity train set in {args.data} (missing "
              f"{', '.join(missing)})", file=sys.stderr)
        return 2
    pairs = load_pairs(args.data)
    texts = sorted({p[0] for p in pairs} | {p[1] for p in pairs})
    vectors = encoder().encode(texts)
    index = {t: i for i, t in enumerate(texts)}
    cos = np.array([vectors[index[a]] @ vectors[index[b]] for a, b, _ in pairs])
    kind = np.array([k for _, _, k in pairs])
    for k, name in [(1, "rationale sentences"), (0, "other sentences, same abstracts"),
                    (2, "sentences of abstracts without rationale")]:
        v = cos[kind == k]
        if not len(v):
            continue
        print(f"{name:42s} n={len(v):5d} percentiles 5/10/25/50: "
              + " ".join(f"{x:.3f}" for x in np.percentile(v, [5, 10, 25, 50])))
    pos, neg = cos[kind == 1], cos[kind == 0]
    auc = mannwhitneyu(pos, neg).statistic / (len(pos) * len(neg))  # AUC = U / (n1 n2)
    print(f"AUC rationale vs other sentences of the same abstracts: {auc:.4f}")
    floor = float(np.percentile(cos[kind == 1], args.percentile))
    print(json.dumps({"percentile": args.percentile, "floor": round(floor, 3),
                      "rationale_sentences": int((kind == 1).sum())}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
