UPDATE baselines SET run_set = 'nope';
UPDATE samples SET wall_ns = NULL WHERE idx = 2;
