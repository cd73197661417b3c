"""What a corpus is: one record per searchable corpus, holding everything recall needs of
it (its SQL, how its statements bind the filters, how a row becomes a candidate, how
feedback names its documents), so that no step of recall branches on the kind of unit.

The records themselves live one per module (worker/corpora/notes.py, conversations.py);
worker/corpora/registry.py lists them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from shared.knowledge.standing import Signals
from shared.rank.candidate import Candidate, Kind
from shared.rank.kinds import HitKind
from shared.text.sanitiser import SearchQuery, Term
from shared.text.turns import Speaker
from worker.corpora.filters import Filters
from worker.db.port import Value

Row = Mapping[str, Any]
# Candidates are cut from this much of a unit's text (a match deeper in a long note still
# ranks it; its snippet then shows the note's start).
TEXT_CHARS = 8_000
# The text embedded for a unit: MiniLM and bge-small read 256 and 512 word pieces at
# most, about 1,000 and 2,000 characters; the start of a unit carries its gist.
EMBED_CHARS = 1_200
MAX_LABEL_CHARS = 120


def weights_sql(columns: Mapping[str, float]) -> str:
    """bm25()'s weights, positionally in the FTS table's column order."""
    return ", ".join(f"{w:.3f}" for w in columns.values())


@dataclass(frozen=True)
class Scoring:
    """What the retriever measured for a row."""

    relevance: float
    boost: float
    timestamp_ms: int
    group: str  # the row's value of its corpus's group column
    terms: Sequence[Term]  # the query's terms, as searched
    # Each query term's IDF in this corpus (FTS form → IDF); a term absent weighs 1.
    idf: Mapping[str, float] = field(default_factory=dict)
    asks: Speaker | None = None  # the speaker the query asks about (shared/text/turns.py)
    # A vector hit's cosine, set as the candidate is made (copying each resolved hit to
    # add it cost two dataclass copies per hit, bench.latency --profile).
    cosine: float | None = None


@dataclass(frozen=True)
class VectorCorpus:
    """How a corpus's units are embedded for semantic recall, and resolved back.

    A unit's id changes with its content (a conversation unit is immutable; a note unit
    carries its content hash), so "pending" is simply "no vector row for this id and
    model"."""

    name: str  # the lexical corpus it belongs to (its `vector`)
    kind: str  # the `kind` metadata its vectors carry
    by_vault: bool  # its vectors carry the `vault` metadata, so a vault filter applies
    units_sql: str  # ?1 model, ?2 limit → unit_id, text: units without a vector of ?1
    orphans_sql: str  # ?1 limit → vector_id: rows whose unit is gone
    # Vector ids (?1 JSON array) of model ?2 → search-shaped rows with their vector_id (the
    # corpus's row → candidate applies unchanged).
    resolve_sql: str
    resolve_params: Callable[[list[str], str, Filters], tuple[Value, ...]]


@dataclass(frozen=True)
class Judgments:
    """How the feedback store finds the owner's judgments of a corpus's documents
    (migrations/0007): `sql` binds `params(keys)` for the keys `judged` gives each
    candidate, and answers (doc, judgment, created_at, query_hash) with `doc` as
    `documents` names it."""

    sql: str
    params: Callable[[Sequence[Any]], tuple[Value, ...]]
    documents: Callable[[Candidate], tuple[str, ...]]
    judged: Callable[[Candidate], tuple[Any, ...]]


