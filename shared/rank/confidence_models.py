"""The fitted confidence models (shared/rank/confidence.py). Written by
`uv run python -m bench.confidence_fit --mode M --write` from tuning data only; the figures
beside each model are its out-of-fold ones."""

from __future__ import annotations

from shared.rank.confidence import ConfidenceModel

# Fitted on 18676 rows of 2144 tuning queries (lexical retrieval).
# Out of fold: ECE 0.005, Brier 0.0457; at the threshold, vault sets auto hit 0.772 / FPR 0.040,
# LoCoMo 0-4 (owner) 0.250 / 0.021.
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
    threshold=0.56,
    related_floor=0.0,
)


# Fitted on 22476 rows of 2214 tuning queries (adaptive retrieval).
# Out of fold: ECE 0.002, Brier 0.0346; at the threshold, vault sets auto hit 0.916 / FPR 0.036,
# LoCoMo 0-4 (owner) 0.300 / 0.018.
MINILM = ConfidenceModel(
    name='minilm',
    model_prefixes=('local/all-MiniLM-L6-v2',),
    bias=-7.62997,
    weights={
        'relevance': -1.43231,
        'sqrt_relevance': 5.64651,
        'coverage': 0.728596,
        'all_terms': 0.573349,
        'matched_specificity': 0.752423,
        'query_specificity': 0.244686,
        'terms': 0.623357,
        'lexical_rr': 0.293177,
        'vector_rr': 0.447758,
        'both_lists': -0.996584,
        'vector_only': 0.771606,
        'cosine': 6.14891,
        'cosine_to_best': 0.680529,
        'score_to_best': 2.67642,
        'rank_rr': 0.433911,
        'best_margin': 1.17597,
        'message': -1.84948,
        'assistant': 0.336687,
        'standing': -1.00037,
        'recency': -2.33267,
        'index_size': -0.744532,
        'pending': 0,
        'exact': 5.68224,
        'fuzzy': -0.891865,
    },
    threshold=0.51,
    related_floor=0.51,
)


# Every calibrated embedder's model (the lexical one weighs the rest).
MODELS = (MINILM,)
