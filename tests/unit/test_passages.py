"""Tests for tasks.passages: the hashed n-gram join, echoes, counting by hash range."""

from __future__ import annotations

import numpy as np
import pytest

from affidavit.tasks.minhash import Ragged
from affidavit.tasks.passages import PassageConfig, find_shared_passages, repeated_mask

QUOTED = "the ministers stopped short of imposing their own solution on the steel makers".split()


def _words(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{k}" for k in range(n)]


def _edited(paragraph: list[str], tag: str, keep: range) -> list[str]:
    """Every third word replaced (by ``tag``-specific words), except inside ``keep``."""
    return [w if k in keep or k % 3 else f"{tag}{k}" for k, w in enumerate(paragraph)]


@pytest.mark.parametrize("echo_words", [10, 0])
def test_a_run_inside_two_edited_copies_of_one_paragraph_is_an_echo(echo_words):
    paragraph = _words("p", 60)
    keep = range(20, 34)  # 14 words left whole in both copies
    docs = [
        _words("a", 30) + QUOTED + _words("b", 30),  # quotes a sentence among its own words
        _words("c", 30) + QUOTED + _words("d", 30),
        _words("e", 20) + _edited(paragraph, "x", keep) + _words("f", 20),
        _words("g", 20) + _edited(paragraph, "y", keep) + _words("h", 20),
    ]
    res = find_shared_passages(
        docs, [None] * 4, config=PassageConfig(echo_words=echo_words), min_chars=1
    )
    pairs = {(i, j) for i, j in zip(res.pairs["i"], res.pairs["j"], strict=True)}
    assert (0, 1) in pairs  # a verbatim passage among each text's own words
    assert ((2, 3) in pairs) == (echo_words == 0)


def test_repeated_mask_equals_counting_all_at_once():
    rng = np.random.default_rng(7)
    h = rng.integers(0, 1 << 63, 50_000, dtype=np.int64).astype(np.uint64)
    h[rng.integers(0, len(h), 5_000)] = h[rng.integers(0, len(h), 5_000)]  # repeats
    h[:30] = h[30]
    _, inv, cnt = np.unique(h, return_inverse=True, return_counts=True)
    for k in (2, 3, 10):
        assert np.array_equal(repeated_mask(h, k), cnt[inv] >= k)


def test_a_quotation_closely_paraphrased_after_is_no_echo():
    # a story quotes a sentence of a release in quotation marks, then paraphrases the next
    # sentence closely: the run is a quotation, not an echo
    release = _words("r", 20) + QUOTED + "about 260 employees work at the plant in it".split()
    story = _words("s", 20) + QUOTED + "about 260 people work at the plant which the".split()
    words = [release, story]
    quoted = [[], [(20, 20 + len(QUOTED))]]  # the story sets the sentence in quotation marks
    res = find_shared_passages(
        words, [None, None], config=PassageConfig(echo_words=10), min_chars=1,
        quoted_ranges=quoted,
    )
    assert res.pairs.height == 1
    plain = find_shared_passages(
        words, [None, None], config=PassageConfig(echo_words=10), min_chars=1
    )
    assert plain.pairs.height == 0  # without the marks, the paraphrase makes it an echo


@pytest.mark.parametrize("bridge", [True, False])
def test_a_quotation_holding_a_stock_phrase_is_one_passage(bridge):
    # a quoted sentence holds a stock phrase that many unrelated stories carry (boilerplate):
    # the join ignores its n-grams, which cut the quotation in two; the words between are
    # equal in both texts, so it is one passage, as long as the sentence
    stock = "the company said in a statement released to reporters on".split()
    sentence = (
        "shipments from the northern plant rose sharply last quarter as".split()
        + stock
        + "monday according to figures released by the port authority".split()
    )
    docs = [
        _words("a", 30) + sentence + _words("b", 30),  # the origin
        _words("c", 30) + sentence + _words("d", 30),  # quotes its sentence
    ]
    # the stock phrase, with words of their own on either side, in seven unrelated stories
    docs += [_words(f"u{k}x", 12) + stock + _words(f"u{k}y", 12) for k in range(7)]
    config = PassageConfig(furniture_max_clusters=6, bridge_ignored=bridge)
    res = find_shared_passages(
        docs,
        [None] * len(docs),
        config=config,
        min_chars=1,
        sentence_lengths=[[30, len(sentence), 30]] * 2 + [[24 + len(stock)]] * 7,
        min_sentence_words=8,
    )
    assert res.n_common_ngrams > 0  # the stock phrase is boilerplate
    pair = res.pairs.filter((res.pairs["i"] == 0) & (res.pairs["j"] == 1))
    assert pair.height == 1
    whole = sum(len(w) for w in sentence) + len(sentence) - 1
    assert (pair["passage_chars"][0] == whole) == bridge
    assert pair["full_sentence"][0] == bridge
    assert pair["n_runs"][0] == (1 if bridge else 2)
    # the stock phrase shared alone makes no pair
    assert res.pairs.filter(res.pairs["i"] >= 2).height == 0


def test_flat_spans_give_the_same_passages_as_python_lists():
    # sentence, line and quotation spans held as flat arrays (``Ragged``, what the lineage
    # stage passes) and as Python lists of lists give the same pairs
    release = _words("r", 20) + QUOTED + "about 260 employees work at the plant in it".split()
    story = _words("s", 20) + QUOTED + "about 260 people work at the plant which the".split()
    other = _words("t", 5) + QUOTED + _words("u", 12)
    words = [release, story, other]
    quoted = [[], [(20, 20 + len(QUOTED))], [(0, 3), (5, 5 + len(QUOTED))]]
    sentences = [[20, len(QUOTED), 9], [20 + len(QUOTED), 9], [5, len(QUOTED), 12]]
    lines = [[len(w)] for w in words]
    kwargs = dict(config=PassageConfig(echo_words=10), min_chars=1, min_sentence_words=3)
    as_lists = find_shared_passages(
        words, [None, None, None], quoted_ranges=quoted, sentence_lengths=sentences,
        line_lengths=lines, **kwargs,
    )
    as_flat = find_shared_passages(
        words, [None, None, None],
        quoted_ranges=Ragged.from_lists(quoted, np.int32, width=2),
        sentence_lengths=Ragged.from_lists(sentences, np.int32),
        line_lengths=Ragged.from_lists(lines, np.int32),
        **kwargs,
    )
    # the spans matter here: a quoted run with a figure, and whole sentences
    assert as_lists.pairs["quoted_chars"].max() > 0
    assert as_lists.pairs["full_sentence"].all()
    assert as_flat.pairs.equals(as_lists.pairs)


def test_ragged_take_and_concat_keep_each_documents_values():
    lists = [[3, 1], [], [4, 1, 5], [9]]
    r = Ragged.from_lists(lists, np.int32)
    assert [x.tolist() for x in r] == lists
    assert [x.tolist() for x in r.take(np.array([2, 0, 1]))] == [[4, 1, 5], [3, 1], []]
    both = Ragged.concat([r, Ragged.from_lists([[2, 6]], np.int32)])
    assert [x.tolist() for x in both] == [*lists, [2, 6]]
    assert r.doc_of_values().tolist() == [0, 0, 2, 2, 2, 3]
    pairs = Ragged.from_lists([[(0, 2)], [(1, 3), (4, 6)]], np.int32, width=2)
    assert pairs.values.shape == (3, 2)
    assert [x.tolist() for x in pairs] == [[[0, 2]], [[1, 3], [4, 6]]]


def test_echo_windows_compared_in_chunks_give_the_same_flags(monkeypatch):
    # the echo test's corpus and the quotation one, with every stretch compared in a chunk of
    # its own: the flags (so the pairs and their figures) are those of one chunk for all
    import affidavit.tasks.passages as passages

    paragraph = _words("p", 60)
    keep = range(20, 34)
    release = _words("r", 20) + QUOTED + "about 260 employees work at the plant in it".split()
    story = _words("s", 20) + QUOTED + "about 260 people work at the plant which the".split()
    docs = [
        _words("a", 30) + QUOTED + _words("b", 30),
        _words("c", 30) + QUOTED + _words("d", 30),
        _words("e", 20) + _edited(paragraph, "x", keep) + _words("f", 20),
        _words("g", 20) + _edited(paragraph, "y", keep) + _words("h", 20),
        release,
        story,
    ]
    quoted = [[], [], [], [], [], [(20, 20 + len(QUOTED))]]
    kwargs = dict(config=PassageConfig(echo_words=10), min_chars=1, quoted_ranges=quoted)
    whole = find_shared_passages(docs, [None] * len(docs), **kwargs)
    monkeypatch.setattr(passages, "_ECHO_CHUNK", 1)
    chunked = find_shared_passages(docs, [None] * len(docs), **kwargs)
    assert whole.pairs.height >= 3  # verbatim quotes, not the echo of the edited paragraph
    assert chunked.pairs.equals(whole.pairs)


def test_ngrams_judged_in_many_hash_ranges_give_the_same_pairs(monkeypatch):
    # n-grams counted and judged one hash range at a time (here ranges of a few dozen rows:
    # many ranges, each counted in several blocks) give the pairs and furniture of two ranges
    import affidavit.tasks.passages as passages

    rng = np.random.default_rng(3)
    stock = "the company said in a statement on monday that it expects".split()
    footer = "read more stories from our newsroom every day".split()
    docs, hosts = [], []
    for d in range(40):
        own = [f"w{x}" for x in rng.integers(0, 300, 60)]
        if d % 10 == 0:  # four stories share a sentence
            own[10:10] = QUOTED
        if d % 4 == 0:
            own[30:30] = stock
        docs.append(own + footer)
        hosts.append(f"h{d % 3}")
    kwargs = dict(config=PassageConfig(echo_words=10), min_chars=1)
    whole = find_shared_passages(docs, hosts, **kwargs)
    monkeypatch.setattr(passages, "_HASH_BLOCK", 40)
    ranged = find_shared_passages(docs, hosts, **kwargs)
    assert whole.pairs.height >= 3  # the shared sentence links its documents
    assert whole.n_common_ngrams + whole.n_furniture_ngrams > 0  # stock phrase or footer
    assert ranged.pairs.equals(whole.pairs)
    assert ranged.bad_ngrams.equals(whole.bad_ngrams)
    assert ranged.n_common_ngrams == whole.n_common_ngrams
    assert ranged.n_furniture_ngrams == whole.n_furniture_ngrams


def test_pairs_joined_a_range_of_first_documents_at_a_time_are_the_same(monkeypatch):
    # the self-join of the kept n-grams cut into ranges of first documents (here a few rows
    # a range, so a pair's n-grams and a hash's rows cross many ranges) gives the same runs
    # and pairs as one join, with and without new documents
    import affidavit.tasks.passages as passages

    rng = np.random.default_rng(5)
    shared = [[f"s{k}x{x}" for x in range(14)] for k in range(30)]
    docs, hosts = [], []
    for _ in range(60):
        own = [f"w{x}" for x in rng.integers(0, 400, 50)]
        for k in rng.choice(30, size=2, replace=False):  # two of 30 shared passages
            at = int(rng.integers(0, len(own)))
            own[at:at] = shared[k]
        docs.append(own)
        hosts.append(None)
    kwargs = dict(config=PassageConfig(echo_words=10), min_chars=1)
    new_mask = np.arange(60) >= 45
    whole = find_shared_passages(docs, hosts, **kwargs)
    whole_new = find_shared_passages(docs, hosts, new_mask=new_mask, **kwargs)
    monkeypatch.setattr(passages, "_JOIN_ROWS", 9)
    cut = find_shared_passages(docs, hosts, **kwargs)
    cut_new = find_shared_passages(docs, hosts, new_mask=new_mask, **kwargs)
    assert whole.pairs.height >= 20
    assert 0 < whole_new.pairs.height < whole.pairs.height
    assert cut.pairs.equals(whole.pairs)
    assert cut_new.pairs.equals(whole_new.pairs)
    # words read a few positions at a time while runs are extended: the same pairs
    monkeypatch.setattr(passages, "_GATHER_WORDS", 3)
    assert find_shared_passages(docs, hosts, **kwargs).pairs.equals(whole.pairs)


def _extend_one_word_at_a_time(edge, step, i, j, diag, ids, offsets):
    """The reference: one word a round, as the words would be compared by hand."""
    out = []
    for e, a, b, d in zip(edge.tolist(), i.tolist(), j.tolist(), diag.tolist(), strict=True):
        while True:
            c, o = e + step, e + step + d
            inside = offsets[a] <= c < offsets[a + 1] and offsets[b] <= o < offsets[b + 1]
            if not inside or ids[c] != ids[o]:
                break
            e = c
        out.append(e)
    return out


@pytest.mark.parametrize("gather", [1, 3, 1 << 17])
def test_runs_extended_several_words_a_round_stop_where_word_by_word_does(monkeypatch, gather):
    import affidavit.tasks.passages as passages

    monkeypatch.setattr(passages, "_GATHER_WORDS", gather)
    rng = np.random.default_rng(7)
    lengths = rng.integers(1, 40, size=30)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    # few distinct words, and copied stretches: runs of every length, up to whole documents
    ids = rng.integers(0, 3, size=int(offsets[-1])).astype(np.uint64)
    for _ in range(20):
        a, b = rng.integers(0, 30, size=2)
        n = int(min(lengths[a], lengths[b]))
        ids[offsets[b] : offsets[b] + n] = ids[offsets[a] : offsets[a] + n]
    i = rng.integers(0, 30, size=400)
    j = rng.integers(0, 30, size=400)
    edge = offsets[i] + rng.integers(0, 1 << 20, size=400) % lengths[i]
    # an alignment that puts the position's word inside j
    diag = offsets[j] + rng.integers(0, 1 << 20, size=400) % lengths[j] - edge
    for step in (1, -1):
        got = passages._extend_equal(edge, step, i, j, diag, ids, offsets)
        assert got.tolist() == _extend_one_word_at_a_time(edge, step, i, j, diag, ids, offsets)


def test_sums_and_echoes_over_words_on_disk_read_in_rounds_are_the_same(tmp_path, monkeypatch):
    import affidavit.tasks.minhash as minhash
    import affidavit.tasks.passages as passages

    rng = np.random.default_rng(3)
    values = rng.integers(0, 50, size=200_000).astype(np.int32)
    np.save(tmp_path / "v.npy", values)
    mapped = np.load(tmp_path / "v.npy", mmap_mode="r")
    a = rng.integers(0, 199_000, size=5_000)
    b = a + rng.integers(0, 900, size=5_000)
    whole = passages._range_sums(values, a, b)
    # a budget of 3 blocks: rounds of one range, pages given back many times
    monkeypatch.setattr(minhash, "RESIDENT_MAP_BYTES", 3 * minhash.MAP_BLOCK_BYTES)
    assert passages._range_sums(mapped, a, b).tolist() == whole.tolist()


def test_templates_of_many_hosts_come_in_one_order():
    """Each host's template lines, ordered by host and hash (a group-by's order is not)."""
    import affidavit.tasks.passages as passages

    config = PassageConfig()
    rng = np.random.default_rng(11)
    docs, hosts = [], []
    for host in range(300):
        line = rng.integers(1, 2**63, size=config.template_words + 2).astype(np.uint64)
        for _ in range(max(config.template_min_docs, 3)):
            body = rng.integers(1, 2**63, size=30).astype(np.uint64)
            docs.append(np.concatenate([body, line]))
            hosts.append(host + 1)
    ids = np.concatenate(docs)
    offsets = np.concatenate([[0], np.cumsum([len(d) for d in docs])]).astype(np.int64)
    host_of_doc = np.array(hosts, dtype=np.int64)
    starts, templates = passages._template_starts(
        ids, offsets, config.template_words, host_of_doc, np.ones(len(docs), bool), config
    )
    assert templates.height >= 300  # every host's line (its n-grams) was found
    assert templates.rows() == templates.sort("host", "h").rows()