@dataclass(frozen=True)
class Corpus:
    name: str  # its key in corpus_stats and in `Filters.source`
    kind: Kind
    fts_table: str
    # term → the documents of fts_table holding it, kept by triggers (migrations/0014):
    # what an fts5vocab 'row' table answers, without reading the posting lists.
    df_table: str
    # FTS column → bm25() weight, in the FTS table's column order (bm25() takes the weights
    # positionally; tests/worker/corpora/test_registry.py pins the order to the migration).
    columns: Mapping[str, float]
    # Hits are de-duplicated per value of this column; rows of two values never make
    # candidates of one identity (the typo step reads the typed rows of the corrected
    # rows' groups only, worker/recall/lexical.py).
    group_column: str
    timestamp_column: str  # what recency is measured from
    # Rows fetched per requested hit: room for one-per-group de-duplication.
    fetch_per_hit: int
    search_sql: str
    # The search statement's parameters: (MATCH expression, rows wanted, filters).
    params: Callable[[str, int, Filters], tuple[Value, ...]]
    # A gated search in two passes (worker/recall/lexical.py): `ranked_sql` (same
    # parameters, the same rows) ranks, each row with its rowid `rid`, `bm25`, its group
    # and timestamp columns, its `unit_id` when it has one (the key fusion merges on; the
    # semantic modes' bound, worker/recall/fused_depth.py), what `signals` reads,
    # `related` and optionally `judged`
    # (false: the owner never judged its documents, so its feedback is none; absent: it
    # may have any), but not its text;
    # `rows_sql` reads the whole rows (as `search_sql` has them) of the rowids it keeps,
    # ?1 a JSON array of them, in that order.
    ranked_sql: str
    rows_sql: str
    # A semantic mode's first pass, which runs while the query is embedded (`params`' and
    # after them the model whose vectors are fused, `embedded_sql`; the same rows): each
    # ranked row with `ranked_sql`'s columns and whole, as `rows_sql` has it, so the rows
    # its bound keeps need no second read, and `embedded`, whether its unit holds a vector
    # of the model, so the batch that resolves the vector hits need not ask (after the
    # embedding, that batch is the only one; worker/recall/lexical.fused).
    whole_ranked_sql: str
    # The timeline (worker/recall/timeline.py): the rows dated within the filters' window,
    # newest first, each with `by_day` (dated to a day of it, not only an instant), bound
    # by `timeline_params(filters, rows)`.
    timeline_sql: str
    timeline_params: Callable[[Filters, int], tuple[Value, ...]]
    to_candidate: Callable[[Row, Scoring], Candidate]
    # What a row's candidate matches the query's terms on: its text, then its fields'
    # values (the candidate's `text` and `fields`; a conversation unit's two turns), read
    # before the candidate is made.
    match_texts: Callable[[Row, Sequence[Term]], tuple[str, ...]]
    judgments: Judgments
    # What the pure layers need of its hits: the Recall block's header, the offline word,
    # the tie order, standing's and feedback's view of it.
    hit: HitKind
    # The message a chat turn recalls for is stored (and indexed) in this corpus before
    # recall runs: its statistics are counted without it (worker/recall/stats.py).
    holds_the_query: bool = False
    # How its units are embedded and resolved for semantic recall; None: lexical only.
    vector: VectorCorpus | None = None
    # The standing signals of a row's candidate for the query, the owner's feedback aside:
    # what bounds its standing before it is built (worker/recall/depth.py). None:
    # standing's floor and ceiling bound it.
    signals: Callable[[Row, SearchQuery], Signals] | None = None
    # Its units lend their neighbours a share of their score (shared/rank/adjacency.py),
    # so a search reads at least `Filters.pool` hits' worth of its rows (`rows_read`).
    lends: bool = False


def embedded_sql(unit: str, model: int) -> str:
    """Whether the unit `unit` (a column) holds a vector of the model bound to ?{model}
    (one lookup in vector_units' unique index)."""
    return (f"EXISTS (SELECT 1 FROM vector_units AS x WHERE x.unit_id = {unit} "
            f"AND x.model = ?{model}) AS embedded")


def rows_read(corpus: Corpus, filters: Filters) -> int:
    """The rows of `corpus` a search with `filters` ranks: `fetch_per_hit` per hit
    wanted, and for a corpus that lends, per hit of the pool whatever the limit, so a
    short list is the head of the same ranking (its units' neighbours still lend)."""
    hits = max(filters.limit, filters.pool if corpus.lends else 0, 1)
    return hits * corpus.fetch_per_hit
