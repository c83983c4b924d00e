UPDATE cases SET name = CAST(x'6c6eff' AS TEXT) WHERE run_id = 1;
