"""Semantic recall: embedder, vector index and reranker ports and their adapters."""
