"""Recall by layer: corpus records → a pure plan → one D1 batch → statistics → the typo
step → scored candidates → policy (fusion and the gate) → rendering at the edge."""
