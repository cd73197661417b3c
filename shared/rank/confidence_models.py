"""The fitted confidence models (shared/rank/confidence.py). Written by
`uv run python -m bench.confidence_fit --mode M --write` from tuning data only; the figures
beside each model are its out-of-fold ones."""

from __future__ import annotations

from shared.rank.confidence import ConfidenceModel

# Fitted on 18676 rows of 2144 tuning queries (lexical retrieval).
# Weights kept; thresholds chosen in sample: ECE 0.005, Brier 0.0441; at the per-kind thresholds,
# vault sets auto hit 0.784 / FPR 0.040, LoCoMo 0-4 (owner) 0.311 / 0.036.
LEXICAL = ConfidenceModel(
    name='lexical',
    model_prefixes=(),
    bias=-13.6155,
    weights={
        'relevance': -4.63684,
        'sqrt_relevance': 15.0257,
        'coverage': 0.0660746,
        'all_terms': 0.393014,
        'matched_specificity': 0.167226,
        'query_specificity': 1.40049,
        'terms': 1.58239,
        'lexical_rr': 0,
        'vector_rr': 0,
        'both_lists': 0,
        'vector_only': 0,
        'cosine': 0,
        'cosine_to_best': 0,
        'score_to_best': 2.52279,
        'rank_rr': 1.0872,
        'best_margin': 1.68926,
        'message': -0.726371,
        'assistant': 0.293049,
        'standing': -2.32844,
        'recency': -1.5954,
        'index_size': -0.509429,
        'pending': 0,
        'exact': 0,
        'fuzzy': -1.84733,
    },
    threshold=0.57,
    related_floor=0.0,
    kind_thresholds={'message': 0.43, 'note': 0.57},
)


# Fitted on 22476 rows of 2214 tuning queries (adaptive retrieval).
# Weights kept; thresholds chosen in sample: ECE 0.006, Brier 0.0349; at the per-kind thresholds,
# vault sets auto hit 0.940 / FPR 0.036, LoCoMo 0-4 (owner) 0.491 / 0.037.
MINILM = ConfidenceModel(
    name='minilm',
    model_prefixes=('local/all-MiniLM-L6-v2',),
    bias=-7.99692,
    weights={
        'relevance': -1.5853,
        'sqrt_relevance': 6.03543,
        'coverage': 0.591735,
        'all_terms': 0.511636,
        'matched_specificity': 0.911851,
        'query_specificity': 0.140765,
        'terms': 0.68977,
        'lexical_rr': -0.299701,
        'vector_rr': 0.238537,
        'both_lists': -1.53128,
        'vector_only': 0.477749,
        'cosine': 6.2035,
        'cosine_to_best': 0.222033,
        'score_to_best': 3.68419,
        'rank_rr': 0.571754,
        'best_margin': 1.97241,
        'message': -1.82728,
        'assistant': 0.343869,
        'standing': -1.3738,
        'recency': -2.0805,
        'index_size': -0.792662,
        'pending': 0,
        'exact': 5.54931,
        'fuzzy': -1.0569,
    },
    threshold=0.52,
    related_floor=0.52,
    kind_thresholds={'message': 0.39, 'note': 0.53},
)


# Every calibrated embedder's model (the lexical one weighs the rest).
MODELS = (MINILM,)
