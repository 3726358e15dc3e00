"""The bad-input corpus: hostile, broken and merely unusual ResourceLists (see cases.py)."""
