UPDATE outputs SET idx = 3 WHERE slot_id = 2;
