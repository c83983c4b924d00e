UPDATE slots SET arm = 'a' WHERE position = 1;
