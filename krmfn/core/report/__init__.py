"""What a run says: each referrer's rollout (rollout, outcomes), what cannot roll (rollpath, audit,
rotation), old names left behind (leftover), config rules that matched nothing (unmatched), and the
warnings an object silences (silence)."""
