UPDATE devices SET copy_gbps = 1e308;
UPDATE cases SET copy_floor_ns = 1e-300;
