UPDATE slots SET n_samples = -5 WHERE id = 2;
