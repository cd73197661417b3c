"""Unit vectors in memory, one contiguous float32 matrix per (kind, vault), so a filtered
query scans only the rows it can return: a brute-force scan is bound by memory bandwidth
(110,000 × 384 float32 is 169 MB), and partitions cut it to the matching rows.

Beside each matrix, the vectors quantised to one sign bit per dimension (48 bytes a row
for 384 dimensions, 1/32 of the floats). A query of a large partition ranks its rows by
the Hamming distance of those bits to the query's (a popcount over uint64 words, which
never touches the floats), then scores exactly, in float32, the best `candidates` of
them and every row as close as the last of those (a distance is a small integer, so the
cut is found by counting rows per distance, and ties at it are all kept), and returns the
top k of that exact re-scoring: the cosines are exact, only a row the bits ranked beyond
the cut can be missed. The bits are held word by word (one contiguous column of uint64
per 64 dimensions), so each step of the distance runs over contiguous memory: at 500,000
rows a query's pass took 25 ms of CPU with the rows' words side by side and an
argpartition. A partition of at
most EXACT_ROWS is scanned exactly. Figures: bench.vectors (Recall@20 of the quantised list
against the exact scan, and the time against the bare float32 scan).

Between the bits and the floats, each row is also held as int8 codes with a step (its
largest component over 127), whose dot product with the query differs from the exact
cosine by at most the query's L1 norm times half the step. The candidates are scored from
the codes first, and only those whose cosine may still reach the k-th best (their upper
bound at least the k-th largest lower bound) are gathered in float32 and scored exactly:
the result is the one the exact re-scoring of every candidate gives, row for row, while
the random gather of a candidate's 384 float32 (1.5 KB, a page of its own in a large
partition) happens for about a hundred rows instead of thousands (at 50,000 rows with an
eighth re-scored, 7,025 candidates: 144 re-scored exactly, and the pass 2.4–3.1 → 1.3–1.7
ms, bench.vectors).

Not thread-safe by itself: SqliteVectorIndex holds its lock around every call.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from worker.semantic.ports import VectorMatch

PartitionKey = tuple[str | None, str | None]  # (kind, vault) as VectorFilter names them
FILTER_FIELDS = ("kind", "vault")
INITIAL_ROWS = 64  # a partition's first allocation; it doubles when full
# Below this many rows a partition is scanned exactly: 8,192 × 384 float32 is 12 MB, one
# exact scan about 1 ms of CPU, and a sign-bit pass saves little there (bench.vectors).
EXACT_ROWS = 8_192
# Rows re-scored exactly per query: RESCORED_SHARE of the partition, at least OVERSAMPLE × k
# and MIN_CANDIDATES. A fixed count recalls less the larger the partition, so the count is
# a share of it. On MiniLM vectors of the team's tuning texts (`bench.vector_recall`,
# 20,867 vectors, 300 queries; 2026-12-07) a share of 1/16 keeps Recall@20 against the
# exact scan at 0.998 (least 0.90), 1/32 at 0.996, 1/64 at 0.991 and 1/8 at 0.9998
# (target ≥ 0.98). At 100,000 messages + 10,000 notes 1/16 makes the two partitions'
# passes 0.71× the time of 1/8's (300 interleaved queries). Random unit vectors, with no
# structure for the bits to keep and no embedder's output, recall 0.85 there (1/8: 0.94).
RESCORED_SHARE = 1 / 16
OVERSAMPLE = 25
MIN_CANDIDATES = 1_000
WORD_BITS = 64
RESCORE_BLOCK_ROWS = 512  # 768 KB of 384-dimension rows: the buffer stays in cache


# Bits set per byte, for numpy before 2.0 (no np.bitwise_count); the lock installs 2.x.
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).sum(axis=1)


def hamming(columns: np.ndarray, query_signs: np.ndarray) -> np.ndarray:
    """Bits that differ between each row of `columns` (sign_columns: one row of uint64 per
    word, one column per vector) and `query_signs` (one vector's words)."""
    total = np.zeros(columns.shape[1], dtype=np.uint16)
    differ = np.empty(columns.shape[1], dtype=np.uint64)
    for word, query_word in zip(columns, query_signs, strict=True):
        np.bitwise_xor(word, query_word, out=differ)
        if hasattr(np, "bitwise_count"):
            total += np.bitwise_count(differ)
        else:
            total += _BYTE_BITS[differ.view(np.uint8)].reshape(-1, 8).sum(axis=1,
                                                                         dtype=np.uint16)
    return total


def closest(distance: np.ndarray, count: int) -> np.ndarray:
    """The rows (ascending) of the `count` smallest distances and of every distance equal
    to the largest of those; all rows when there are at most `count`."""
    if len(distance) <= count:
        return np.arange(len(distance))
    at_most = np.cumsum(np.bincount(distance))  # rows at each distance or less
    cut = int(np.searchsorted(at_most, count))
    return np.flatnonzero(distance <= cut)


def candidates(k: int, rows: int) -> int:
    """Rows to re-score exactly for the top k of a partition of `rows`."""
    return max(OVERSAMPLE * k, MIN_CANDIDATES, math.ceil(RESCORED_SHARE * rows))


def _gathered_dots(matrix: np.ndarray, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
    """The dot products of `rows` of `matrix` (float32, or int8 codes taken as float32)
    with `query`, gathered a block at a time into small reused buffers: gathering them all
    at once allocated a new array per query, and at 500,000 rows its page faults made the
    pass cost more than the exact scan."""
    out = np.empty(len(rows), dtype=np.float32)
    size = min(RESCORE_BLOCK_ROWS, len(rows))
    block = np.empty((size, matrix.shape[1]), matrix.dtype)
    floats = block if matrix.dtype == np.float32 else np.empty(block.shape, np.float32)
    query = query.astype(np.float32, copy=False)
    for start in range(0, len(rows), RESCORE_BLOCK_ROWS):
        at = rows[start:start + RESCORE_BLOCK_ROWS]
        # mode="clip": under the default "raise" numpy buffers `out` and copies it again
        # (7,000 int8 rows of a 50,000-row partition: 1.1 → 0.56 ms, medians of 300
        # interleaved runs). The rows are the partition's own, so nothing is clipped.
        np.take(matrix, at, axis=0, out=block[:len(at)], mode="clip")
        if floats is not block:
            np.copyto(floats[:len(at)], block[:len(at)])
        np.dot(floats[:len(at)], query, out=out[start:start + len(at)])
    return out


def rescore(matrix: np.ndarray, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
    """The exact cosines of `rows` of `matrix` with `query`."""
    return _gathered_dots(matrix, rows, query)


# float32 rounding in a code's dot product (384 terms, each at most 127 × a unit
# component) stays far below this; it keeps the bound a bound.
CODE_SLACK = 1e-4


def codes_of(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row as int8 codes and its step: row ≈ codes × step, each component within half
    a step (a zero row: codes 0, step 0)."""
    rows = np.atleast_2d(vectors).astype(np.float32, copy=False)
    steps = (np.abs(rows).max(axis=1) / 127.0).astype(np.float32)
    scale = np.divide(1.0, steps, out=np.zeros_like(steps), where=steps > 0)
    codes = np.clip(np.rint(rows * scale[:, None]), -127, 127).astype(np.int8)
    return codes, steps


def coded_scores(codes: np.ndarray, steps: np.ndarray, rows: np.ndarray, query: np.ndarray
                 ) -> np.ndarray:
    """The approximate cosines of `rows` from their codes."""
    return _gathered_dots(codes, rows, query) * steps[rows]


def reachable(codes: np.ndarray, steps: np.ndarray, rows: np.ndarray, query: np.ndarray,
              k: int) -> np.ndarray:
    """The rows of `rows` (ascending) whose exact cosine may be among the k best: their
    codes' upper bound reaches the k-th largest lower bound. Every row of the exact top k,
    and every row tied with its last, is among them."""
    if len(rows) <= k:
        return rows
    query = query.astype(np.float32, copy=False)
    approx = coded_scores(codes, steps, rows, query)
    error = float(np.abs(query).sum()) * 0.5 * steps[rows] + CODE_SLACK
    lower = approx - error
    kth = np.partition(lower, len(lower) - k)[len(lower) - k]
    return rows[approx + error >= kth]


def sign_words(dimensions: int) -> int:
    return -(-dimensions // WORD_BITS)


def sign_bits(vectors: np.ndarray) -> np.ndarray:
    """Each row's sign bits (1 where the value is > 0), packed into uint64 words."""
    rows = np.atleast_2d(vectors)
    words = sign_words(rows.shape[1])
    packed = np.zeros((rows.shape[0], words * 8), dtype=np.uint8)
    bits = np.packbits(rows > 0, axis=1)
    packed[:, :bits.shape[1]] = bits
    return packed.view(np.uint64)


def sign_columns(vectors: np.ndarray) -> np.ndarray:
    """sign_bits laid out word by word: (words, rows), each word's row contiguous."""
    return np.ascontiguousarray(sign_bits(vectors).T)


def partition_key(metadata: Mapping[str, Any]) -> PartitionKey:
    """Only string values can equal a VectorFilter's strings; anything else matches none."""
    kind, vault = (metadata.get(f) for f in FILTER_FIELDS)
    return (kind if isinstance(kind, str) else None, vault if isinstance(vault, str) else None)


def key_matches(key: PartitionKey, wanted: Mapping[str, str]) -> bool:
    return all(wanted.get(field) in (None, value) for field, value in zip(FILTER_FIELDS, key,
                                                                          strict=True))


class _Partition:
    def __init__(self, dimensions: int) -> None:
        self.matrix = np.empty((INITIAL_ROWS, dimensions), dtype=np.float32)
        # (words, rows): see the module's docstring
        self.signs = np.empty((sign_words(dimensions), INITIAL_ROWS), dtype=np.uint64)
        self.codes = np.empty((INITIAL_ROWS, dimensions), dtype=np.int8)  # see codes_of
        self.steps = np.empty(INITIAL_ROWS, dtype=np.float32)
        self.ids: list[str] = []
        self.metadata: list[dict[str, Any]] = []
        self.rows: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self.ids)

    def reserve(self, rows: int) -> None:
        """Room for at least `rows` rows: doubled when full, or `rows` exactly when more
        is asked for at once (a reload, which then needs no compaction)."""
        if rows <= len(self.matrix):
            return
        held, size = len(self.ids), max(rows, 2 * len(self.matrix))
        grown = np.empty((size, self.matrix.shape[1]), np.float32)
        grown[:held] = self.matrix[:held]
        self.matrix = grown
        signs = np.empty((self.signs.shape[0], size), np.uint64)
        signs[:, :held] = self.signs[:, :held]
        self.signs = signs
        codes = np.empty((size, self.codes.shape[1]), np.int8)
        codes[:held] = self.codes[:held]
        self.codes = codes
        steps = np.empty(size, np.float32)
        steps[:held] = self.steps[:held]
        self.steps = steps

    def extend(self, ids: list[str], vectors: np.ndarray, metadata: list[dict[str, Any]]
               ) -> None:
        """Rows of ids the partition does not hold, appended in one step."""
        start = len(self.ids)
        end = start + len(ids)
        if end > len(self.matrix):
            self.reserve(max(end, 2 * len(self.matrix)))
        self.matrix[start:end] = vectors
        self.signs[:, start:end] = sign_bits(vectors).T
        self.codes[start:end], self.steps[start:end] = codes_of(vectors)
        self.ids += ids
        self.metadata += metadata
        self.rows.update(zip(ids, range(start, end), strict=True))

    def put(self, vector_id: str, vector: np.ndarray, metadata: dict[str, Any]) -> None:
        row = self.rows.get(vector_id)
        if row is None:
            row = len(self.ids)
            if row == len(self.matrix):
                self.reserve(row + 1)
            self.rows[vector_id] = row
            self.ids.append(vector_id)
            self.metadata.append(metadata)
        else:
            self.metadata[row] = metadata
        self.matrix[row] = vector
        self.signs[:, row] = sign_bits(vector)[0]
        codes, steps = codes_of(vector)
        self.codes[row], self.steps[row] = codes[0], steps[0]

    def remove(self, vector_id: str) -> None:
        """Swap-remove: the last row fills the hole, so rows stay contiguous. The slot left
        free is zeroed, so a forgotten unit's vector, its bits and its codes stay nowhere
        in memory (the last row's were the removed one's when it was last)."""
        row, last = self.rows.pop(vector_id), len(self.ids) - 1
        if row != last:
            moved = self.ids[last]
            self.matrix[row] = self.matrix[last]
            self.signs[:, row] = self.signs[:, last]
            self.codes[row], self.steps[row] = self.codes[last], self.steps[last]
            self.ids[row], self.metadata[row] = moved, self.metadata[last]
            self.rows[moved] = row
        self.matrix[last], self.signs[:, last] = 0.0, 0
        self.codes[last], self.steps[last] = 0, 0.0
        self.ids.pop()
        self.metadata.pop()

    def compact(self) -> None:
        rows = max(len(self.ids), INITIAL_ROWS)
        if rows >= len(self.matrix):
            return
        self.matrix = self.matrix[:rows].copy()
        self.signs = self.signs[:, :rows].copy()
        self.codes = self.codes[:rows].copy()
        self.steps = self.steps[:rows].copy()

    def best(self, query: np.ndarray, k: int, exact: bool = False,
             rescored: int | None = None) -> list[tuple[float, str, dict[str, Any]]]:
        """The k closest rows by exact cosine, among the `rescored` (default
        candidates(k, rows)) rows whose sign bits are closest and those tied with the last
        of them; every row when `exact`, or when the partition holds at most EXACT_ROWS
        and no count was asked for."""
        n = len(self.ids)
        count = rescored or candidates(k, n)
        quantised = not exact and n > count and (rescored is not None or n > EXACT_ROWS)
        pool = self._closest_signs(query, count) if quantised else None
        if pool is not None:
            pool = reachable(self.codes, self.steps, pool, query, k)
        scores = self.matrix[:n] @ query if pool is None else rescore(self.matrix, pool, query)
        if len(scores) <= k:
            rows = np.arange(len(scores))
        else:  # every row scoring at least the k-th best: ties at the cut are kept for the
            # caller's id order, where an argpartition would keep an arbitrary one of them
            kth = np.partition(scores, len(scores) - k)[len(scores) - k]
            rows = np.flatnonzero(scores >= kth)
        at = rows if pool is None else pool[rows]
        return [(float(s), self.ids[r], self.metadata[r])
                for s, r in zip(scores[rows].tolist(), at.tolist(), strict=True)]

    def _closest_signs(self, query: np.ndarray, count: int) -> np.ndarray:
        """The `count` rows whose sign bits differ least from the query's, and the rows
        tied with the last of them."""
        return closest(hamming(self.signs[:, :len(self.ids)], sign_bits(query)[0]), count)


class VectorMatrix:
    """id → (unit vector, metadata), queried by cosine with equality filters."""

    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions
        self._partitions: dict[PartitionKey, _Partition] = {}
        self._where: dict[str, PartitionKey] = {}

    def __len__(self) -> int:
        return len(self._where)

    @property
    def nbytes(self) -> int:
        return sum(p.matrix.nbytes + p.signs.nbytes + p.codes.nbytes + p.steps.nbytes
                   for p in self._partitions.values())

    def ids(self) -> set[str]:
        return set(self._where)

    def rows(self, wanted: Mapping[str, str]) -> int:
        """The rows a query with these filters scans."""
        return sum(len(p) for key, p in self._partitions.items() if key_matches(key, wanted))

    def compact(self) -> None:
        """Give back the room doubling left (after a bulk load: 216 MB held → 161 MB for
        110,000 vectors); the next write into a partition grows it again."""
        for key, partition in list(self._partitions.items()):
            if partition:
                partition.compact()
            else:  # reserved for rows that did not come
                del self._partitions[key]

    def reserve(self, rows: Mapping[PartitionKey, int]) -> None:
        """Room for this many rows per partition (a reload's counts), so that loading
        them neither doubles a matrix nor needs compacting."""
        for key, count in rows.items():
            self._partition(key).reserve(count)

    def load(self, key: PartitionKey, ids: list[str], vectors: np.ndarray,
             metadata: list[dict[str, Any]]) -> None:
        """Rows of one partition in bulk (`vectors` one row per id), for ids the matrix
        does not hold yet: a reload, which put() one row at a time made 15.9× slower per
        tenfold of rows (bench.scale). Every metadata must give `key`."""
        fresh = [i for i, vector_id in enumerate(ids) if vector_id not in self._where]
        if len(fresh) < len(ids):  # a held id is an update: put() moves it if need be
            for i in sorted(set(range(len(ids))) - set(fresh)):
                self.put(ids[i], vectors[i], metadata[i])
            ids, metadata = [ids[i] for i in fresh], [metadata[i] for i in fresh]
            vectors = vectors[fresh]
        if ids:
            self._partition(key).extend(ids, vectors, metadata)
            self._where.update(dict.fromkeys(ids, key))

    def _partition(self, key: PartitionKey) -> _Partition:
        if key not in self._partitions:
            self._partitions[key] = _Partition(self.dimensions)
        return self._partitions[key]

    def put(self, vector_id: str, vector: np.ndarray, metadata: dict[str, Any]) -> None:
        key = partition_key(metadata)
        old = self._where.get(vector_id)
        if old is not None and old != key:
            self._remove_from(old, vector_id)
        self._partition(key).put(vector_id, vector, metadata)
        self._where[vector_id] = key

    def remove(self, vector_id: str) -> None:
        key = self._where.pop(vector_id, None)
        if key is not None:
            self._remove_from(key, vector_id)

    def _remove_from(self, key: PartitionKey, vector_id: str) -> None:
        partition = self._partitions[key]
        partition.remove(vector_id)
        if not partition:
            del self._partitions[key]

    def query(self, unit: np.ndarray, top_k: int, wanted: Mapping[str, str],
              exact: bool = False, rescored: int | None = None) -> list[VectorMatch]:
        """The top_k closest, best first; equal scores in id order, so results repeat.
        `exact`: score every row (the reference bench.vector_recall measures against);
        `rescored`: re-score this many sign-bit candidates per partition, whatever its
        size (bench.vector_recall's sweep)."""
        found = [hit for key, partition in self._partitions.items() if key_matches(key, wanted)
                 for hit in partition.best(unit, top_k, exact, rescored)]
        found.sort(key=lambda hit: (-hit[0], hit[1]))
        # float32 rounding can put a unit vector's cosine with itself a hair above 1.
        return [VectorMatch(id=i, score=min(1.0, max(-1.0, s)), metadata=dict(m))
                for s, i, m in found[:top_k]]
