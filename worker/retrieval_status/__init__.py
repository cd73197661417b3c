"""What /status says of retrieval: the mode, the embedder (and whether it answers), the
vector index and how far indexing is behind."""
