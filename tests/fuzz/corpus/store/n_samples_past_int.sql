UPDATE slots SET n_samples = 4294967301 WHERE id = 2;
