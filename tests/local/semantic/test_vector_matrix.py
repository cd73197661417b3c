"""The partitioned in-memory matrix against a plain dict and a full numpy scan."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from local.semantic.vector_matrix import (
    CODE_SLACK,
    EXACT_ROWS,
    INITIAL_ROWS,
    MIN_CANDIDATES,
    RESCORED_SHARE,
    VectorMatrix,
    candidates,
    closest,
    coded_scores,
    codes_of,
    hamming,
    key_matches,
    partition_key,
    reachable,
    sign_bits,
    sign_columns,
)

DIMENSIONS = 8
KINDS = st.sampled_from(["note", "message", None])
VAULTS = st.sampled_from(["Life", "Work", None])
OPS = st.lists(st.tuples(st.sampled_from(["put", "put", "remove", "compact", "load",
                                          "reserve"]),
                         st.integers(0, 40), KINDS, VAULTS, st.integers(0, 10_000)),
               max_size=150)
FILTERS = st.fixed_dictionaries({}, optional={"kind": st.sampled_from(["note", "message"]),
                                              "vault": st.sampled_from(["Life", "Work"])})


def unit(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(DIMENSIONS).astype(np.float32)
    return v / np.linalg.norm(v)


def unit_rows(rng: np.random.Generator, rows: int, dimensions: int) -> np.ndarray:
    """`rows` random unit vectors."""
    vectors = rng.standard_normal((rows, dimensions)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def meta(kind: str | None, vault: str | None) -> dict:
    return {k: v for k, v in (("kind", kind), ("vault", vault)) if v is not None}


@settings(max_examples=60, deadline=None)
@given(ops=OPS, wanted=FILTERS, top_k=st.integers(1, 50), query_seed=st.integers(0, 99))
def test_matches_a_brute_force_scan_after_any_writes(ops: list, wanted: dict, top_k: int,
                                                     query_seed: int) -> None:
    matrix, model = VectorMatrix(DIMENSIONS), {}
    for op, n, kind, vault, seed in ops:
        key = f"id{n}"
        if op == "put":
            matrix.put(key, unit(seed), meta(kind, vault))
            model[key] = (unit(seed), meta(kind, vault))
        elif op == "load":  # a reload's bulk step: ids n..n+3, held ones among them
            ids = [f"id{n + i}" for i in range(4)]
            vectors = np.stack([unit(seed + i) for i in range(4)])
            matrix.load(partition_key(meta(kind, vault)), ids, vectors,
                        [meta(kind, vault)] * 4)
            model.update({k: (unit(seed + i), meta(kind, vault)) for i, k in enumerate(ids)})
        elif op == "reserve":
            matrix.reserve({partition_key(meta(kind, vault)): n})
        elif op == "compact":
            matrix.compact()
        else:
            matrix.remove(key)
            model.pop(key, None)
    assert len(matrix) == len(model)
    query = unit(10_000 + query_seed)
    expected = sorted(((float(v @ query), k) for k, (v, m) in model.items()
                       if key_matches(partition_key(m), wanted)), key=lambda t: (-t[0], t[1]))
    got = matrix.query(query, top_k, wanted)
    # Scores, not ids, are compared in order: a BLAS scan and a single dot product may
    # round identical vectors' scores apart in the last bit.
    np.testing.assert_allclose([m.score for m in got], [s for s, _ in expected[:top_k]],
                               atol=1e-6)
    truth = {k: s for s, k in expected}
    assert len({m.id for m in got}) == len(got)
    for match in got:
        assert abs(match.score - truth[match.id]) <= 1e-6
        assert match.metadata == model[match.id][1]


def test_equal_scores_come_in_id_order_across_partitions() -> None:
    matrix, axis = VectorMatrix(DIMENSIONS), np.eye(DIMENSIONS, dtype=np.float32)
    for key, kind in (("c", "note"), ("a", "message"), ("d", "note"), ("b", "message")):
        matrix.put(key, axis[0], {"kind": kind})
    matrix.put("e", axis[1], {"kind": "note"})
    assert [m.id for m in matrix.query(axis[0], 3, {})] == ["a", "b", "c"]
    assert [m.id for m in matrix.query(axis[0], 1, {"kind": "note"})] == ["c"]
    assert [m.score for m in matrix.query(axis[0], 5, {})] == [1.0] * 4 + [0.0]
    for i in reversed(range(100)):  # many ties within one partition, stored newest first
        matrix.put(f"k{i:02}", axis[2], {"kind": "note"})
    assert [m.id for m in matrix.query(axis[2], 3, {"kind": "note"})] == ["k00", "k01", "k02"]


def test_a_partition_grows_past_its_first_allocation_and_empties() -> None:
    matrix = VectorMatrix(DIMENSIONS)
    for i in range(3 * INITIAL_ROWS):
        matrix.put(f"id{i}", unit(i), {"kind": "note"})
    assert len(matrix) == 3 * INITIAL_ROWS
    assert matrix.nbytes >= 3 * INITIAL_ROWS * DIMENSIONS * 4
    best = matrix.query(unit(7), 1, {})[0]
    assert best.id == "id7" and best.score == 1.0
    matrix.compact()
    # per row: the float32 row, one uint64 word of sign bits (8 dimensions), its int8
    # codes and their float32 step
    assert matrix.nbytes == 3 * INITIAL_ROWS * (DIMENSIONS * 4 + 8 + DIMENSIONS + 4)
    assert matrix.query(unit(7), 1, {})[0] == best
    for i in range(3 * INITIAL_ROWS):
        matrix.remove(f"id{i}")
    assert len(matrix) == 0 and matrix.nbytes == 0
    assert matrix.query(unit(7), 5, {}) == []


def test_only_string_kinds_and_vaults_partition() -> None:
    assert partition_key({"kind": "note", "vault": "Life", "x": 1}) == ("note", "Life")
    assert partition_key({"kind": 3, "vault": True}) == (None, None)
    assert not key_matches((None, None), {"kind": "3"})
    assert key_matches(("note", None), {"kind": "note"})


@settings(max_examples=40, deadline=None)
@given(dimensions=st.integers(1, 200), seed=st.integers(0, 10_000))
def test_sign_bits_count_the_dimensions_whose_signs_differ(dimensions: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    rows = rng.standard_normal((5, dimensions)).astype(np.float32)
    rows[0, : dimensions // 3] = 0.0  # zero counts as not positive
    query = rng.standard_normal(dimensions).astype(np.float32)
    expected = [int(((r > 0) != (query > 0)).sum()) for r in rows]
    assert hamming(sign_columns(rows), sign_bits(query)[0]).tolist() == expected


@settings(max_examples=40, deadline=None)
@given(distance=st.lists(st.integers(0, 12), max_size=60), count=st.integers(1, 70))
def test_the_closest_rows_are_the_smallest_distances_and_their_ties(distance: list[int],
                                                                   count: int) -> None:
    got = closest(np.array(distance, dtype=np.uint16), count).tolist()
    if len(distance) <= count:
        assert got == list(range(len(distance)))
    else:
        cut = sorted(distance)[count - 1]
        assert got == [i for i, d in enumerate(distance) if d <= cut]


def _scan(vectors: np.ndarray, q: np.ndarray, k: int) -> list[tuple[str, float]]:
    scores = vectors @ q
    order = sorted(range(len(vectors)), key=lambda i: (-scores[i], f"id{i:04}"))
    return [(f"id{i:04}", float(scores[i])) for i in order[:k]]


@settings(max_examples=30, deadline=None)
@given(rows=st.integers(50, 400), rescored=st.integers(1, 120), top_k=st.integers(1, 30),
       seed=st.integers(0, 1_000))
def test_the_quantised_list_is_exactly_scored_and_misses_only_what_its_bits_ranked_low(
        rows: int, rescored: int, top_k: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    vectors = unit_rows(rng, rows, DIMENSIONS)
    matrix = VectorMatrix(DIMENSIONS)
    for i, v in enumerate(vectors):
        matrix.put(f"id{i:04}", v, {"kind": "note"})
    q = vectors[seed % rows]
    got = matrix.query(q, top_k, {}, rescored=rescored)
    exact = _scan(vectors, q, rows)
    score_of = dict(exact)
    distance = hamming(sign_columns(vectors), sign_bits(q)[0])
    # every cosine is the exact one, best first; the query's own row (no bit differs) is
    # first unless more rows than were re-scored share its bits
    assert all(abs(m.score - min(1.0, score_of[m.id])) < 1e-6 for m in got)
    assert [m.score for m in got] == sorted((m.score for m in got), reverse=True)
    if int((distance == 0).sum()) <= rescored:
        assert got[0].id == f"id{seed % rows:04}"
    # what it returns is the exact top of the rows whose bits are closest, ties included
    if rows > rescored:
        kept = sorted(distance.tolist())[rescored - 1]
        pool = [(i, s) for i, s in exact if distance[int(i[2:])] <= kept]
        assert [(m.id, round(m.score, 5)) for m in got] == [
            (i, round(min(1.0, s), 5)) for i, s in pool[:top_k]]
    else:
        assert [(m.id, round(m.score, 5)) for m in got] == [
            (i, round(min(1.0, s), 5)) for i, s in exact[:top_k]]


def test_a_small_partition_is_scanned_exactly_and_a_large_one_through_its_bits() -> None:
    rng = np.random.default_rng(4)
    dims = 64
    n = EXACT_ROWS + MIN_CANDIDATES + 1
    vectors = unit_rows(rng, n, dims)
    matrix = VectorMatrix(dims)
    for i, v in enumerate(vectors):
        matrix.put(f"id{i:05}", v, {"kind": "note"})
    q = vectors[3] + 0.1 * vectors[9]
    q /= np.linalg.norm(q)
    exact = matrix.query(q, 10, {}, exact=True)
    assert [m.id for m in exact] == [f"id{i:05}" for i in np.argsort(-(vectors @ q))[:10]]
    quantised = matrix.query(q, 10, {})
    assert quantised[0].id == exact[0].id == "id00003"
    # the bits' pass re-scored the candidates(10, n) rows closest by their bits (here
    # MIN_CANDIDATES, more than RESCORED_SHARE of the rows) and returned the exact top of
    # those
    count = candidates(10, n)
    assert count == MIN_CANDIDATES > n * RESCORED_SHARE
    pool = closest(hamming(sign_columns(vectors), sign_bits(q)[0]), count)
    top = pool[np.argsort(-(vectors[pool] @ q), kind="stable")[:10]]
    assert [m.id for m in quantised] == [f"id{i:05}" for i in top]
    small = VectorMatrix(dims)
    for i, v in enumerate(vectors[:EXACT_ROWS]):
        small.put(f"id{i:05}", v, {"kind": "note"})
    assert small.query(q, 10, {}) == small.query(q, 10, {}, exact=True)


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(1, 300), dims=st.sampled_from([8, 64, 384]), seed=st.integers(0, 1_000))
def test_a_rows_codes_bound_its_cosine_by_half_a_step_per_unit_of_the_query(
        rows: int, dims: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    vectors = unit_rows(rng, rows, dims)
    vectors[0] = 0.0  # a zero row: codes 0, step 0
    q = rng.standard_normal(dims).astype(np.float32)
    q /= np.linalg.norm(q)
    codes, steps = codes_of(vectors)
    assert codes.dtype == np.int8 and int(np.abs(codes).max()) <= 127 and steps[0] == 0
    approx = coded_scores(codes, steps, np.arange(rows), q)
    bound = np.abs(q).sum() * 0.5 * steps + CODE_SLACK
    assert np.all(np.abs(approx - vectors @ q) <= bound)


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(1, 300), k=st.integers(1, 40), twins=st.integers(0, 20),
       seed=st.integers(0, 1_000))
def test_the_codes_keep_every_row_of_the_exact_top_k_and_its_ties(
        rows: int, k: int, twins: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    vectors = unit_rows(rng, rows, 64)
    vectors[rows - min(twins, rows - 1):] = vectors[0]  # rows tied with one another
    q = vectors[seed % rows] + 0.3 * rng.standard_normal(64).astype(np.float32)
    q /= np.linalg.norm(q)
    codes, steps = codes_of(vectors)
    pool = np.sort(rng.choice(rows, size=max(1, rows * 2 // 3), replace=False))
    kept = reachable(codes, steps, pool, q, k)
    exact = vectors[pool] @ q
    kth = np.sort(exact)[::-1][min(k, len(pool)) - 1]
    assert set(pool[exact >= kth].tolist()) <= set(kept.tolist()) <= set(pool.tolist())
    assert np.all(np.diff(kept) > 0)  # ascending, as the gather wants


def test_the_codes_follow_updates_removals_and_compaction() -> None:
    # A large partition written row by row, rows overwritten, removed (the last row swapped
    # into each hole) and compacted: its quantised query still returns the exact top of the
    # rows its bits rank closest, as re-scoring every one of them does.
    rng = np.random.default_rng(7)
    dims, n = 64, 3_000
    vectors = {f"id{i:05}": v for i, v in enumerate(unit_rows(rng, n, dims))}
    matrix = VectorMatrix(dims)
    for key, v in vectors.items():
        matrix.put(key, v, {"kind": "note"})
    for i in range(0, n, 7):
        vectors[f"id{i:05}"] = -vectors[f"id{i:05}"]
        matrix.put(f"id{i:05}", vectors[f"id{i:05}"], {"kind": "note"})
    for i in range(3, n, 5):
        matrix.remove(f"id{i:05}")
        del vectors[f"id{i:05}"]
    matrix.compact()
    ids = sorted(vectors)
    live = np.stack([vectors[i] for i in ids])
    q = live[11] + 0.2 * live[40]
    q /= np.linalg.norm(q)
    got = matrix.query(q, 15, {}, rescored=400)
    distance = hamming(sign_columns(live), sign_bits(q)[0])
    cut = sorted(distance.tolist())[399]
    scores = live @ q
    pool = sorted((i for i in range(len(ids)) if distance[i] <= cut),
                  key=lambda i: (-scores[i], ids[i]))
    assert [m.id for m in got] == [ids[i] for i in pool[:15]]


def test_a_removed_vector_stays_nowhere_in_the_partitions_memory() -> None:
    # Forgetting a message removes its unit's vector: its floats, sign bits and codes leave
    # the buffers, whether it was the last row (its slot freed) or another (the last row
    # moved into its place).
    rng = np.random.default_rng(3)
    vectors = unit_rows(rng, 6, DIMENSIONS)
    matrix = VectorMatrix(DIMENSIONS)
    for i, v in enumerate(vectors):
        matrix.put(f"id{i}", v, {"kind": "message"})
    codes, _ = codes_of(vectors)
    for gone in (5, 1):  # the last row, then one in the middle
        matrix.remove(f"id{gone}")
        [part] = matrix._partitions.values()
        assert not np.any(np.all(part.matrix == vectors[gone], axis=1))
        assert not np.any(np.all(part.codes == codes[gone], axis=1))
        assert not np.any(part.signs == sign_bits(vectors[gone])[0][:, None])
    assert sorted(m.id for m in matrix.query(vectors[0], 10, {})) == ["id0", "id2", "id3",
                                                                       "id4"]
