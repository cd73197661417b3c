"""The retrieval inspector (README, "Why these memories"): the trace of a search or of an
answer's recall, every candidate with the policy's own decision, and why a named note or
message is missing."""
