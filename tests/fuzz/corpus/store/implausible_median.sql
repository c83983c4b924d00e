UPDATE slots SET median_ns = -1 WHERE id = 1;
