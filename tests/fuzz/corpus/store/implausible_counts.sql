UPDATE kernel_times SET total_ns = -5;
UPDATE outputs SET mismatches = bytes + 1;
UPDATE slots SET before_temp_c = 5000, elapsed_s = 2e6;
