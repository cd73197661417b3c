"""Background vector indexing: embedding what is not indexed yet, after a write or on
request, and dropping the vectors of what was forgotten."""
