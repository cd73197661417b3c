"""Searchable corpora, one module each (notes, conversations), each one record
(worker/corpora/base.py) holding all its SQL and how recall treats its units; the
registry lists them."""
