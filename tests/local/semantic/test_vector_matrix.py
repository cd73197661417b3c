"""The partitioned in-memory matrix against a plain dict and a full numpy scan."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from local.semantic.vector_matrix import INITIAL_ROWS, VectorMatrix, key_matches, partition_key

DIMENSIONS = 8
KINDS = st.sampled_from(["note", "message", None])
VAULTS = st.sampled_from(["Life", "Work", None])
OPS = st.lists(st.tuples(st.sampled_from(["put", "put", "remove", "compact"]),
                         st.integers(0, 40), KINDS, VAULTS, st.integers(0, 10_000)),
               max_size=150)
FILTERS = st.fixed_dictionaries({}, optional={"kind": st.sampled_from(["note", "message"]),
                                              "vault": st.sampled_from(["Life", "Work"])})


def unit(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(DIMENSIONS).astype(np.float32)
    return v / np.linalg.norm(v)


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
    assert matrix.nbytes == 3 * INITIAL_ROWS * DIMENSIONS * 4
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
