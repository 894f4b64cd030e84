"""Security regression corpus: one module per untrusted boundary (docs/security.md)."""
