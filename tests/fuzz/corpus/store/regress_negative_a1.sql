UPDATE slots SET n_samples = -1 WHERE id = 1;
