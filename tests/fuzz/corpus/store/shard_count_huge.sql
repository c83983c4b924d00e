UPDATE runs SET shard_count = 2147483647 WHERE run_set = 's';
