UPDATE slots SET p10_ns = median_ns * 2;
UPDATE slots SET kernel_median_ns = -5 WHERE id = 2;
